"""Aider's own messages: the example conversation and the fixed pairs it sends before a
session's history on every request, none of them an ask of the user's.

Aider (`format_chat_chunks` in its `aider/coders/base_coder.py`) sends, after its system
prompt, its edit format's example conversation (`example_messages`: "Change the greeting to
be more casual" for `whole`, "Change get_factorial() to use math.factorial" for `diff`...),
ended by "I switched to a new code base. Please don't consider the above files or try to
edit them any longer." and "Ok."; then pairs of a user message and a reply of its own: the
repository map (`repo_content_prefix`, "Ok, I won't try and edit those files without asking
first."), the read-only files (`read_only_files_prefix`), the files added to the chat
(`files_content_prefix`) or a note that none are (`files_no_full_files`), and images of
either (captioned "Image file: <path>"); then the session's history and the current message.
The pairs come in an order that differs by version (`ChatChunks.all_messages`). Read as the
first user message, the examples gave every Aider session of one edit format one sticky
conversation key, so that one session's cloud turn pinned all of them to the cloud, and the
repository map was the first ask of every session in `/ask` mode (found in review).

Told by Aider's exact wordings (base_prompts.py and the prompts of its ask, architect,
context and help modes): the examples by their closing message, among the first
`EXAMPLES_WITHIN` messages; a pair by its user message's start, or the whole of a note, with
an assistant message after it (the pair's reply). A user's message never has Aider's reply
after it, so the latest ask is never one of these.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import islice
from typing import Any

EXAMPLES_END = (
    "I switched to a new code base. Please don't consider the above files or try to edit them"
    " any longer."
)
# The examples end this early: a system prompt sent as a user message and its "Ok." (models
# without a system role), then at most a few example pairs
EXAMPLES_WITHIN = 16
# How the user message of each of Aider's pairs starts
PAIR_OPENINGS = (
    # the repository map: the editing modes', then the ask, architect and context modes',
    # then the help mode's
    "Here are summaries of some files present in my git repository.\n",
    "I am working with you on code in a git repository.\n"
    "Here are summaries of some files present in my git repo.\n",
    # the read-only files
    "Here are some READ ONLY files, provided for your reference.\n",
    # the files added to the chat: the editing modes' ("so you can go ahead and edit them"),
    # the ask and architect modes' ("so you see all of their contents"), the context mode's
    # and the help mode's
    "I have *added these files to the chat* so you ",
    "These files have been *added these files to the chat* so we can see all of their",
    "These are some files we have been discussing that we may want to edit after you answer",
    # none added, with a repository map
    "Don't try and edit any existing code without asking me to add the files to the chat!\n",
)
# The notes that none are added, each a pair's whole user message (editing, ask, help modes)
PAIR_NOTES = frozenset(
    {
        "I am not sharing any files that you can edit yet.",
        "I am not sharing the full contents of any files with you yet.",
        "I am not sharing any files with you.",
    }
)
# The caption of each image or PDF in a pair of images (`get_images_message`)
IMAGE_CAPTIONS = ("Image file: ", "PDF file: ")
_NOTE_CHARS = max(map(len, PAIR_NOTES))  # a longer text is none: not hashed to find out
_PARTS = 64  # the parts of a message of images looked at, at most


def examples_end(messages: Sequence[Any]) -> int:
    """The index past Aider's example conversation (past its "Ok." after `EXAMPLES_END`),
    looked for among the first `EXAMPLES_WITHIN` messages; 0 when there is none."""
    for index, message in enumerate(islice(messages, EXAMPLES_WITHIN)):
        if _role(message) == "user" and _text(message) == EXAMPLES_END:
            after = index + 1
            return after + 1 if _role(_at(messages, after)) == "assistant" else after
    return 0


def is_pair(messages: Sequence[Any], index: int) -> bool:
    """Whether the user message `messages[index]` is the first of one of Aider's fixed
    pairs: it starts with one of `PAIR_OPENINGS`, is one of `PAIR_NOTES` or captions only
    images (`IMAGE_CAPTIONS`), and an assistant message follows it."""
    if _role(_at(messages, index + 1)) != "assistant":
        return False
    text = _text(messages[index])
    if isinstance(text, str) and text:
        return text.startswith(PAIR_OPENINGS) or (len(text) <= _NOTE_CHARS and text in PAIR_NOTES)
    content = messages[index].get("content") if isinstance(messages[index], dict) else None
    if not isinstance(content, list):
        return False
    captions = [text for part in islice(content, _PARTS) if (text := _part_text(part))]
    return bool(captions) and all(caption.startswith(IMAGE_CAPTIONS) for caption in captions)


def _at(messages: Sequence[Any], index: int) -> object:
    return messages[index] if index < len(messages) else None


def _role(message: object) -> object:
    return message.get("role") if isinstance(message, dict) else None


def _text(message: object) -> object:
    """A message's string content, or its one part's text (a message Aider marks for
    Anthropic's prompt cache becomes one text part)."""
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list) and len(content) == 1:
        return _part_text(content[0])
    return content


def _part_text(part: object) -> str:
    text = part.get("text") if isinstance(part, dict) and part.get("type") == "text" else None
    return text if isinstance(text, str) else ""
