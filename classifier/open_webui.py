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

So the chat's ask inside is read (`task_ask`), as crush's title call's is
(`classifier.crush`): of a task over the history, the latest "USER:" turn in it; of an
autocompletion, the user's text being typed; of an emoji, the text it reacts to. Only the
default templates are known (this version's and 0.5-0.6's wordings), and only as the
request's one user message, after system messages alone, its structure whole: a user who
types "### Task:" in a chat, or sends a template with words of their own after it, is
asking those words. Open WebUI is no coding agent (`classifier.rules.agent_session`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from classifier.message import one_text

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
# How far back from the history's end the latest user turn is looked for: past it (a long
# reply after it), the history is read whole, clipped as any ask (`classifier.clip`)
TURN_WITHIN = 65536
_USER = "USER: "
_NEXT_ROLE = re.compile(r"\n(?:ASSISTANT|SYSTEM|TOOL|DEVELOPER): ")


def task_ask(message: object, messages: Sequence[Any]) -> object:
    """The chat's ask inside Open WebUI's task text when `message` is a task request's
    (the last message, after system messages alone, one text in one of its templates);
    else the content as sent (the very object)."""
    sent = message.get("content") if isinstance(message, dict) else None
    if not messages or messages[-1] is not message or not _alone(messages):
        return sent
    text = one_text(message)
    if text is None:
        return sent
    if text.startswith(EMOJI_OPENING):
        return _emoji_text(text, sent)
    if not text.startswith(TASK):
        return sent
    if text.startswith(AUTOCOMPLETE_SENTENCE, len(TASK)):
        return _typed_text(text, sent)
    if not any(text.startswith(sentence, len(TASK)) for sentence in TASK_SENTENCES):
        return sent
    start = text.find(HISTORY_OPENING, 0, OPENING_WITHIN)
    end = text.rfind(HISTORY_END, max(0, len(text) - END_WITHIN))
    rest = text[end + len(HISTORY_END) :]
    if start < 0 or end < start or rest.strip():
        return sent
    return latest_turn(text[start + len(HISTORY_OPENING) : end]) or sent


def _alone(messages: Sequence[Any]) -> bool:
    """Whether every message before the last is a system message: Open WebUI sends a task
    as one user message (a workspace model's system prompt may come first)."""
    return len(messages) <= 3 and all(
        isinstance(m, dict) and m.get("role") in ("system", "developer") for m in messages[:-1]
    )


def _emoji_text(text: str, sent: object) -> object:
    """The text the emoji task reacts to, between its "```" marks; `sent` if it does not
    end with them."""
    if len(text) < len(EMOJI_OPENING) + len(EMOJI_END) or not text.endswith(EMOJI_END):
        return sent
    return text[len(EMOJI_OPENING) : -len(EMOJI_END)] or sent


def _typed_text(text: str, sent: object) -> object:
    """The text being typed in an autocompletion task, between the history's end, its
    `<type>` and "</text>  \\n#### Output:"; `sent` if its structure is not whole."""
    tail = max(0, len(text) - END_WITHIN)
    closing = _AUTOCOMPLETE_END.search(text, tail)
    if closing is None or text.find(CONTEXT_OPENING, 0, OPENING_WITHIN) < 0:
        return sent
    end = text.rfind(HISTORY_END, 0, closing.start())
    typed = _TYPE.match(text, end + len(HISTORY_END)) if end >= 0 else None
    if typed is None:
        return sent
    return text[typed.end() : closing.start()] or sent


def latest_turn(history: str) -> str:
    """The latest user turn of a history of "ROLE: content" lines (Open WebUI's
    `get_messages_content`), up to the next role's line; the history as it is when no user
    turn opens a line within `TURN_WITHIN` of its end ("" for none at all)."""
    found = history.rfind("\n" + _USER, max(0, len(history) - TURN_WITHIN))
    if found >= 0:
        start = found + 1
    elif history.startswith(_USER) and len(history) <= TURN_WITHIN:
        start = 0
    else:
        return history if not history.isspace() else ""
    turn_end = _NEXT_ROLE.search(history, start, start + TURN_WITHIN)
    return history[start + len(_USER) : turn_end.start() if turn_end else len(history)]
