"""Open WebUI's background tasks: the chat's own ask inside its task templates.

Beside each chat turn, Open WebUI (0.12.4; `backend/open_webui/config.py`
`DEFAULT_*_PROMPT_TEMPLATE`, filled by `utils/task.py`) asks its task model for a title, tags,
follow-ups, search or retrieval queries, an image prompt, an autocompletion or an emoji, each
in a request of its own: one user message, a fixed template around the recent chat
("### Task:\\n" and its task's sentence, its guidelines, then "<chat_history>\\n", the
messages as "USER: ..." and "ASSISTANT: ..." lines, "\\n</chat_history>"). Read whole, the
template decided: titles were instruction for every chat (its "Your entire response must
consist solely of the JSON object" read as the answer's form), follow-ups of prose chats
prose and on the cloud, query generation coding for a math chat, and the emoji of a coding
reply reasoning, the code sent to the cloud: 50 of 105 rows of a live review were
instruction no user asked for.

So the chat's asks inside are read (`task_asks`), as crush's title call's is
(`classifier.crush`): of a task over the history, its first "USER:" turn as the first ask and
its latest as the latest (`history_asks`), as the chat's own turn is read: read by its latest
turn alone, a coding chat's "Why does it need the replace call?" made its follow-ups
reasoning, the code sent to the cloud (found in review); of an autocompletion, the user's
text being typed; of an emoji, the text it reacts to. The history is read turn by turn from
its start, as Open WebUI writes it: a "USER: " line after an assistant's turn, an
"ASSISTANT: " line after a user's, neither inside a fenced code block, and a title's or
tags' history as one exchange. Read by its last "USER:" line, a reply showing a transcript
("USER: What is the integral...") made a coding chat's tasks math, and a few-shot prompt's
line was recorded as the user's words (found in review). Still ambiguous: a follow-ups,
queries or image task's history whose reply shows "USER: " lines outside a code block. Only the
default templates are known (this version's and 0.5-0.6's wordings), and only as the
request's one user message, after system messages alone, its structure whole: a user who
types "### Task:" in a chat, or sends a template with words of their own after it, is
asking those words. Open WebUI is no coding agent (`classifier.rules.agent_session`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from classifier.message import AskPair, ask_pair, one_text, per_text

TASK = "### Task:\n"
# Each task's sentence after `TASK`, as far as it is fixed: 0.12.4's, then 0.5-0.6's
TASK_SENTENCES = (
    "Generate a concise title summarizing the chat history.\n",
    "Generate a concise, 3-5 word title with an emoji summarizing the chat history.\n",
    "Generate 1-3 broad tags categorizing the main themes of the chat history, along with 1-3"
    " more specific subtopic tags.\n",
    "Predict 3-5 useful messages this user might naturally send next to advance their"
    " current objective.\n",
    "Suggest 3-5 relevant follow-up questions or prompts that the user might naturally ask"
    " next in this conversation as a **user**, based on the chat history, to help continue or"
    " deepen the discussion.\n",
    "Analyze the chat history to determine the necessity of generating search queries, in"
    " the given language.",
    "Generate a detailed prompt for am image generation task based on the given language and"
    " context.",
)
AUTOCOMPLETE_SENTENCE = (
    "You are an autocompletion system. Continue the text in `<text>` based on the"
    " **completion type** in `<type>` and the given language."
)
HISTORY_OPENING = "\n### Chat History:\n<chat_history>\n"
CONTEXT_OPENING = "\n### Context:\n<chat_history>\n"  # the autocompletion's
HISTORY_END = "\n</chat_history>"
# How far into the text the history opens: the longest template before it is ~2,300
# characters (the follow-ups'); a guideline edited longer is a template of one's own
OPENING_WITHIN = 4096
# The autocompletion's text: after the history, "<type>General</type>  \n<text>", the text
# being typed, "</text>  \n#### Output:\n"
_TYPE = re.compile(r"\n<type>[A-Za-z ]{0,32}</type>[ \t]*\n<text>")
_AUTOCOMPLETE_END = re.compile(r"</text>[ \t]*\n#### Output:\s*\Z")
END_WITHIN = 64  # how far from the end a task's closing words are looked for
EMOJI_OPENING = (
    "Your task is to reflect the speaker's likely facial expression through a fitting emoji."
    " Interpret emotions from the message and reflect their facial expression using fitting,"
    " diverse emojis (e.g., 😊, 😢, 😡, 😱).\n\nMessage: ```"
)
EMOJI_END = "```"
# How much of the history's start and of its end is read for its turns (`history_asks`)
TURN_WITHIN = 65536
_USER, _ASSISTANT = "USER", "ASSISTANT"
_NEXT = {_USER: f"\n{_ASSISTANT}: ", _ASSISTANT: f"\n{_USER}: "}  # the marker after a turn
_OPENING = re.compile(r"(?:^|\n)(USER|ASSISTANT): ")
_FENCE = "```"
# Titles and tags are asked for on a chat's first exchange alone (0.12.4's chat page sends
# `title_generation` and `tags_generation` when the chat's messages are two, and a title's
# template holds two at most, `{{MESSAGES:END:2}}`): their history is a user's turn and an
# assistant's, the reply whole to the end, however many "USER: " lines it shows
FIRST_TURNS = 2


def task_ask(message: object, messages: Sequence[Any]) -> object:
    """The chat's latest ask inside Open WebUI's task text when `message` is a task request's
    (the last message, after system messages alone, one text in one of its templates): what
    the ledger keeps as the prompt; else the content as sent (the very object)."""
    sent = message.get("content") if isinstance(message, dict) else None
    read = _task_text(message, messages)
    return read[1] if read is not None else sent


def task_asks(messages: Sequence[Any]) -> AskPair | None:
    """The chat's first and latest ask when `messages` are a task request (`task_ask`), as
    user messages; None for any other request."""
    message = messages[-1] if messages else None
    if not isinstance(message, dict) or message.get("role") != "user":
        return None
    read = _task_text(message, messages)
    return None if read is None else ask_pair(*read)


def _task_text(message: object, messages: Sequence[Any]) -> tuple[str, str] | None:
    """`_read_task` of `message`'s text when it is the last of `messages`, after system
    messages alone; else None."""
    if not messages or messages[-1] is not message or not _alone(messages):
        return None
    text = one_text(message)
    return _read_task(text) if text is not None else None


@per_text
def _read_task(text: str) -> tuple[str, str] | None:
    """The first and the latest ask in a task text of a known template; None for any other
    text. Read once for a request (`classifier.message.per_text`: the classifier, the
    conversation key and the ledger each ask)."""
    if text.startswith(EMOJI_OPENING):
        return _both(_emoji_text(text))
    if not text.startswith(TASK):
        return None
    if text.startswith(AUTOCOMPLETE_SENTENCE, len(TASK)):
        return _both(_typed_text(text))
    if not any(text.startswith(sentence, len(TASK)) for sentence in TASK_SENTENCES):
        return None
    start = text.find(HISTORY_OPENING, 0, OPENING_WITHIN)
    end = text.rfind(HISTORY_END, max(0, len(text) - END_WITHIN))
    if start < 0 or end < start or text[end + len(HISTORY_END) :].strip():
        return None
    turns = FIRST_TURNS if text.startswith(TASK_SENTENCES[:3], len(TASK)) else None
    first, latest = history_asks(text[start + len(HISTORY_OPENING) : end], turns)
    return (first, latest) if latest else None


def _both(ask: str | None) -> tuple[str, str] | None:
    """One ask as the first and the latest; None for none."""
    return (ask, ask) if ask else None


def _alone(messages: Sequence[Any]) -> bool:
    """Whether every message before the last is a system message: Open WebUI sends a task
    as one user message (a workspace model's system prompt may come first)."""
    return len(messages) <= 3 and all(
        isinstance(m, dict) and m.get("role") in ("system", "developer") for m in messages[:-1]
    )


def _emoji_text(text: str) -> str | None:
    """The text the emoji task reacts to, between its "```" marks; None if it does not
    end with them."""
    if len(text) < len(EMOJI_OPENING) + len(EMOJI_END) or not text.endswith(EMOJI_END):
        return None
    return text[len(EMOJI_OPENING) : -len(EMOJI_END)]


def _typed_text(text: str) -> str | None:
    """The text being typed in an autocompletion task, between the history's end, its
    `<type>` and "</text>  \\n#### Output:"; None if its structure is not whole."""
    tail = max(0, len(text) - END_WITHIN)
    closing = _AUTOCOMPLETE_END.search(text, tail)
    if closing is None or text.find(CONTEXT_OPENING, 0, OPENING_WITHIN) < 0:
        return None
    end = text.rfind(HISTORY_END, 0, closing.start())
    typed = _TYPE.match(text, end + len(HISTORY_END)) if end >= 0 else None
    if typed is None:
        return None
    return text[typed.end() : closing.start()]


def history_asks(history: str, turns: int | None = None) -> tuple[str, str]:
    """The first and the latest user turn of a history of "ROLE: content" lines (Open
    WebUI's `get_messages_content`), read turn by turn (`_user_turns`). Bounded: of a
    history longer than `TURN_WITHIN`, the first ask is read in its first `TURN_WITHIN`
    characters and the latest in its last, from the first turn's line there (which may be a
    line of a reply's that looks like one: where a turn starts is not known there); with no
    user turn there (a reply longer than that after the latest), the head's last user turn
    is the latest. With no user turn at all, the history is read whole as both (clipped as
    any ask, `classifier.clip`), "" for white space alone. `turns`: how many messages the
    history holds at most (a title's or tags' two), the last running to its end."""
    if len(history) <= TURN_WITHIN:
        head = tail = _user_turns(history, 0, len(history), turns)
    else:
        head = _user_turns(history, 0, TURN_WITHIN, turns)
        tail = head if turns else None
        tail = tail or _user_turns(history, len(history) - TURN_WITHIN, len(history)) or head
    if tail is None:
        whole = "" if history.isspace() else history
        return whole, whole
    return (head or tail)[0], tail[1]


def _user_turns(
    history: str, start: int, end: int, turns: int | None = None
) -> tuple[str, str] | None:
    """The first and the last user turn of `history[start:end]`, read in order from its
    first turn's line: a turn runs to the next role's line, "ASSISTANT: " after a user's
    turn and "USER: " after an assistant's (as Open WebUI writes them, alternating), and a
    line inside a fenced code block (after an odd number of "```" in the turn) is the
    turn's own; a turn cut by `end` runs to it, and the `turns`th to `end`. None when no
    user turn is there."""
    opening = _OPENING.search(history, max(0, start - 1), end)
    if opening is None:
        return None
    role, turn = opening.group(1), opening.end()
    first: str | None = None
    last = ""
    left = turns or end  # bounded: each turn starts past the last one, within `end`
    while True:
        marker = _NEXT[role]
        left -= 1
        cut, counted, fences = (history.find(marker, turn, end) if left else -1), turn, 0
        while cut >= 0:
            fences += history.count(_FENCE, counted, cut)
            if fences % 2 == 0:
                break
            counted = cut
            cut = history.find(marker, cut + 1, end)
        if role == _USER:
            last = history[turn : cut if cut >= 0 else end]
            first = last if first is None else first
        if cut < 0:
            return (first, last) if first is not None else None
        role, turn = (_ASSISTANT if role == _USER else _USER), cut + len(marker)
