"""How the classifier decides, the first prose section of the evaluation report
(docs/classifier.md): its rules, the bounds of what it reads (and the coding agents' own
texts it leaves out), its features, the constraint detector and `explain`. Item 3's
paragraphs on the agent frameworks' texts are `classifier.report_frameworks.FRAMEWORKS_NOTE`,
spliced in here: like the apps' sections they say how one app's requests are read apart,
and they grew this file past 400 lines. Apart from `classifier.report_text` (what was tried,
the audit). The doc is generated: a sentence added to docs/classifier.md by hand and not
here is lost at the next retrain."""

from classifier.report_frameworks import FRAMEWORKS_NOTE

_BEFORE_FRAMEWORKS = """\
## How it decides

1. **Rules** (`rules.py`), source `rule`: `tool_choice` that forces a call (`required`, or a
   named function) gives tool_calling (0.97); tools offered and a latest user message that
   asks for them (phrases such as "look up", "send an email", an offered tool's whole name
   in "use / call / run / with the <name> tool", or in an imperative "use / call / run the
   <name> function" ("what's wrong with the search function" asks about code): "use the
   multiply tool" with `multiply` offered; a part of its name so, or the part a `Tool` word
   ends bare after an imperative "use": "use the calculator" or "use the calculate tool"
   with griptape's `CalculatorTool_calculate` (`tool_parts.py`), not "use the search
   results"; or two words of a tool's name in their order: "the current weather" names
   `get_current_weather`; or, with agency-swarm's `send_message` offered (`agency_swarm.py`:
   its description's opening, "Use this tool to facilitate direct, synchronous communication
   between specialized agents within your agency.", and its `recipient_agent` enum of agent
   names), one of those agents named, any case, as the one to do it: "Tell the Developer to
   draft a short status report" or "Developer, check the build", writing 0.87 by its words,
   is the CEO's call of `send_message`; a delegating verb opening the ask or a clause, then
   the name, then a task; not the name anywhere: "what does a developer do?", "what should I
   ask the developer in a job interview?" or "Let the writer in you shine" is not) gives
   tool_calling (0.90).
   Descriptions are not compared: an agent's are in everyday words ("command", "file",
   "list"), which any coding task shares. Nor are the coding agents' built-in tools
   (`HARNESS_TOOLS`: Claude Code's TodoWrite, Codex's apply_patch...), named in such words
   too ("store the todo write timestamp"), when three or more of them are offered (one
   offered by an app of its own, `read_file`, can be named); they still count as tools
   offered, and an MCP tool an agent offers after its own can be named. The
   deprecated chat fields are read alike when the current ones are absent: `functions` as
   `tools`, and `function_call` (`{"name": ...}` forces that function, `"none"` offers none).
   A smolagents CodeAgent's request (item 3: its action steps, its plans) gives coding
   (0.97), whatever the task: its every step must answer in code, which its Python
   interpreter runs ("How many prime numbers are there below 100?" is math 0.99 asked alone).
   So does Vanna's SQL prompt (`classifier/vanna.py`: its `generate_sql`, a system prompt
   that ends with its Response Guidelines, or before 0.5 opens "The user provides a question
   and you provide SQL."): its reply is SQL ("What is the total revenue per country?" was
   math 0.80 so).
   A DSPy ReAct step (item 3) gives tool_calling (0.97), as a smolagents ToolCallingAgent's
   step does by its `tool_choice`: its reply must name one of the tools its instructions
   offer ("finish" among them), whatever the task. So does a ToolCallingAgent's step sent
   with no `tools` (`smolagents.py`; txtai's `Agent`, 9.14.0, on a model of its own): its
   system prompt lists the tools ("You only have access to these tools:", each "- name:
   description"), read as offered, and its rules force the call ("1. ALWAYS provide a tool
   call, else you will fail."): "What is 1234 * 5678? Use the multiply tool." was math 0.81
   on the cloud so. rigging's text tool modes (`rigging.py`, 3.3.5: `json-in-xml`, `xml`)
   list the tools in a block appended to the system prompt ("# Tools" ... `<available-tools>`
   and a JSON object a line, or `<tools>` and `<rg-tool name="..." ...>` elements), read as
   offered, not forced ("If you decide to invoke one or more of the tools"), and not as the
   system prompt's words: that ask is tool_calling (0.90) by the tool it names, as in its
   `api` mode, where it was math 0.58 and 0.61.
   Qwen-Agent's default function calling (`hermes.py`, 0.0.34) writes the tools into the
   system prompt in the Hermes-style block of Qwen2.5's and Qwen3's chat templates ("# Tools"
   ... `<tools>` and a JSON object a line, then the `<tool_call>` instruction), read as
   offered, not forced, and not as the system prompt's words; its tool's result, a user
   message of `<tool_response>` blocks alone, is read as a tool's result, not as the ask:
   that ask is tool_calling (0.90), as with its tools in `tools`, where it was math 0.60 and,
   after the result, 0.63.
   An eval tool's grader's request, told exactly (`promptfoo.py`: `llm-rubric`, `factuality`,
   `model-graded-closedqa`, `g-eval`; `inspect_ai.py`: `model_graded_qa/fact()`;
   `deepeval.py`: AnswerRelevancy's, Faithfulness' and GEval's templates; `ragas.py`:
   Faithfulness', ResponseRelevancy's and AspectCritic's instructions in its prompt frame;
   `evalscope.py`: its LLM judge's templates, "Your job is to look at a question, a gold
   target, and a predicted answer ..." and its numeric score's, with its JSON contract),
   gives reasoning (0.97) whatever it grades: a code answer's grade was coding, on the local
   model, and deepeval's judges instruction, by their JSON directive.
   A coding agent's session (three or more of those tools offered, opencode's, Continue's
   (its editor's agent mode and its CLI, `cn`, also under `-p` or `--readonly`, which offer
   no file edits), Goose's, OpenHands' (its CodeAct agent's and its SDK's, 1.x: `terminal`,
   `file_editor`, `task_tracker`, and the CLI 1.16.0's `task`, a word any app may name a
   tool, counted only beside them; its `finish` and `think` count for none), Cursor's,
   the Cline CLI's, crush's and Kimi CLI's (its subagents'
   too) as well, or an agent's text cut from the latest or the first ask, item 3) is coding
   work unless the ask clearly is not. The agents' names any app may give its own tools
   (`PLAIN_NAMES`: Read, Write, Edit, Task, Workflow, TaskCreate, WebSearch, Codex's
   `shell`, Kimi CLI's ReadFile...) count only beside a name of a coding agent's own
   machinery (Bash, Glob, TodoWrite, apply_patch, StrReplaceFile...): a notes app's Read,
   Write and Edit made "Summarise the main causes of World War I." coding 0.93. They count
   alone when the system prompt opens with a coding agent's identity (Claude Code's, its
   subagents' and its Agent SDK's, Kimi CLI's): a Claude Code subagent given only Read,
   Write and Edit read "explain what sync_dir does in utils.py" as reasoning 0.73. When the
   model reads it as math, reasoning, prose or writing and those four together stay below
   0.95, it is coding, rule `agent_session` ("write unit tests for build_parser" was writing
   0.57 in opencode, "explain what sync_dir does" reasoning 0.88; a haiku, prose 1.00, stays
   prose). Nor when the latest ask read alone, the first ask left out, reaches 0.95 and the
   request is read as other work first: the model's reading stands. After a fix in calc.py,
   Aider's "Write a haiku about autumn leaves." was prose 0.923 (0.934 with the first ask
   weighted in) and went coding; alone it reads prose 0.998. That second reading is made
   only where the rule would otherwise decide, at most once a request. Its confidence is
   the model's probability of coding work (coding, tool_calling, instruction) with the odds
   of 19 to 1 that floor stands for: above 0.5. An ask the model
   reads as coding work at less than even odds is coding by that rule too, at its
   confidence: "Read the config loader and write a test for it." was coding 0.29 by the
   model in Claude Code's session and tool_calling 0.27 in Codex's, both below
   `min_confidence`, while "explain what sync_dir does", reasoning 0.79, was coding 0.79 by
   the rule. From even odds on the model's reading stands: "run the tests" stays
   tool_calling 0.80, a call of the agent's shell. There an ask
   that names a source file (`source_files.py`: a path or file name with a language's
   extension, .py, .ts, .go, .sh…, or configuration's, .yaml, .toml; a build file, Makefile,
   package.json; not .md, .txt, .csv or .json, nor a version, a domain or "e.g.") is coding
   at 0.9 however sure the model is of other work: the agent will read or edit the file
   ("add a main guard to haiku.py" was prose 0.989 in Kimi CLI's session, by "haiku").
   Outside an agent's session such an ask is coding at 0.9 too when the request offers a
   tool that can read files or run commands (rule `tools_offered`: a shell or file tool by
   its name, `shell`, `read_file`, or its parameters, `command`, `path`): an agent with a
   shell alone is none of the known ones, and in open-codex, one `shell` offered, "Explain
   what calc.py does." was reasoning 0.89. With no tools offered, or a chat app's web search
   or fetch alone, a file name decides nothing, and a link written without its scheme
   ("bbc.co.uk/news/x.html") names no file. A tool result
   alone is no agent's session: any app that calls tools ends a turn with one. Nor is a
   general-purpose harness's (`GENERAL_HARNESS_TOOLS`: LangChain's deepagents, recognised by
   `ls`, `read_file`, `write_file`, `edit_file`, `glob` and `grep` offered together), used
   for research and writing as much as for code: its tools cannot be named and count for
   no coding agent, so its asks are what the model reads ("Why did the Roman Empire fall?"
   under "You are an expert researcher" was coding 0.56 by this rule, now reasoning, on
   the cloud; "explain what sync_dir does" there is reasoning too). Three coding agents'
   tools offered beside them still make the session a coding agent's. Vanna's Agent (its
   system prompt opening "You are Vanna, an AI data analyst assistant", one of its tools
   offered: `run_sql`, `visualize_data`...) is tool_calling by the same floor, rule
   `tool_agent`: answering its asks is a call of `run_sql` ("What is the total revenue per
   country?" was math 0.40).
2. **Model** (`model.py`), source `model`: multinomial logistic regression over sparse
   features of the latest user message (weight 1), the first user message (0.5) and the
   system prompt (0.15); tool schemas are never features. Tools offered without an ask, or a
   conversation whose last message is a tool result, double the odds of tool_calling.
   System messages alone are the asks (`system_ask.py`; BAML's prompt was read as nothing),
   not read again as the system prompt; one only saying who the model is ("You are helpful",
   tool_calling 0.73 by its length) asks nothing: source `default`, as no words at all.
3. **Bounds** (`request.py`, `toolset.py`, `features.py`): the first user message among the first 64
   messages, the latest among the last 4,096 (by role alone: an agent's tool loop puts
   thousands of messages after it), 16 content parts, 16 tools (of the first 64: an
   agent's built-in tools, which Claude Code offers before its MCP tools, are not counted);
   texts clipped to 1,500 + 500 bytes of UTF-8 (characters of English, a third as many of
   Chinese); features from the first 160 and last 40 tokens. Images and other non-text
   parts are ignored. What agents add to a user turn is not the user's words
   (`harness.py`): blocks of `<system-reminder>`, a slash or local command's echo and
   output, `<task-notification>`, `<user-prompt-submit-hook>`, a peer session's message, the
   note that the user stopped a reply, the summary of a conversation compacted on its own
   and the "Tool loaded." ending a tool search's turn (Claude Code), `<user_instructions>` or
   `# AGENTS.md instructions` and `<environment_context>` (Codex), `<session_context>`
   (Gemini CLI), `<environment_details>` and the nag for a tool use (Cline, Roo Code),
   `<info-msg>` (Goose), the workspace's
   context and recalled knowledge (OpenHands: `<REPOSITORY_INFO>`, `<RUNTIME_INFORMATION>`,
   `<EXTRA_INFO>`..., user messages of their own in its older versions; its SDK's
   `<EXTRA_INFO>` is a second text part of the ask's message, its `<REPO_CONTEXT>` in the
   system message), the edit format's reminder Aider appends to the current message
   (`classifier/aider.py`; its ask or context mode's, "Reply in English.", only when its
   system prompt ends with the same), and the few others `classifier/harness.py` names, at
   the start or end of a text are cut from it; a text an agent starts with a
   notice of its own (Claude Code's "Stop hook feedback:", Cline's "[TASK RESUMPTION]"
   matched through its template's last sentence, after which words are read, also after a
   first turn's `<task>`), in Aider's requests one of its reflections (its own text after a
   reply's edits failed or lint failed: "No filename provided before ``` in file listing",
   "# 1 SEARCH/REPLACE block failed to match!", "I ran this command:"), or a tool's
   result that such a resumption follows in its turn, has no words; the tags
   an agent wraps the user's words in (Cline's `<task>`, a slash command's
   `<command-args>`, Claude Code's `<teammate-message>`, several in one text all read, and
   `<channel>`) are cut and the words read (not what Cline appends for an @-mention in them:
   `<file_content>`, `<folder_content>`, `<url_content>`, `<terminal_output>`...), unless
   a local command's output follows them (`/model opus` asks nothing); of a text holding
   the user's reply in Cline's `<feedback>`, `<answer>` or `<user_message>` after its
   lead-in (`classifier/replies.py`), at the text's end, before its mentions, or followed
   by the agent's markup (a file it read or names), only the reply is read; a user
   message with no words left (or only an image: a tool result's, which chat
   carries in a user message after the tool messages) is no ask, neither the latest (at
   most 64 such are passed over) nor the first; a tool result before it is still the last
   message. Nor, in Aider's requests, is its example conversation (to its "I switched to a
   new code base..." and "Ok.", among the first 16 messages) the first ask, nor one of its
   fixed pairs (the repository map, the read-only and the added files, or a note that none
   are, or a note of its commit, with Aider's reply after it) the first or the latest. A
   request is Aider's by its example conversation or a pair it sends on every request (not
   a note on its edits) among its first or last 16 messages (`classifier/aider.py`); in
   another client's, a message that starts as Aider's texts do is read as written. Nor, in
   Vanna's SQL prompt, is one of its trained questions (a user message with its SQL, an
   assistant message, after it) the first ask: the question, its last message, is.
   Nor are opencode's own user messages (`classifier/opencode.py`): its title call's
   "Generate a title for this conversation:" before the ask, and a compacted history's
   "What did we do so far?" before the summary, each right after opencode's system prompt
   and with a message after it (Kilo Code's, with its environment block as a second part,
   even as the last message), are passed over (a request holding one reads as an agent's
   session; in another client's, the words are the user's), and its compaction request
   (its prompt around the conversation, to its template's last rule) is no ask.
   Of crush's title call (`classifier/crush.py`: "Generate a concise title for the following
   content:", the ask, then an empty think block, after its title prompt ending
   " /no_think"), the ask inside is read; in another client's request the words are read
   as written. So is OpenHands' title call's (`classifier/openhands.py`: "Generate a title
   (maximum 50 characters) for a conversation that starts with this message:", the ask,
   then its order to pick an emoji, after its title prompt "You are a helpful assistant
   that generates concise, descriptive titles for conversations with OpenHands."; read
   whole, a poem's was instruction 0.59, an integral's coding 0.51). So is Claude Code's
   title request's (`classifier/claude_code.py`: the ask in `<session>` tags, then "Write
   the title in the language the user wrote in...", after its title prompt "Generate a
   concise, sentence-case title (3-7 words)..."; read whole, "Translate 'good morning'
   into French" was writing 0.39), in 2.1.337's words as in 2.1.197's: its title prompt
   "You are naming a coding session so the user can pick it out of a long list of
   sessions...", its tail "Write the title in the predominant language of the session
   ...". Of Claude Code's security monitor's requests (auto mode, through a gateway: its
   system prompt "You are a security monitor for autonomous AI coding agents.", then one
   user message, the session's transcript, a JSON object a line, in `<transcript>` tags,
   and the stage's instructions), the transcript's latest ask (its last `{"user": ...}`
   line) is read; read whole, stage 1 was instruction and stage 2 writing, on the cloud,
   and pinned the session there. These title calls, the monitor's requests and Open WebUI's
   background tasks are side requests (`classifier/side_request.py`, `side_request` in
   `explain()`): the router lets none pin its conversation's backend. So are the calls
   that only pick who does a run's work: fast-agent's router's and planner's, mcp-agent's
   LLM router's and intent classifier's, n8n's Text Classifier's. OpenHands' condenser's
   summary request (the events in `<EVENT>` tags and "Now summarize the events using the
   rules above.", after its prompt "You are maintaining a context-aware state summary for
   an interactive agent.", or in one message with it, and nothing else) is no ask, and is
   read as its agent's coding work, rule-decided: it carries no `prompt_cache_key`, and as
   `unknown` it went local while its session was on the cloud. The summary it wrote, a
   user message in the agent's later turns (opening `USER_CONTEXT:`, another of the
   prompt's fields, `COMPLETED:`, `PENDING:`..., at a line's start, after the system prompt
   "You are OpenHands agent, ..."), is passed over: read as the ask, a haiku session's
   summary naming stats.py was coding 0.9 by its file name. The ask inside a
   title call, and an Aider message without its mode's reminder, are what the
   conversation key hashes and `explain` measures too (`latest_cut`, `first_cut`): one
   function gives all three an ask's content (`classifier.ask_text.ask_content`).
   Nor are Qwen Code's (`classifier/qwen.py`): its setup message opening every session
   ("This is the Qwen Code. We are setting up the context for our chat.", the older Gemini
   CLI's alike) and a compressed history's summary, each with its fixed reply after it
   ("Got it. Thanks for the context!", "Got it. Thanks for the additional context!"), and
   its next-speaker check's prompt, are passed over (a request holding one reads as an
   agent's session). Nor is mini-swe-agent's answer to a reply it could not run
   (`classifier/mini_swe_agent.py`): its template whole, "Tool call error:" or "Format
   error:", the error in `<error>` tags, "Here is general guidance on how to submit correct
   toolcalls:" or "... how to format your response:" and its configs' last sentences, or its
   note that the output limit cut the reply ("Your previous response reached the output
   token limit ..."), is passed over for the task before it (a request holding one reads as
   an agent's session); read, the step was tool_calling by the rule for an ask that names a
   tool ("Call the bash tool ..."). Only after the request's first user message, when that
   is none of them: mini-swe-agent sends its task first, and a template with none before it
   is read as written. Nor is Kimi CLI's follow-up to a subagent's reply under 200
   characters (`classifier/kimi.py`: "Your previous response was too brief. Please provide
   a more comprehensive summary that includes:" and its three points, the text alone, right
   after the reply and after the request's first user message, under its system prompt,
   "You are Kimi Code CLI, ..."): passed over for the
   subagent's task before it (read, the step was writing 0.76-0.89), and the request reads
   as an agent's session; typed as a conversation's first message, or with other words, it
   is read as written.
   Nor is the pi coding agent's summary in a user turn (`classifier/pi.py`: "The
   conversation history before this point was compacted into the following summary:" or
   "The following is a summary of a branch that this conversation came back from:", the
   summary in `<summary>` tags, whole) when a user message follows it: the turn is read by
   its latest ask (read, the summary's code made a math ask's turn coding) and reads as an
   agent's session; with no user message after it, it is read as written. Its
   summarization request (its system prompt "You are a context summarization assistant.
   ...", then the conversation as "[User]: ..." entries in `<conversation>` tags and one of
   its templates, its compaction's, its update's, a split turn's or a branch's, whole) is
   read as the conversation it summarises: its first and its latest "[User]: " entry, as
   Open WebUI's tasks are; read by its template, a math session's compaction was coding
   0.549, on the local model. So is LangChain's summarization request
   (`classifier/langchain_summary.py`: its `SummarizationMiddleware`'s, Deep Agents' too, one
   user message and no system message, its template ("Context Extraction Assistant" ...)
   whole, Deep Agents' note on media in it or not, then the thread as
   `<message type="human">...</message>` entries and the like in `<messages>` tags): its
   first and its latest human message, in the thread's first and last 65,536 characters, a
   summary of an earlier compaction's passed over; read by its template, every thread's
   summary was instruction 0.56-0.78, and all of them one conversation.
   Nor are HolmesGPT's own words after a question (`classifier/holmes.py`, under its system
   prompt "You are HolmesGPT ..."): its paragraph on time ("When querying tools, always
   query for the relevant time period. The current UTC date and time are ...", in the first
   user message's last 1,024 characters, to its end) and its "# Skill Selection" block
   before it are cut from the text the classifier reads (read with them, "Write a short
   haiku about on-call engineers." was prose 0.24, under `min_confidence`, and "Why is my
   checkout pod in CrashLoopBackOff?" tool_calling 0.51), not from the conversation key,
   whose microsecond time keeps two runs of one question apart. HolmesGPT is no coding
   agent: the request is no agent's session.
"""

_AFTER_FRAMEWORKS = """\
4. **Features**: words, 5-character prefixes (typos, inflections), CJK characters, shape
   cues (code hints, stack traces, LaTeX, equations, length) and multilingual meaning cues
   (`lexicon.py`: "poema", "Gedicht", "诗" all fire `m:poem`; "acrostic", "soneto", "俳句"
   fire `m:literary_form`), and `m:answer` for a directive on presenting a final answer
   ("\\boxed", "only the letter"). Confidence is the softmax
   probability of the scores divided by a temperature fit on sources left out (see
   Calibration above); the router treats a low one as "use the default route". A request with
   no word, prefix or cue the model learnt (no text, "asdf", a bare "?": only shape cues
   and the detector's score, which one alone would carry at full weight) and a malformed
   body give intent `unknown`, confidence 0, source `default`: the default route. So does a
   user message that only greets or asks for help, no task in it (`greeting.py`: "Hi! Can
   you help me?", "hola, ¿me ayudas?", "你好"; read tool_calling 0.91 before): it is no ask,
   and the chat's first ask, which keys its conversation, is its first task.
5. **Constraint detector** (`constraint.py`): a second, sentence-level logistic model scores
   each sentence of the latest user message (at most 40) for "this constrains the form of
   the response"; the request's score is the maximum, fed to the model as `c:constraint`
   and `c:constraint_hi`. It learns from 2,413 sentences written for it
   (`classifier/data/sentences/`) and 2,000 sentences of non-instruction training rows, so
   one constraint sentence can make a long story or question instruction. When a sentence
   names a literary form (acrostic, haiku, 藏头诗...), the same score goes out as
   `c:form_constraint(_hi)`: a named form's rules are the form's, and the model weighs them
   apart from arbitrary constraints. When the strongest sentence only says how to present a
   final answer ("Reply with the letter only", `\\boxed{}`), a second sentence model, the
   answer head (353 sentences of its own), sends the score out as `c:answer_constraint(_hi)`:
   such a question stays reasoning or math. `explain()` names the sentence and its kind.
6. **Explanations** (`explain()`, the `classifier` section of `POST /v1/router/explain`
   and of `smf-router classify --json`, `smf-router classifier show`): `intent`,
   `confidence` and `source` are what `classify`
   decides, `rule` the rule that decided it (or null; under source `default`, why, when the
   user only greeted), `side_request` whether the request is an app's side request (a
   title call, a background task), which pins nothing. `top_intents`, `model_intent` and
   `features` are the model's reading: under source `rule` what the model alone would have
   said, which did not decide; under source `default` (nothing the model could read, or a
   body that could not be read) empty, with `model_intent` `unknown`. `read` says how much
   of the request was read, and whether a message was cut to its head and tail
   (`latest_cut`, `first_cut`). Each feature's `weight` is its share of the logit margin between
   the model's first and second intent (`top_intents[0]` and `[1]`): value × (weight toward
   the first − weight toward the second), largest first; `bias` is the intents' base rates
   and `prior:tools` the doubled tool_calling odds of item 2 (log 2 toward tool_calling).
   All the terms, not only the eight strongest listed, sum to log(p first / p second), so
   the list shows what told the two apart most.

"""

# Item 3 goes on with the agent frameworks' texts it leaves out (`classifier.report_frameworks`).
HOW = _BEFORE_FRAMEWORKS + FRAMEWORKS_NOTE + _AFTER_FRAMEWORKS
