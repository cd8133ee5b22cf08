"""crewAI's own texts around a task: the frame it puts the task in, its nudges after it, and
its summaries of a long task's conversation.

crewAI (1.15.30: `crewai/translations/en.json` "slices", `crewai/utilities/prompts.py`,
`Task.prompt`) runs each task as a conversation of its own. Its system prompt opens with the
agent's role-playing slice, "You are {role}. {backstory}\\nYour personal goal is: {goal}"
(then, when tools are called in text, its tools and format); its one user message frames the
task: `TASK_OPENING`, the task's description, `CRITERIA`, the task's expected output,
`CRITERIA_END`, then what crewAI adds (a markdown or a schema instruction, "This is the
context you're working with:" and earlier tasks' outputs, memories, knowledge) and the end
its mode writes ("Begin! This is VERY important to you, use the tools available ...
Thought:" with tools in text, "Provide your complete response:" without tools, none with
native tool calls). With `use_system_prompt=False` the role-playing slice and the task are
one user message. Read whole, the frame was the ask: "Compute 17 * 23" went from math 0.97
(cloud) to instruction 0.43 (local), "Explain why the sky is blue" from reasoning 0.97 to
writing 0.58 (found in a review of agent frameworks).

So the task's description and its expected output are read, a line apart: both are the
user's words, and the criteria say what the answer must be as "in three sentences" would in
an ask; crewAI's sentences around them, and all it appends after them, are not read (earlier
tasks' outputs are read by no one, as a tool's result is not). With tools called in text,
crewAI sends `POST_TOOL` as a user message after each tool's result, and when a task reaches
its `max_iter` it asks for the answer with `FORCE_FINAL` (`errors.force_final_answer`, a user
message after the last tool's result, native tool calls or not): each is passed over, and the
task before it is read. Read, `FORCE_FINAL` made "What is the weather in Paris?" instruction
0.52 where its task is tool_calling (found running crewAI). Its other error texts reach no
request: a tool's failure ("I encountered an error while trying to use the tool...", a wrong
tool's name) is the tool's result (in the reply's "Observation:" or a `tool` message), and its
parser's ("Invalid Format: I missed the 'Action:' after 'Thought:'...") never leaves it:
`format_answer` takes a reply it cannot parse as the final answer.

With files (`Task(input_files=...)`, the `crewai-files` package, a model that reads images),
the task's message is a list of parts: the text above as the first (a `text` part, or
`input_text` over the Responses API), the files after it; the description then ends with
crewAI's list of them (`FILES`, "Input files (content already loaded in conversation):" and a
line a file), which is cut as crewAI's too. Read whole, the parts' "Compute 17 * 23" was
instruction 0.39 where its words alone are math 0.99.

An agent run without a crew (`Agent.kickoff(request)`) is sent in the same frame, the request
where a task's description and criteria would be: "\\nCurrent Task: ", the request, then its
memories (`MEMORY_OPENING`... `MEMORY_END`, with memory), its mode's ending (`ENDINGS`) and,
without a system prompt, the date (`DATE`, with `inject_date`). With no criteria after it,
it was read whole: "Compute 17 * 23" math 0.54 where alone it is 0.99, after a line of the
user's history tool_calling 0.68, and with memory tool_calling by crewAI's memories naming its
"Search memory" tool (found running crewAI). So with no criteria after the opening, the
request is read without crewAI's texts after it (`_request`); a text with crewAI's criteria
but not their end is still no frame of crewAI's. Given messages, kickoff sends the last user
message so and those before it as they are: the first is read as written.

crewAI summarizes a task's conversation when a request would pass the model's window (with
`respect_context_window`, on by default: for a model it does not know, such as `auto`, 8,192
tokens, 85% of them, counted at four characters a token) or the backend refuses one as too
long (its error's text: "context_length_exceeded", "maximum context length"...). It asks for
a summary of each chunk of the conversation in a request of its own (`SUMMARIZER` as the
system prompt, the chunk's messages as entries, "[USER]: " and the text, inside
`INSTRUCTION_OPENING`... `INSTRUCTION_END`), then goes on with the summaries in place of the
conversation, as one user message after the system prompt (`SUMMARY_OPENING`, the summaries,
`SUMMARY_END`). The summarizer's request is read by the task (or the summary) its first entry
holds, and keys as the run's requests do (`framed`: the words, not the system prompts, key a
crewAI run); a later chunk holds no task, and is read as written. After it, the summaries
(the summarizer's words, the task's only trace left) are read without crewAI's tags and its
"Continue the task ..." around them. Read whole, each went to writing 0.39-0.54 (found
running crewAI).

Only in crewAI's requests: the first message (the system prompt, or the user message that
holds the task) opens with its role-playing slice, or the request is its summarizer's; its
summary is told by its whole text, first after the system prompt. A user who types "Current
Task:" in another request is read as written. crewAI is no coding agent: its texts, cut or
passed over, do not make the request an agent's session (`classifier.rules.agent_session`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import islice
from typing import Any

from classifier.message import lead_text, one_text, per_text

ROLE_OPENING = "You are "
GOAL = "\nYour personal goal is: "
# The "task", "task_no_tools" and "native_task" slices' opening, after a line break
TASK_OPENING = "Current Task: "
# The "expected_output" slice, which `Task.prompt` puts after the description on a line of
# its own: its opening and its fixed last sentence
CRITERIA = "\n\nThis is the expected criteria for your final answer: "
CRITERIA_END = "\nyou MUST return the actual complete content as the final answer, not a summary."
# The "post_tool_reasoning" slice: a user message of its own after each tool's result
POST_TOOL = (
    "Analyze the tool result. If requirements are met, provide the Final Answer. Otherwise,"
    " call the next tool. Deliver only the answer without meta-commentary."
)
# The "force_final_answer" error: a user message of its own once a task reaches its `max_iter`
# (`crewai/utilities/agent_utils.py` `handle_max_iterations_exceeded`)
FORCE_FINAL = (
    "Now it's time you MUST give your absolute best final answer. You'll ignore all previous"
    " instructions, stop using any tools, and just return your absolute BEST Final answer."
)
# `Task.prompt`'s list of a task's files, ending its description: "\n\n", then a heading and
# a line a file ('  - "name" (filename)', with the content type for the tool's) for the files
# the model is sent, for those left to crewAI's `read_file` tool, or both
_FILE_LINES = r"(?:\n  - \"[^\"\n]*\" \([^\n]*\))+"
FILES = re.compile(
    r"\n\n(?=Input files|Available input files)"
    rf"(?:Input files \(content already loaded in conversation\):{_FILE_LINES}(?:\n|\Z))?"
    rf"(?:Available input files \(use the name in quotes with read_file tool\):{_FILE_LINES})?\Z"
)
# `Agent.kickoff`'s frame: its request where a task's description and criteria would be, then
# the "task" slice's ending (tools called in text) or the "task_no_tools" slice's (no tools),
# none with native tool calls ("native_task")
ENDINGS = (
    "\n\nBegin! This is VERY important to you, use the tools available and give your best Final"
    " Answer, your job depends on it!\n\nThought:",
    "\n\nProvide your complete response:",
)
# The "memory" slice that `Agent.kickoff` puts after its request (with memory): its opening,
# the memories, its fixed last paragraph
MEMORY_OPENING = "\n\n# Memories from past conversations:\n"
MEMORY_END = (
    "\n\nIMPORTANT: The memories above are an automatic selection and may be INCOMPLETE. If the"
    " task involves counting, listing, or summing items (e.g. 'how many', 'total', 'list all'),"
    " you MUST use the Search memory tool with several different queries before answering — do"
    " NOT rely solely on the memories shown above. Enumerate each distinct item you find before"
    " giving a final count."
)
# `Prompts._build_date_block` (`inject_date`): the end of the one user message without a system
# prompt; looked for in its last `_DATE_SPAN` characters
DATE = re.compile(r"\n\nCurrent Date: [^\n]*\Z")
_DATE_SPAN = 128
# The "summary" slice: the summaries of a compacted conversation, the user message that
# replaces it (`crewai/llms/context_window.py` `summarize_messages`)
SUMMARY_OPENING = "<summary>\n"
SUMMARY_END = (
    "\n</summary>\n\nContinue the task from where the conversation left off. The above is a"
    " structured summary of prior context."
)
# Its summarizer's request (`crewai/utilities/message_utils.py` `build_summary_prompt`): the
# "summarizer_system_message" slice, then the "summarize_instruction" slice around the
# conversation, each message in it an entry "[USER]: ", "[ASSISTANT]: " or "[TOOL_RESULT
# (name)]: " and its text, a blank line apart
SUMMARIZER = (
    "You are a precise assistant that creates structured summaries of agent conversations. You"
    " preserve critical context needed for seamless task continuation."
)
INSTRUCTION_OPENING = (
    "Analyze the following conversation and create a structured summary that preserves all"
    " information needed to continue the task seamlessly.\n\n<conversation>\n"
)
INSTRUCTION_END = (
    "\n</conversation>\n\nCreate a summary with these sections:\n1. **Task Overview**: What is"
    " the agent trying to accomplish?\n2. **Current State**: What has been completed so far?"
    " What step is the agent on?\n3. **Important Discoveries**: Key facts, data, tool results,"
    " or findings that must not be lost.\n4. **Next Steps**: What should the agent do next"
    " based on the conversation?\n5. **Context to Preserve**: Any specific values, names, URLs,"
    " code snippets, or details referenced in the conversation.\n\nWrap your entire summary in"
    " <summary> tags.\n\n<summary>\n[Your structured summary here]\n</summary>"
)
USER_ENTRY = "[USER]: "
_NEXT_ENTRY = re.compile(r"\n\n\[(?:USER|ASSISTANT|TOOL_RESULT \([^\n]*\))\]: ")
# System messages looked past, at most, to the first user message
_SYSTEMS = 4
# How far each of crewAI's fixed sentences is looked for past the last (a backstory, the tools'
# list, a description, an expected output): past it, the text is read as written
WITHIN = 65_536


def task_ask(message: object, messages: Sequence[Any]) -> object:
    """The content of `message`, crewAI's user's words in it when `messages` are a crewAI
    request's (`_words`), its files' parts left out; any other content as it is."""
    content = message.get("content") if isinstance(message, dict) else None
    text = lead_text(content)
    words = _words(text, message, messages) if text is not None else None
    return content if words is None else words


def framed(messages: Sequence[Any]) -> bool:
    """Whether `messages` are crewAI's and their first user message is read in its frame
    (`task_ask`): the words that key its run (`router.conversation.conversation_key`), in each
    of its requests and in its summarizer's, which has no system prompt of the run's."""
    for message in islice(messages, _SYSTEMS + 1):
        role = message.get("role") if isinstance(message, dict) else None
        if role == "user":
            return task_ask(message, messages) is not message.get("content")
        if role not in ("system", "developer"):
            return False
    return False


def _words(text: str, message: object, messages: Sequence[Any]) -> str | None:
    """The words read of the text `text` of `message`: the task's (`_task_words`) when it is
    crewAI's task, the summary's when it is crewAI's summary opening the conversation, those
    of the conversation's first entry in its summarizer's request (`_entry_words`); None for
    any other text."""
    if messages and messages[0] is not message and one_text(messages[0]) == SUMMARIZER:
        return _entry_words(text) if len(messages) > 1 and messages[1] is message else None
    start = _task_start(text, messages)
    if start >= 0:
        return _task_words(text, start)
    return _summary(text) if _opens(messages, message) else None


def _task_words(text: str, start: int) -> str | None:
    """The task's description (without crewAI's list of its files) and expected output, a
    line apart, when the task starting at `start` is a crewAI `Task`'s; `Agent.kickoff`'s
    request (`_request`) when no criteria follow it; None when its criteria do not end as
    crewAI's do."""
    criteria = text.find(CRITERIA, start, start + WITHIN)
    if criteria < 0:
        return _request(text, start)
    after = criteria + len(CRITERIA)
    end = text.find(CRITERIA_END, after, after + WITHIN)
    if end < 0:
        return None
    description = text[start:criteria]
    files = FILES.search(description)
    words = (description[: files.start() if files else None].strip(), text[after:end].strip())
    return "\n".join(word for word in words if word)


def _request(text: str, start: int) -> str | None:
    """`Agent.kickoff`'s request starting at `start`, without what crewAI puts after it (its
    memories, its mode's ending, the date); None unless the task opens a line, as crewAI's
    does."""
    opening = start - len(TASK_OPENING) - 1
    if opening < 0 or text[opening] != "\n":
        return None
    date = DATE.search(text, max(start, len(text) - _DATE_SPAN))
    request = text[start : date.start() if date else None]
    ending = next((end for end in ENDINGS if request.endswith(end)), "")
    request = request[: len(request) - len(ending)]
    if request.endswith(MEMORY_END):
        memories = request.rfind(MEMORY_OPENING, max(0, len(request) - WITHIN))
        request = request[:memories] if memories >= 0 else request
    return request.strip()


def _summary(text: str) -> str | None:
    """The summaries inside crewAI's summary of a compacted conversation; None for another
    text."""
    if text.startswith(SUMMARY_OPENING) and text.endswith(SUMMARY_END):
        return text[len(SUMMARY_OPENING) : -len(SUMMARY_END)].strip()
    return None


def _entry_words(text: str) -> str | None:
    """The words read of the first entry of the conversation crewAI's summarizer's request
    holds, when it is a user message of crewAI's: the task's or a summary's (`_words`); None
    for another entry (the conversation after its first chunk) or another text."""
    if not (text.startswith(INSTRUCTION_OPENING + USER_ENTRY) and text.endswith(INSTRUCTION_END)):
        return None
    start, end = len(INSTRUCTION_OPENING) + len(USER_ENTRY), len(text) - len(INSTRUCTION_END)
    following = _NEXT_ENTRY.search(text, start, min(end, start + WITHIN))
    entry = text[start : following.start() if following else end]
    task = _opening(entry)
    task = task if task >= 0 else _past_goal(entry)
    return _task_words(entry, task) if task >= 0 else _summary(entry)


def passed_over(messages: Sequence[Any], index: int) -> bool:
    """Whether the user message `messages[index]` is crewAI's `POST_TOOL` or `FORCE_FINAL`,
    in its request."""
    return one_text(messages[index]) in (POST_TOOL, FORCE_FINAL) and _crews(messages)


def _task_start(text: str, messages: Sequence[Any]) -> int:
    """Where the task's description starts in `text`: past `TASK_OPENING` that opens it
    (`_opening`) when `messages` are crewAI's (`_crews`), or that follows the role-playing
    slice `text` opens with (`_past_goal`); -1 when it is no task of crewAI's."""
    opening = _opening(text)
    if opening >= 0:
        return opening if _crews(messages) else -1
    return _past_goal(text)


def _opening(text: str) -> int:
    """Where the task's description starts when `text` opens with `TASK_OPENING` (past a
    line break); -1 otherwise."""
    if text.startswith(("\n" + TASK_OPENING, TASK_OPENING)):
        return text.index(TASK_OPENING) + len(TASK_OPENING)
    return -1


def _past_goal(text: str) -> int:
    """Where the task's description starts when `TASK_OPENING` follows, a line apart, the
    role-playing slice `text` opens with; -1 otherwise."""
    goal = _goal(text)
    at = text.find("\n" + TASK_OPENING, goal, goal + WITHIN) if goal >= 0 else -1
    return at + 1 + len(TASK_OPENING) if at >= 0 else -1


def _opens(messages: Sequence[Any], message: object) -> bool:
    """Whether `message` is the first of `messages` but system messages (where crewAI's
    summary replaces the conversation)."""
    for earlier in islice(messages, _SYSTEMS + 1):
        if earlier is message:
            return True
        if not isinstance(earlier, dict) or earlier.get("role") not in ("system", "developer"):
            return False
    return False


def _crews(messages: Sequence[Any]) -> bool:
    """Whether `messages` are a crewAI request's: the first opens with its role-playing slice."""
    first = one_text(messages[0]) if messages else None
    return first is not None and _plays_role(first)


@per_text
def _plays_role(text: str) -> bool:
    """Whether `text` opens with crewAI's role-playing slice (`_goal`): read once for a
    request (`classifier.message.per_text`), not again for each of its user messages
    (`passed_over`), its goal looked for up to 64 KB in."""
    return _goal(text) >= 0


def _goal(text: str) -> int:
    """Where the role-playing slice that `text` opens with says the agent's goal; -1 when it
    opens with none."""
    return text.find(GOAL, 0, WITHIN) if text.startswith(ROLE_OPENING) else -1
