"""The apps' and agent frameworks' sections of the evaluation report (docs/classifier.md),
one paragraph or more each, after "How it decides": how each one's requests are read apart
(`APPS_NOTE`). The frameworks' texts item 3 of "How it decides" leaves out are
`classifier.report_frameworks.FRAMEWORKS_NOTE`, a module of their own: together they grew
past 400 lines. Apart from `classifier.report_text` (what was tried, the readers' audit)
alike. The doc is generated: a sentence added to docs/classifier.md by hand and not here is
lost at the next retrain, and `tests/classifier/test_classifier_doc.py` fails."""

APPS_NOTE = """\
### Letta's requests

Of the Letta server's requests (`classifier/letta.py`, 0.16.8), an agent's step is told by
its system prompt: one of Letta's templates, opening `<base_instructions>`, then its memory,
ending with the memory metadata (`<memory_metadata>`, its `AGENT_ID` and `CONVERSATION_ID`
lines). Its MemGPT agents (`memgpt_agent`, `memgpt_v2_agent`) answer by calling
`send_message`, with `tool_choice: "required"` on every request: there, with `send_message`
offered, a forced choice ("required", or one naming `send_message`) is its reply channel, no
tool request, and the step is read as its default agent's (`tool_choice: "auto"`): the ask,
by the model with the offered tools' prior, unless it asks for a tool (item 1's phrases and
names). Read by the forcing, a poem (prose 0.968 by the model) and a math question went to
the local model as tool_calling. A choice naming another tool is a tool call. Its own texts
in user turns, JSON objects (the login event, its heartbeats "[This is an automated system
message hidden from the user] Continuing: ...", a compaction's summary as a `system_alert`),
are passed over for the user's ask before them; a user's message it wraps (`{"type":
"user_message", "message": ...}`) is read inside. Its compaction's summary request (its
summary prompt, "Your task is to create a detailed summary of the conversation so far, ..."
or the sliding window's, its acknowledgement, the transcript between `<start_transcript>` and
"<end_transcript>\\n. Generate the summary.") gives instruction (0.9), rule-decided: a
Letta agent's chat has no one kind of work, and the summary asks for one fixed form
(sections, a word limit), instruction by the labelling conventions; read by its transcript,
a coding chat's went local and a poem's to the cloud. The conversation key hashes the
agent's and the conversation's ids, marked as Letta's, not its system prompt, whose memory
blocks its tools edit (one agent's conversation split in two at an edit). Only under Letta's
opening and metadata: a forced call elsewhere is tool_calling, a heartbeat typed into
another chat is read as written.

### Marvin's requests

Of Marvin's requests (`classifier/marvin.py`, 3.2.7 on pydantic-ai 1.94.0), a task's turn is
told by its system prompt, "<system>\\n    Complete tasks to the best of your ability by using
the appropriate tool. Follow all instructions carefully." and its agent's block, to
`</system>`. Every turn forces a call (`tool_choice: "required"`) with its task's end-turn
tool offered (`MarkTaskSuccessful_<task id>`, "Ends the current turn.. Mark a task successful
and provide a result."; `EndTurn`, "Ends the current turn.", for a task that may fail, skip or
plan, and those tools by Marvin's names and descriptions): there that call is its reply
channel, as Letta's `send_message` is, and those tools are no tools offered (the tools' prior
would have doubled tool_calling on every ask); a tool the user gave the agent is, and an ask
for it is tool use (item 1). Read by the forcing, every request was tool_calling and local, an
integral (math 0.998 asked alone) too. The task, a user message in Marvin's frame (`<task>`,
`<id>`, `<instructions>`, `<context>`, `<result-type>`; its attachments, images or files, as
parts after it), is read by its instructions, out of the frame and its indentation, of long
ones only the head and tail the ask is read to: `<task>` is Cline's wrapper too, and read
whole a haiku's task was an agent's session, coding 0.89. `say()`'s task ("Respond to the
user") is passed over for the user's message before it. Its `extract`, `classify` and `cast`
tasks (its fixed instructions, "You are an expert entity extractor ...", "... classifier ...",
"... data converter ...", the data in `<context>`) give instruction (0.97), rule-decided: a
given form of given data, as the labelling policy names extraction, classification and
reformatting; the data is read as the ask. The conversation key hashes a thread's first task
as sent, its id with it, so two threads of `marvin.run` opening alike are two. Only under
Marvin's system prompt: a forced call elsewhere is tool_calling, a `<task>` elsewhere Cline's.

### BeeAI Framework's requests

Of BeeAI Framework's requests (`classifier/beeai.py`, 0.1.85), a RequirementAgent's or
ToolCallingAgent's step is told by its system prompt ("# Role\\nAssume the role of ..." or
"Assume the role of ...", then "When the user sends a message, figure out a solution and
provide a final answer to the user by calling the 'final_answer' tool."). The RequirementAgent
forces a call of `final_answer` ("Sends the final answer to the user") on every turn: there
that call is its reply channel, as Letta's `send_message` and Marvin's end-turn tool are, and
`final_answer` is no tool offered; a tool the user gave the agent is. Read by the forcing,
every turn was tool_calling 0.97 and local, a haiku and a proof that the square root of 2 is
irrational too. Its ask, "Your task: <ask>", is read without those words; its ReActAgent's,
"Message: <ask>" and "This message was created at <time>" under its text protocol ("#
Available functions ..."), without either. Where it takes the forced choice for one the API
lacks (its OpenAI adapter with a base URL of its own), it sends no `tools` and asks for a call
as a `response_format` JSON schema named "ToolCall", an `anyOf` of the tools' calls: the tools
named in it are offered, `final_answer` not (unread, "What is the weather in Paris, and what is
17 + 25? Use the tools." offered none and read math 0.45, cloud). Its ToolCallingAgent's nudge
after a repeated call, "I can't see your answer. You must use the 'final_answer' tool to send
me a message.", is passed over, the task before it read. Only under BeeAI's system prompts: a
forced `final_answer` elsewhere is tool_calling, a "ToolCall" schema elsewhere no tool offered,
and the words elsewhere the user's.

### PraisonAI's and mem0's requests

A PraisonAI workflow task (`classifier/praisonai.py`, praisonaiagents 1.7.17) comes in one of
two frames: "You need to do the following task:", the description, "Expected Output:", the
expected output; or, given earlier tasks' outputs, "User Input/Topic:", the outputs, "Task:",
the description, "Expected Output:", the expected output, "IMPORTANT: Your response must be
about the user's input/topic above. ..."; each ending "Please provide only the final result
of your work. ...". The description and the expected output are read, a line apart, as a
crewAI task's; the outputs and its memories' bullets are not. Read whole, a proof task in
the second frame was instruction 0.48, local. Only a text in the frame exactly, opening and
ending as PraisonAI's: its single agent's prompt, sent as it is, is read as written.

mem0's memory calls (`classifier/mem0.py`, mem0ai 2.2.1) give instruction (0.97),
rule-decided: its extraction on every `Memory.add()` (its "You are a Memory Extractor"
system prompt and its sections, "## Summary" to "# Output:"), its procedural memory
("Create procedural memory of the above conversation." after its summarization prompt), and
1.x's fact extraction ("Input:" under its "Information Organizer" prompts) and memory update
(a user message ending in its instructions, "Do not return anything except the JSON
format."). Each is the app's background job, a reply in a form mem0 fixes over a chat routed
when it was said: a given form of given data, as the labelling policy names extraction; read
by the chat inside, a proof chat's extraction went to the cloud as math.

### BAML's requests

Of BAML's requests (`classifier/baml.py`, baml-py 0.226.3), the output-format block its typed
functions write into the prompt (`{{ ctx.output_format }}`: "Answer in JSON using this
schema:" and the class in BAML's notation, or its prefixes for an array, a union, an enum's
categories, a literal, a primitive, "Answer as an int") is cut from the ask read, the words
before and after it kept: read, a four-line poem ask was instruction 0.77 (local) where alone
it was prose 0.99, an essay instruction 0.68, a proof 0.45. A prompt that is nothing but the
block, a custom `prefix=`, and the definitions BAML hoists before the prefix are read as sent.
A BAML prompt without a role is one system message, read as the ask (item 2).

### Taskmaster's requests

Taskmaster's planning requests (`classifier/taskmaster.py`, task-master-ai 0.43.1: one
system message, a template's text with its line "Always respond in {language}." at its end,
then one user message) give instruction (0.97, local), rule-decided, whatever the user
asked: parse-prd, expand, add-task, update-task and its append mode, update, update-subtask,
analyze-complexity and scope up or down each ask for a task record in the form Taskmaster
gives (JSON of its keys, or the text it appends to a task), a given form over given data.
Read by their template and the project's task list, parse-prd was coding 0.81, expand
instruction 0.55, add-task's rate-limiting ask writing 0.46 (cloud), and once the project
held tasks every add-task coding 0.83-0.99, "Draft a blog post announcing the launch" too.
Its research request is read by its query (between "# Research Query" and "# Project
Context", or its instructions when it gathered none), as that question asked alone: read
with the project's tasks, "Prove that the square root of 2 is irrational." was writing 0.55.
Only its prompts whole, after its system text with its language line: its templates' words
in a chat are read as written.

### fast-agent's requests

fast-agent's router's call and its orchestrator's planning call (`classifier/fast_agent.py`,
fast-agent-mcp 0.2.36) give instruction (0.97, local), rule-decided, whatever the user asked:
the one asks for an agent's name out of the agents listed in `<fastagent:agents>`, the other
for a plan of steps naming them, each in JSON of given keys, as n8n's Text Classifier and
Taskmaster's planning prompts do. Read by the query, "What is 3 plus 4?" was below
`min_confidence` (the default route) and "Write a haiku about the sea" prose 0.62 (cloud).
Only under the router's own opening ("You are a router that determines which specialized
agent should handle a given query.", or its built-in instruction) with its routing text the
user message's last part, and the planner's templates whole: a router with an instruction of
its own is read as written. Both are side requests: they pick who does the work, and pin
nothing of a run sent under one session id (the router's call, the run's first, pinned it to
the local model, and the poem its agent then wrote was served there). Its evaluator's,
refinement's and synthesis' requests are read by the model.

### gpt-researcher's requests

gpt-researcher's report request (`classifier/gpt_researcher.py`, 0.15.1: its agent's role
prompt as the system message, then its report prompt filled as the one user message,
`Information: "..."`, "Using the above information, answer the following query or task:
"..." in a detailed report --" and its guidelines to "Assume that the current date is ...")
gives writing (0.97), rule-decided, whatever its research found: read by the documents it
holds, the same report was writing (0.46-0.50, cloud) with documents, instruction (0.55,
local) with none (`Information: "[]"`), and instruction (0.51, local) in its retry, which
folds the role prompt into the user message (read so too). Its sub-query request ("Write 3
search queries to research the following task: "...", its list format after it) is read by
the task quoted inside, as that task asked alone: read whole, every task was instruction
(0.74-0.86), "prove sqrt 2 irrational" among them. Only its prompts whole, as its one user
message: its report's guidelines pasted into a chat, or with words after them, are read as
written.

### mcp-agent's requests

mcp-agent's parallel fan-in (`classifier/mcp_agent.py`, 0.2.6: "Aggregated responses from
multiple Agents:", each agent's message as "Agent <name>: " and its Python object,
`ChatCompletionMessage(content='...', ..., role='assistant', ...)`, one whole on a line) is read
by each content string, unescaped as Python reads it, as its string fan-in sends the same
answers: with the objects, a review's fan-in was coding 0.93, prose without them. Its LLM
router's and intent classifier's templates ("You are a highly accurate request router ...",
"You are a precise intent classifier ..."), filled exactly as the last user message, give
instruction (0.97), rule-decided, as n8n's Text Classifier does (read, coding 0.55). Both,
and n8n's Text Classifier, are side requests: they pick who does the work, and pin nothing.
"""
