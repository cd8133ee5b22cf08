"""The apps whose requests the classifier reads apart, one paragraph each: the part of the
evaluation report (docs/classifier.md) that continues "How it decides"
(`classifier.report_how.HOW`, near 400 lines). Apart from `classifier.report_text` (what was
tried, the readers' audit) to keep each file under 400 lines. The doc is generated: a
sentence added to docs/classifier.md by hand and not here is lost at the next retrain, and
`tests/classifier/test_classifier_doc.py` fails."""

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
"""
