"""LangChain's summarization request, and the summary Deep Agents opens a compacted turn with.

LangChain v1's `SummarizationMiddleware` (langchain 1.5.2,
`langchain/agents/middleware/summarization.py`; any `create_agent` given it, and Deep Agents
0.7.6's own, `deepagents/middleware/summarization.py`) compacts a thread whose context grows
too long in a request of its own: one user message and nothing else, no system message, its
`DEFAULT_SUMMARY_PROMPT` (`SUMMARY_PROMPT`, Deep Agents' note on media references
`MEDIA_NOTE` spliced in before its end), then the thread's messages as
`get_buffer_string(format="xml")` writes them, `<message type="human">...</message>` and
the like, their text XML-escaped, between `MESSAGES_OPENING` and `MESSAGES_END`. The
thread starts some 3,300 characters in: read whole, the template decided (instruction
0.56-0.78, "You should structure your summary using the following sections"), and the
conversation key, which reads the first 2,048 characters (`router.conversation.KEY_CHARS`),
was the same for every thread's summary: a coding session's and a haiku session's shared one
pin and one ledger conversation (found in a live review). So it is read as the thread it
summarises, as pi's is (`classifier.pi`): its first human message as the first ask, its
latest as the latest (`summarized_asks`), a summary of an earlier compaction's among them
passed over. Bounded: the first is looked for in the thread's first `ENTRY_WITHIN`
characters, the latest in its last; with no human message of a user's, the thread is read
whole, clipped as any ask.

After a compaction, Deep Agents' turns open with a user message of its own
(`COMPACTED_OPENING`, the path of the file the thread's history went to, then the summary),
in place of the thread's first ask. The summary is a model's text, new at each compaction;
the path (deepagents 0.7.6: `/conversation_history/session_<uuid4 hex>.md`, kept in the
thread's state across compactions; earlier releases: `/conversation_history/{thread_id}.md`,
the LangGraph thread id, often "1") is the thread's. The conversation key reads the path
(`history_path`) and the system prompt (`router.conversation`), not the summary: a
compacted thread keys alike from its first compaction on, and so do its later summarization
requests, whose thread opens with that message, when its system prompt is empty (they send
none). Read by the summary, it took another key at each compaction, its pin lost (a prose
session pinned to the cloud went local mid-task).
Its key before the first compaction, its first ask's, cannot be kept: no later request holds
that ask.

Only these exact texts: the template whole around the thread, the compacted message's opening
and path whole.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any
from xml.sax.saxutils import unescape

from classifier.message import AskPair, ask_pair, one_text, per_text, role, windowed_asks

# `DEFAULT_SUMMARY_PROMPT` up to its `<messages>` marker (langchain 1.5.2)
SUMMARY_PROMPT = (
    "<role>\nContext Extraction Assistant\n</role>\n\n<primary_objective>\nYour sole objective"
    " in this task is to extract the highest quality/most relevant context from the"
    " conversation history below.\n</primary_objective>\n\n<objective_information>\nYou're"
    " nearing the total number of input tokens you can accept, so you must extract the highest"
    " quality/most relevant pieces of information from your conversation history.\nThis context"
    " will then overwrite the conversation history presented below. Because of this, ensure the"
    " context you extract is only the most important information to continue working toward"
    " your overall goal.\n</objective_information>\n\n<instructions>\nThe conversation history"
    " below will be replaced with the context you extract in this step.\nYou want to ensure"
    " that you don't repeat any actions you've already completed, so the context you extract"
    " from the conversation history should be focused on the most important information to"
    " your overall goal.\n\nYou should structure your summary using the following sections."
    " Each section acts as a checklist - you must populate it with relevant information or"
    ' explicitly state "None" if there is nothing to report for that section:\n\n## SESSION'
    " INTENT\n\nWhat is the user's primary goal or request? What overall task are you trying to"
    " accomplish? This should be concise but complete enough to understand the purpose of the"
    " entire session.\n\n## SUMMARY\n\nExtract and record all of the most important context"
    " from the conversation history. Include important choices, conclusions, or strategies"
    " determined during this conversation. Include the reasoning behind key decisions. Document"
    " any rejected options and why they were not pursued.\n\n## ARTIFACTS\n\nWhat artifacts,"
    " files, or resources were created, modified, or accessed during this conversation? For"
    " file modifications, list specific file paths and briefly describe the changes made to"
    " each. This section prevents silent loss of artifact information.\n\n## NEXT STEPS\n\nWhat"
    " specific tasks remain to be completed to achieve the session intent? What should you do"
    " next?\n\n</instructions>\n\nThe user will message you with the full message history from"
    " which you'll extract context to create a replacement. Carefully read through it all and"
    " think deeply about what information is most important to your overall goal and should be"
    " saved:\n\nWith all of this in mind, please carefully read over the entire conversation"
    " history, and extract the most important and relevant context to replace it so that you"
    " can free up space in the conversation history.\nRespond ONLY with the extracted context."
    " Do not include any additional information, or text before or after the extracted"
    " context.\n"
)
# `_MEDIA_REFERENCE_SUMMARY_PROMPT` (deepagents 0.7.6), spliced in before the marker
MEDIA_NOTE = (
    "\n<media_reference_information>\nConversation history may include XML media reference"
    ' tags, for example:\n<image url="/conversation_history/media/{hash}.png" />\nThese tags'
    " mean the original message included media that was preserved at the referenced backend"
    " path.\nTreat the tag and path as part of the conversation context. Do not infer visual"
    " details that are not available from surrounding text.\nWhen the media could be important"
    " for future context, preserve the media reference in your summary.\nThe model consuming"
    " the summary can call `read_file` on the referenced path if it needs to inspect the"
    " media.\n</media_reference_information>\n"
)
MESSAGES_OPENING = "\n<messages>\nMessages to summarize:\n"
MESSAGES_END = "\n</messages>"  # the prompt is sent `rstrip()`ped: nothing after it
# `_build_new_messages_with_path` (deepagents): the compacted thread's first message
COMPACTED_OPENING = "You are in the middle of a conversation that has been summarized.\n\n"
_PATH = re.compile(
    r"The full conversation history has been saved to (/\S{1,1024}\.md) should you need to"
    r" refer back to it for details\.\n\nA condensed summary follows:\n\n<summary>\n"
)
# `_build_new_messages` (langchain), Deep Agents' too when it could not save the history
SUMMARY_OPENING = "Here is a summary of the conversation to date:\n\n"
# How much of the thread's start and of its end is read for its human messages
ENTRY_WITHIN = 65536
# A human message's tags as `get_buffer_string(format="xml")` writes them, its text between
HUMAN_OPENING = '<message type="human">'
HUMAN_END = "</message>"


def summarized_asks(messages: Sequence[Any]) -> AskPair | None:
    """The first and the latest ask of the thread when `messages` are LangChain's
    summarization request; None for any other request."""
    read = _request_asks(messages)
    return None if read is None else ask_pair(*read)


def task_ask(message: object, messages: Sequence[Any]) -> object:
    """The thread's latest ask when `message` is LangChain's summarization request's one
    message: what the ledger keeps as the prompt; else the content as sent (the very
    object)."""
    sent = message.get("content") if isinstance(message, dict) else None
    if len(messages) != 1 or messages[0] is not message:
        return sent
    read = _request_asks(messages)
    return read[1] if read is not None else sent


def history_path(messages: Sequence[Any]) -> str | None:
    """The path of the thread's history file that Deep Agents' compacted message names, when
    it opens the thread of `messages` (the first user message, after the system prompt), or
    the thread a summarization request of `messages` summarises (its first human message);
    None for any other request."""
    thread = _thread(messages)
    if thread is not None:
        first = next(human_texts(thread, 0, ENTRY_WITHIN), None)
        return _named_path(unescape(first)) if first is not None else None
    for message in messages:
        if role(message) == "user":
            text = one_text(message)
            return _named_path(text) if text is not None else None
        if role(message) not in ("system", "developer"):
            return None
    return None


def _named_path(text: str) -> str | None:
    """The history file's path when `text` is Deep Agents' compacted message, its opening and
    path whole; else None."""
    if not text.startswith(COMPACTED_OPENING):
        return None
    named = _PATH.match(text, len(COMPACTED_OPENING))
    return named.group(1) if named else None


def _summary(text: str) -> bool:
    """Whether `text` is a compaction's summary message: Deep Agents' or LangChain's."""
    return text.startswith(SUMMARY_OPENING) or _named_path(text) is not None


def _request_asks(messages: Sequence[Any]) -> tuple[str, str] | None:
    """The first and the latest human message of the thread in LangChain's summarization
    request `messages`, no summary of an earlier compaction's; the thread whole when it
    holds none; None for any other request."""
    text = _request_text(messages)
    return None if text is None else _thread_asks(text)


@per_text
def _thread_asks(text: str) -> tuple[str, str] | None:
    """`_request_asks` of the summarization request's one text `text`; None when it is not
    the template whole. Read once for a request (`classifier.message.per_text`: the
    classifier, the conversation key and the ledger each ask), as pi's is."""
    thread = _inside(text)
    return None if thread is None else windowed_asks(thread, ENTRY_WITHIN, _human_entries)


def _thread(messages: Sequence[Any]) -> str | None:
    """The thread inside LangChain's template, when `messages` are its one user message and
    it is the template whole (Deep Agents' note in it or not); else None."""
    text = _request_text(messages)
    return None if text is None else _inside(text)


def _request_text(messages: Sequence[Any]) -> str | None:
    """The text of `messages` when they are one user message of one text; else None."""
    if len(messages) != 1 or role(messages[0]) != "user":
        return None
    return one_text(messages[0])


def _inside(text: str) -> str | None:
    """The thread inside LangChain's template when `text` is the template whole (Deep
    Agents' note in it or not); else None."""
    if not text.startswith(SUMMARY_PROMPT) or not text.endswith(MESSAGES_END):
        return None
    at = len(SUMMARY_PROMPT)
    if text.startswith(MEDIA_NOTE, at):
        at += len(MEDIA_NOTE)
    if not text.startswith(MESSAGES_OPENING, at):
        return None
    start = at + len(MESSAGES_OPENING)
    end = len(text) - len(MESSAGES_END)
    return text[start:end] if end >= start else None


def _human_entries(thread: str, start: int, end: int) -> tuple[str, str] | None:
    """The first and the last human message of `thread[start:end]` that is no summary
    (`_summary`) nor white space alone, unescaped; None when no such message is there."""
    first: str | None = None
    last = ""
    for entry in human_texts(thread, start, end):
        text = unescape(entry)
        if text.strip() and not _summary(text):
            first = text if first is None else first
            last = text
    return (first, last) if first is not None else None


def human_texts(thread: str, start: int, end: int) -> Iterator[str]:
    """The texts, as sent, of the human messages wholly in `thread[start:end]`: each
    `HUMAN_OPENING` to the first `HUMAN_END` after it, the next looked for after that end.

    The regex `<message type="human">(.*?)</message>` finds the same, but an opening with no
    end after it is tried to the window's end, and so is each one after it: a message of
    nothing but openings took seconds, the event loop held (found in a review). Here the
    first such opening ends the scan, since no later one has an end after it either."""
    at = thread.find(HUMAN_OPENING, start, end)
    while at >= 0:
        opened = at + len(HUMAN_OPENING)
        closed = thread.find(HUMAN_END, opened, end)
        if closed < 0:
            return
        yield thread[opened:closed]
        at = thread.find(HUMAN_OPENING, closed + len(HUMAN_END), end)
