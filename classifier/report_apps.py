"""The apps and agent frameworks whose requests the classifier reads apart, one paragraph
each, in the evaluation report (docs/classifier.md): `FRAMEWORKS_NOTE`, the frameworks'
texts item 3 of "How it decides" leaves out (spliced into `classifier.report_how.HOW`, which
outgrew 400 lines with them), and `APPS_NOTE`, the sections that continue it. Apart from
`classifier.report_text` (what was tried, the readers' audit) to keep each file under 400
lines. The doc is generated: a sentence added to docs/classifier.md by hand and not here is
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
its own is read as written. Its evaluator's, refinement's and synthesis' requests are read
by the model.

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
instruction (0.97), rule-decided, as n8n's Text Classifier does (read, coding 0.55).
"""

# Item 3 of "How it decides" (`classifier.report_how.HOW`), indented as its list item: the
# frameworks' own texts, which make a request no agent's session.
FRAMEWORKS_NOTE = """\
   Agent frameworks' texts are left out too, but make the request no agent's session:
   research and writing run on them as much as code. Of a crewAI task
   (`classifier/crewai.py`: "Current Task:", the description, "This is the expected
   criteria for your final answer:", the expected output, "you MUST return the actual
   complete content as the final answer, not a summary." and all crewAI appends), the
   description and the expected output are read, a line apart ("Compute 17 * 23" math, as
   alone, where the whole text was instruction 0.42), its list of a task's files cut ("Input
   files (content already loaded in conversation):"; the text is then the first of a list of
   parts, the files after it); its user message after a tool's result ("Analyze the tool
   result. ...") and its request for the answer at a task's last iteration ("Now it's time
   you MUST give your absolute best final answer. ...") are passed over; only when the
   request's first message opens with crewAI's role-playing slice ("You are ... Your
   personal goal is:"). An agent run without a crew (`Agent.kickoff`) sends its request in
   the same frame, with no criteria: the request is read without crewAI's texts after it
   (its memories, "Provide your complete response:" or "Begin! ... Thought:", the date).
   crewAI's summarizer's request ("You are a precise assistant that creates structured
   summaries of agent conversations. ...", the conversation inside its instruction) is read
   by the task its conversation opens with and keyed as the run is (a crewAI run is keyed
   by its task's words, not its system prompts), and the summary that then replaces the
   conversation ("<summary>", "Continue the task from where the conversation left off.
   ...") by the summaries inside. pydantic-ai's feedback after a reply that failed its output's
   validation (`classifier/pydantic_ai.py`: "Your previous response failed the
   application's validation ..." with its `<pyai:validation_errors>` or
   `<pyai:retry_feedback>`, or 1.x's "Validation feedback:" or "N validation errors:" ending
   "Fix the errors and try again."), right after that reply, is passed over for the ask
   before it, and its summary of a compacted conversation (`<pyai:conversation_summary>`
   and its note that a summarization model wrote it) for the ask after it.
   instructor's request to correct a reply that failed validation (`classifier/instructor.py`:
   "Correct your JSON ONLY RESPONSE, based on the following errors:", "Validation Error
   found:" ... "Recall the function correctly, fix the errors", "Validation Errors found:"
   ... "fix the errors found in the following attempt:" and the reply, its other modes'
   alike) is passed over for the ask before it: right after the reply, or after the ask or
   an earlier retry where instructor sends no reply back (streamed, ANTHROPIC_JSON), never
   as a conversation's first user message, and only in instructor's request (its JSON
   modes' "As a genius expert ..." system prompt, a `json_schema` response format, or a
   tool choice forcing the one tool offered): pasted into another chat, they are the user's.
   Read, a JSON_SCHEMA math ask's retry was instruction 0.67, an ANTHROPIC_JSON one's coding
   0.83.
   Strands Agents' nudge when a reply called no structured-output tool
   (`classifier/strands.py`: "You must format the previous response as structured output.",
   exactly and whole) is passed over for the ask before it: right after that reply, never as
   a conversation's first user message, and only in Strands' forced request (its output tool
   offered alone, described "IMPORTANT: This StructuredOutputTool should only be invoked as
   the last and final tool ..."). Read, the nudge after "Give me facts about Tokyo." was
   instruction 0.97 without the tool choice that makes the request tool_calling.
   Genkit's instructions for a JSON output where the model declares no constrained output
   (`classifier/genkit.py`: "Output should be in JSON format and conform to the following
   schema:" and the schema as one line of JSON in a fence, a user message of their own, whole,
   as compat-oai sends the part Genkit appends to the ask) are passed over for the ask right
   before them, never as a conversation's first user message; with the user's words in the
   same message they are read as written. Read, a fantasy character (prose 0.998) was coding
   0.81, a sum (math 0.93) instruction 0.47.
   AgentScope's reminder of its runtime state (`classifier/agentscope.py`: "<system-reminder>
   Treat the following as the ground truth at this point of the conversation. ..." and its
   fields, the time, its tasks, the context's length, a failing tool, each a tag on a line of
   its own, a user message of its own, whole) is passed over: in Claude Code's tag, it was cut
   as a coding agent's text and made the request an agent's session, so "Explain why the sky
   is blue in two sentences." (reasoning 0.82) was coding 0.79, and one ask's route changed
   as the reminder came and went within a turn. Claude Code's own reminders still are its.
   Of each of a smolagents run's requests (`classifier/smolagents.py`), the run's task is the
   first ask: after "New task:" in an action step or the final answer, in the initial plan's
   fence after "Now begin! Here is your task:", the plan update's system prompt's in its
   first user message (where smolagents merges the task with its next texts); a managed
   agent's, inside its template ("You're a helpful agent named '...'. You have been
   submitted this task by your manager. --- Task:", the task, "--- You're helping your
   manager solve a wider task: ..."). Its own user messages after it ("Observation:",
   "Error:", "Now proceed and carry out this plan.", the plan update's and the final
   answer's prompts) are passed over. Only when the request's first message is one of its
   system prompts ("You are an expert assistant who can solve any task using code blobs."
   or "... using tool calls.", the plan update's, "An agent tried to answer a user query but
   it got stuck ...") or its whole initial plan. The conversation key hashes that task
   without smolagents' system prompts, which differ from one kind of step to the next: one
   run is one conversation.
   Of a DSPy call (`classifier/dspy.py`: its adapter's system prompt, "Your input fields
   are:" ... "Your output fields are:" ... "All interactions will be structured in the
   following way, with the appropriate values filled in."), the ask is the values of the
   last user message's input fields but a ReAct run's `trajectory`, a line apart: not
   DSPy's headers (`[[ ## question ## ]]`, the XML adapter's `<question>`), nor its order
   to answer ("Respond with the corresponding output fields, starting with the field ...",
   the JSON adapter's "Respond with a JSON object in the following order of fields: ...",
   the XML adapter's "... wrapped in XML tags ..."). A compiled program's demos (a user
   message before a reply, without that order) are passed over, so the first ask is the
   call's own, or a `dspy.History`'s first turn; the conversation key hashes it without
   DSPy's system prompts: one ReAct run (its steps, "You are an Agent. ...", and its
   extract step) is one conversation, and two calls of one program are two.
   Agno's blocks after the ask in its user message (`classifier/agno.py`: "Use the
   following references from the knowledge base if it helps:" and `<references>`, and
   `<additional context>` with its dependencies) are cut, in any request; its session
   summary's ask ("Provide the summary of the conversation.", alone after its prompt
   "Analyze the following conversation between a user and an assistant, ...") is passed
   over, as opencode's compaction request is: no ask, the default route.
   Of a Mastra guard processor's request (`classifier/mastra.py`: its moderation, prompt
   injection, PII and language checks, each under its default instructions, "You are a
   content moderation specialist. ..." and the like), the text it checks is read, not its
   prompt around it ("Please evaluate the following content for moderation, :" and
   `Content: "..."`, "Detect language of: "..."" and its targets): a side call on the
   user's words, as a title call is, goes where its turn goes. The conversation key leaves
   out the data in Mastra's working memory (`<working_memory_data>`), which its model
   updates during a conversation, as it leaves out a prompt's dates.
   Of griptape's system prompt (`classifier/griptape.py`), its sentences on actions ("You
   can think step-by-step and execute actions ..." to "NEVER reference tags in other action
   input values."), a tool task's opening, its meta memory and the lines around its
   rulesets ("When responding, always use rules from the following rulesets.", "Rule #1")
   are not read; a ruleset's name and rules are.
   atomic-agents (`classifier/atomic_agents.py`, 1.1.11) sends every user turn as its input
   schema's JSON, a text part a field (`{"chat_message":"..."}`): in its request, told by its
   system prompt's template ("# IDENTITY and PURPOSE" ... "# OUTPUT INSTRUCTIONS", its last
   lines "Always respond using the proper JSON schema." and "Always use the available
   additional information and context to enhance the response."), a turn is read by its
   fields' string values, a line apart, and told a greeting by them. Read with its braces,
   "hi" was coding 0.33, "What is the capital of Australia?" instruction 0.40, local. A turn
   any of whose texts is not one field's JSON is read as sent. Its template's words (its
   headings, its default background, those two lines) are not read as the system prompt; an
   agent's own background, steps, instructions and context are.
   Of a Semantic Kernel Magentic manager's requests (`classifier/semantic_kernel.py`), the
   run's task is read in each prompt that holds it (the facts survey, "Below I will present
   you a request. ... Here is the request:"; the progress check, "Recall we are working on
   the following request:"; the new facts, "As a reminder, we are working to solve the
   following task:"; the final answer, "We are working on the following task:"), unescaped
   where Semantic Kernel escapes it; its plan's prompts ("Fantastic. To address this request
   ...", "Please briefly explain what went wrong ...") and "Transferred to" an agent are passed
   over. Only when the request's first message is the facts survey or the manager's ledger
   ("We are working to address the following user request: ..."); the conversation key hashes
   the task that first message holds: one run is one conversation. Its summarization
   reducer's request (the turns it summarizes, then "Provide a concise and complete
   summarization of the entire dialog ..." as a system message) is no ask, as Agno's session
   summary is: the default route.
   Of Haystack's retrieval side calls (`classifier/haystack.py`), the query inside is read, as
   crush's title call is: its ranker's prompt ("You are ranking retrieved documents for
   relevance to a query. ... Query:", the query, then "Documents:") and its query expander's
   ("You are part of an information system that processes user queries for retrieval. ...
   Query:", the query in quotes, "You *must* respond with a JSON object ..."), each the
   request's last message after system messages alone; the conversation key hashes the query,
   marked as Haystack's.
   Of Open WebUI's background tasks (`classifier/open_webui.py`: its default templates, one
   user message after system messages alone, "### Task:" and a task's sentence, the chat in
   `<chat_history>` as "USER: ..." and "ASSISTANT: ..." lines), the chat's own asks are
   read, as its turn is: of a title, tags, follow-ups, search queries or an image prompt the
   history's first "USER:" turn as the first ask and its latest as the latest (read by the
   latest alone, a coding chat's later follow-ups were reasoning), its turns read in order
   from its start (a "USER: " line after an assistant's turn, "ASSISTANT: " after a user's,
   neither inside a fenced code block; a title's and tags' history one exchange, their
   reply whole); of an autocompletion the text being typed, of an emoji the text it reacts
   to. Read whole, every title was instruction (its "Your entire response must consist
   solely of the JSON object") and a coding reply's emoji reasoning, on the cloud. A
   template with words after its end, or sent later in a chat, is read as written; Open
   WebUI is no coding agent.
   Of inspect_ai's `multiple_choice()` prompt (`classifier/inspect_ai.py`: its templates exactly,
   "Answer the following multiple choice question. ..." and its letters, the question, "A) ..."
   choices), the question and choices are the ask: read whole, all 10 of a review were
   instruction, local. So of evalscope's (`classifier/evalscope.py`: the same with
   "[LETTER]" for "$LETTER", MMLU's, ARC's, GPQA's..., and its Chinese ones): 5 of 5 of an ARC
   run were instruction, local; a calculus question is math, on the cloud. Typed otherwise,
   the directive's words are read as written.
   Of an OpenAI Agents SDK agent's call after a nested handoff (`classifier/openai_agents.py`,
   `nest_handoff_history`: the conversation so far as one assistant message, "For context,
   here is the conversation so far between the user and the previous agent:" and a numbered
   line an item inside `<CONVERSATION HISTORY>` tags, no user message), the user's lines
   ("N. user: ...", or a user item's JSON) are the user's messages: the latest is the ask
   unless a user message follows, the first the first ask, which keys the conversation. Only
   when that message opens the conversation, after the system messages; read as sent, the
   math specialist's call asked nothing (the default route) and every run's call of one
   agent was one conversation.
   Google ADK's user messages of its own (`classifier/adk.py`) are passed over for the
   user's ask before them: its relay of what another agent did ("For context: below is a
   transcript of what another agent did, ...", then "[coordinator] called tool ...",
   "[solver] said: ..."), which an agent gets after a transfer and in a `SequentialAgent`,
   and its fillers ("Continue processing previous requests as instructed. ...", a
   `LoopAgent`'s next round; "Handle the requests as specified in the System
   Instruction."). Only in a request whose system prompt holds ADK's line "You are an
   agent. Your internal name is ..." (any other chat's user typed them), and after the
   request's first user message, when that is none of them; an agent sent no history opens
   on a relay, read as written. A relay sent as one string is ADK's only when its quoted
   blocks ("[solver] said:" ...) follow the preamble to the end marker. A request whose system
   prompt holds ADK's line "You are an agent. Your internal name is ..." is keyed by its
   first ask, marked as ADK's, not its system prompt, which each agent of a run sends its
   own: one run is one conversation.
   Of browser-use's requests (`classifier/browser_use.py`), an agent step (its system prompt
   "You are an AI agent designed to operate in an iterative loop to automate browser tasks.
   Your ultimate goal is accomplishing the task provided in <user_request>.", then one user
   message it rebuilds every step: the task in `<user_request>`, then `<agent_history>`,
   `<agent_state>`, `<browser_state>` with the page's elements, `<step_info>`, and with
   vision a screenshot) and its judge ("You are an expert judge evaluating browser
   automation agent performance.", the task in `<task>`) are read by the run's task: not
   the page (read so, "find the cheapest item" was tool_calling 0.57 on a shop's page and
   writing 0.39 on an article's), nor its nudges after the state ("BUDGET WARNING: ...",
   "You reached max_steps - this is your last step. ...", "You forgot to return an action.
   ..."), nor the "Expected output format:" and schema it appends for an output model; of
   a follow-up task (`<follow_up_user_request>`), the latest is the latest ask and the
   initial request the first. An agent step's reply is always its next browser actions
   (JSON in its `agent_output` schema), so every step is tool_calling, rule-decided,
   whatever the task; its history compaction ("You are summarizing an agent run for prompt
   compaction.") is no ask, read as its agent's work, tool_calling too; its page
   extraction ("You are an expert at extracting data from the markdown of a webpage.", its
   structured variant) is read by the query in `<query>`. The conversation key hashes the
   run's first request, marked as browser-use's, not its system prompts: a run's steps and
   its judge are one conversation (one 5-step run was 9). Only under those system prompts,
   the state message right after the agent's, its nudges alone after it: a
   `<user_request>` typed in another chat is read as written.
   Two terminal assistants' own user turns are passed over alike, for the user's ask before
   them (`classifier/terminal_assistant.py`): Open Interpreter's after a code run in its text
   mode ("Code output: ...", the run's output, "What does this output mean / what's next (if
   anything, or are we done)?", or "The code above was executed on my machine. It produced
   no text output. ...") and gptme's when a reply called no tool ("<system>No tool call
   detected in last message. Did you mean to finish? ...</system>", its todos variant, its
   nudge under `-y`, its note on a repeated call). Read, one Open Interpreter
   conversation's turns were coding 0.43, math 0.62, then tool_calling 0.46. Each whole
   template, only in a request whose system prompt opens with either's name ("You are Open
   Interpreter, ...", "You are gptme v..."), and only after the request's first user
   message when that starts with none;
   the user's words after one in the same text are the ask. Neither is a coding agent and
   their first turns hold none of these, so they make no agent's session: a math ask read
   math on its first turn stays math on the next.
   Two more ask for code whatever the user asks. rawdog's every request (0.1.6,
   `classifier/rawdog.py`: its system prompt's whole first line "You are a command-line
   coding assistant called Rawdog that generates and auto-executes Python scripts.") and
   ai-shell's (`classifier/ai_shell.py`: one user message, no system prompt, framed whole by
   its command template "Create a single line command that one can enter in a terminal and
   run, ...", its revision template "Update the following script based on what is asked in
   the following prompt." or its explanation template "Please provide a clear, concise
   description of the script, ...") give coding (0.97), rule-decided, as Shell-GPT's shell,
   code and describe-shell roles do: the reply is a script rawdog runs, a command or what one
   does. Read by topic, rawdog's "what is 3 to the power of 50" was math 0.58 and ai-shell's
   revision "make it a limerick instead" prose 0.55.
   gptcli's built-in assistants (0.4.3, `classifier/gptcli.py`): its `dev` assistant opens
   every request with its system prompt ("You are a helpful assistant who is an expert in
   software development. ..."), the user message "Your responses must be short and concise.
   Do not include explanations unless asked." and "Understood."; that pair, only in that
   place after that prompt, is passed over, so the user's ask after it is the first ask and
   keys the run (read as the first ask, it made every `gpt dev` run on a machine one
   conversation, and a math run's cloud pin sent coding runs to the cloud). Its `bash`
   assistant ("You output only valid and correct shell commands according to the user's
   prompt. ...") gives coding (0.97), rule-decided, as Shell-GPT's shell role does: read by
   topic, "What is 17% of 2300?" under it was math 0.87.
"""
