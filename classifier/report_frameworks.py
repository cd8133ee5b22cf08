"""The agent frameworks' own texts item 3 of "How it decides" leaves out, in the evaluation
report (docs/classifier.md): `FRAMEWORKS_NOTE`, spliced into `classifier.report_how.HOW`,
which outgrew 400 lines with it. Apart from the apps' sections that follow "How it decides"
(`classifier.report_apps`), whose module the two outgrew together. The doc is generated: a
sentence added to docs/classifier.md by hand and not here is lost at the next retrain, and
`tests/classifier/test_classifier_doc.py` fails."""

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
   rigging's request to rewrite a reply `until_parsed_as` failed to parse
   (`classifier/rigging.py`: `<system-error type="...">` or `<validation-error ...>`, the
   error, then "Rewrite your entire message with all of the required xml elements."), right
   after that reply, is passed over for the ask before it: read, "What is the capital of
   France? Answer in <answer></answer> tags." was retried as coding 0.80.
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
   extract step) is one conversation, and two calls of one program are two. A DSPy 2.x
   call (dsp's template, STORM's: one user message, its parts "---" apart, "Follow the
   following format." and each field's prefix and `${field}`, its demos, its query ending
   with its output's prefix) is read by its instructions' first line, not DSPy's default
   "Given the fields ...", and its query's input values, a line apart: not the prefixes,
   the guidelines, the demos, the output prefix nor a ChainOfThought's rationale ("Reasoning:
   Let's think step by step in order to ..."). STORM's section writing, instruction (0.89)
   by its template and format rules, is writing; its sections, alike past the key's first
   2,048 characters, are conversations of their own, and a call and dsp's retry of it one.
   Called without guidelines (STORM's lead section, search queries, expert answers), a call
   is read as sent.
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
   Of paper-qa's evidence summaries and its answer (`classifier/paper_qa.py`, 2026.8.12), the
   question they quote is read, after the template's last "Question:" marker: a summary's
   JSON system prompt ("Provide a summary of the relevant information that could help answer
   the question based on the excerpt. ...") over "Excerpt from ...", the excerpt and the
   question; its text-only summary ("Summarize the excerpt below to help answer a question.
   ...") and its answer ("Answer the question below with the context. ...", the summaries as
   context), each its one user message with its fixed instructions after the question. Read
   as written, a summary went by its excerpt (a Rust chunk coding, a proof math, prose
   writing) and the answer was instruction 0.53-0.83 for every question; its retry of a
   summary it could not parse ("In a prior attempt, we failed with this failure message:")
   is passed over, and one question's summaries key as one conversation.
   Of NeMo Guardrails' Colang 1.0 dialog-rail prompts (`classifier/nemo_guardrails.py`,
   0.24.1: `generate_user_intent`, `generate_next_steps`, `generate_bot_message`), the
   session's asks after its sample conversation are read: in a text prompt (one user message,
   the instructions in triple quotes, "# This is how a conversation between a user and the
   bot can go:" and the sample, then "# This is the current conversation between the user and
   the bot:"), past its "# Choose intent from this list:" line and the sample's first two
   turns repeated as the sample opens, the first `User message: "..."` line as the first ask
   and the last as the latest (a next-steps prompt, which holds no user message, by its
   `User intent:` lines); in a chat prompt, the user messages after the system message "This
   is the current conversation between the user and the bot:" and the sample's two turns
   repeated. Read as written, the fixed head (longer than the key's 2,048 characters, or the
   sample's "Hello there!" as the first user message) made every user's calls one
   conversation, one user's pin serving everyone, and a math ask's bot message writing; each
   user's session is now its own conversation, read by its asks. A sample of fewer than
   three turns, the compact chat prompt and custom prompts are read as written.
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
   Commit-message generators (`classifier/commit_message.py`): opencommit (3.3.10) opens
   every request with its system prompt ("You are to act as an author of a commit message
   in git. Your mission is to create clean and comprehensive commit messages ..."), an
   example diff of `src/server.ts` and its commit message; that pair, only right after that
   prompt and with the reply after it, is passed over, so the staged diff is the first ask
   and keys the commit (read as the first ask, it made every commit of a caller one
   conversation, and a LaTeX diff's cloud pin sent later Python fixes to the cloud).
   opencommit's prompts and aicommits' (3.4.0: its title prompt "Generate a concise git
   commit message title in present tense ...", its body prompt "You are generating the
   short body (description) of a git commit message. ...") give coding (0.97),
   rule-decided (`commit_message`): read by topic, aicommits' poem-only commit was prose
   0.55 and opencommit's LaTeX proof math 0.62.
   SillyTavern (1.19.0, `classifier/sillytavern.py`): a roleplay chat app whose default
   main prompt, the first system message (or the opening of the one message its prompt
   post-processing leaves), is "Write <char>'s next reply in a fictional chat between
   <char> and <user>." with the names put in; that sentence, alone on its line, gives
   prose (0.97), rule-decided (`sillytavern`), as role-play is prose whatever the turn
   says: read by their words, one chat's turns were reasoning, tool_calling, reasoning,
   tool_calling, prose, tool_calling, no tool offered. Its chats are keyed by the names it
   holds (the character, or a group chat's members, and the persona), not by its system
   messages, among which lorebook entries come and go, nor by a first user message that
   trimming drops: keyed so, 6 turns of one chat were 5 conversations.
"""
