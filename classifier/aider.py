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
after it, so the current message is never one of these; the latest ask is found past them
when Aider's reflections follow it (below), the files and the note of a commit between.
Passed over in Aider's requests only (`is_aiders`: its examples, or a pair it sends on
every request): a client's user whose message starts as a note of Aider's ("I committed the
changes with git hash ...", "I updated the files.") with an assistant turn after it (a
prefill, a tool call) asks in it.

Its edit format's reminder (`system_reminder` in `wholefile_prompts.py`,
`editblock_prompts.py`, `udiff_prompts.py`, `patch_prompts.py`, which its editor, fenced and
simple variants inherit) Aider appends to the current message after a blank line when the
model's `reminder` is `user`, the default for a model it does not know (`openai/auto`). Read
with it, the latest ask was read as the rules of a file format (most asks as `instruction`),
and a session's first request, its first ask carrying the reminder, was keyed apart from the
later ones, whose history holds that ask without it: the first turn's pin did not carry
(found in review). It is cut from a text it ends (`before_reminder`), told by its first two
lines, fixed for each format; what follows them varies with Aider's fences, languages and
settings, and is cut to the end, since Aider writes nothing after it. A user's message that
ends with a copy of those lines after a blank line is cut there too, a kept trade-off.

Its ask and context modes append a reminder too ("Reply in English.", "NEVER RETURN
CODE!"), which ends their system prompt as well: read with it, "Reply in English." was a
constraint of the ask's (a short story `coding`), and a session's first request was keyed
apart from its later ones (found in review). Its words are anyone's, so it is cut only when
the system prompt ends with the same (`without_mode_reminder`). And when a reply's edits
fail, Aider sends its own text as the next user message (its reflections, `reflected`),
which the classifier reads as no ask in Aider's requests (`classifier.harness`), as Cline's
nag to use a tool: "I ran this command:" is a person's way to start a question too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import islice
from typing import Any

from classifier.message import one_text, role

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
# Each a pair's whole user message: the notes that none are added (editing, ask, help modes)
PAIR_NOTES = frozenset(
    {
        "I am not sharing any files that you can edit yet.",
        "I am not sharing the full contents of any files with you yet.",
        "I am not sharing any files with you.",
    }
)
# The notes on a reply's edits, each a pair's user message in the session's history, as
# `move_back_cur_messages` pairs them with "Ok.": how the note of a commit starts
# (`files_content_gpt_edits`), and the others whole (`files_content_gpt_edits_no_repo`,
# `files_content_local_edits`, `files_content_gpt_no_edits`). Sent after an edit only, and
# in words a user may write, they tell no request to be Aider's (`is_aiders`)
EDIT_NOTE_OPENING = "I committed the changes with git hash "
EDIT_NOTES = frozenset(
    {
        "I updated the files.",
        "I edited the files myself.",
        "I didn't see any properly formatted edits in your reply?!",
    }
)
# The caption of each image or PDF in a pair of images (`get_images_message`)
IMAGE_CAPTIONS = ("Image file: ", "PDF file: ")
# The first two lines of each edit format's reminder: `whole` (and `editor-whole`), `diff`
# (and `diff-fenced`, `editor-diff`, `editor-diff-fenced`), `udiff` (and `udiff-simple`),
# `patch`
REMINDER_OPENINGS = (
    "To suggest changes to a file you MUST return the entire content of the updated file.\n"
    "You MUST use this *file listing* format:\n",
    "# *SEARCH/REPLACE block* Rules:\n\nEvery *SEARCH/REPLACE block* must use this format:\n",
    "# File editing rules:\n\nReturn edits similar to unified diffs that `diff -U0` would"
    " produce.\n",
    "# V4A Diff Format Rules:\n\nYour entire response containing the patch MUST start with"
    " `*** Begin Patch` on a line by itself.\n",
)
# How far from a text's end a reminder's opening is looked for: the longest (`patch`, with
# its notes on shell commands and renames) is some 4,000 characters
REMINDER_WITHIN = 8192
# The ask and context modes' reminders, which Aider appends to the current message as it
# does an edit format's, and also ends its system prompt with (`format_chat_chunks`:
# `main_sys += "\n" + reminder`). The ask mode's is its `final_reminders`
# (`ask_prompts.py`: `system_reminder = "{final_reminders}"`), which `fmt_system_prompt`
# (`base_coder.py`) joins with blank lines from the model's lazy and overeager prompts
# (`base_prompts.py`), each when the model's settings ask for it, and "Reply in
# <language>.\n" when Aider finds the user's language (nothing at all when none of them:
# only the blank line, white space); the context mode's is "\nNEVER RETURN CODE!\n"
# (`context_prompts.py`). The architect and help modes have none.
LAZY_PROMPT = (
    "You are diligent and tireless!\nYou NEVER leave comments describing code without"
    " implementing it!\nYou always COMPLETELY IMPLEMENT the needed code!\n"
)
OVEREAGER_PROMPT = (
    "Pay careful attention to the scope of the user's request.\nDo what they ask, but no"
    " more.\nDo not improve, comment, fix or modify unrelated parts of the code in any way!\n"
)
CONTEXT_REMINDER = "\nNEVER RETURN CODE!\n"
_LAZY, _OVEREAGER = re.escape(LAZY_PROMPT), re.escape(OVEREAGER_PROMPT)
_MODE_REMINDER = re.compile(
    rf"\n\n((?:{_LAZY}\n\n)?(?:{_OVEREAGER}\n\n)?Reply in [^\n]{{1,64}}\.\n"
    rf"|{_LAZY}(?:\n\n{_OVEREAGER})?|{_OVEREAGER}|{re.escape(CONTEXT_REMINDER)})\Z"
)
# How far from a text's end a mode's reminder is looked for: all three parts, some 400
MODE_REMINDER_WITHIN = 1024
# Aider's reflections: when a reply's edits fail, it names files the user then lets Aider
# add, or lint or tests fail after its edits, Aider sends a text of its own as the next
# user message (`reflected_message`, `run_one` in `base_coder.py`), the current message's
# reminder after it, and its history keeps them. Read as the ask, "No filename provided
# before ``` in file listing" made a session's short story `coding` (found in review). Each
# is told by its fixed start, and runs to the text's end:
_FENCE = r"(?:`{3,4}|<(?:source|code|pre|codeblock|sourcecode)>)"  # `all_fences`' openings
REFLECTION_STARTS = (
    # `diff` edits that matched nothing (`EditBlockCoder.apply_edits`)
    r"# \d{1,4} SEARCH/REPLACE blocks? failed to match!\n",
    # `udiff` hunks that did not apply (`no_match_error`, `not_unique_error`, udiff_coder.py)
    r"UnifiedDiff(?:NoMatch|NotUnique): hunk failed to apply!\n",
    # a `patch` that did not parse (`PatchCoder.get_edits`)
    r"(?:Error parsing patch content|Unexpected error parsing patch): ",
    # files the reply named, added (`check_for_file_mentions`: `added_files`, prompts.py)
    r"I added these files to the chat: [^\n]*\nLet me know if there are others we should add\.",
    # lint errors in the edited files (`Linter.lint`, linter.py)
    r"# Fix any errors below, if possible\.\n",
    # a failing test command and its output (`cmd_test`: `run_output`, prompts.py), as
    # after a `/run` whose output the user adds
    r"I ran this command:\n\n(?s:.{1,4096}?)\n\nAnd got this output:\n",
    # the context mode's, once it has added the files its reply named (`try_again`)
    r"I have updated the set of files added to the chat\.\nReview them to decide if this is",
)
# ...or is the whole text: a `whole` reply's file listing with no file name
# (`WholeFileCoder.get_edits`)...
REFLECTION_WHOLE = rf"No filename provided before {_FENCE} in file listing"
# ...or ends it: a `diff` reply that did not parse, up to where it went wrong, then the
# error (`find_original_update_blocks`: `missing_filename_err`, `DIVIDER_ERR`...)
REFLECTION_END = (
    r"\n\^\^\^ (?:Expected `=======`|Expected `>>>>>>> REPLACE` or `=======`|Bad/missing"
    rf" filename\. The filename must be alone on the line before the opening fence {_FENCE})"
)
_REFLECTION_START = re.compile(r"\s{0,64}(?:" + "|".join(REFLECTION_STARTS) + ")")
_REFLECTION_WHOLE = re.compile(rf"\s{{0,64}}{REFLECTION_WHOLE}\s{{0,64}}")
_REFLECTION_END = re.compile(rf"{REFLECTION_END}\s{{0,64}}\Z")
_NOTE_CHARS = max(map(len, PAIR_NOTES | EDIT_NOTES))  # a longer text is none: not hashed
_PARTS = 64  # the parts of a message of images looked at, at most


def examples_end(messages: Sequence[Any]) -> int:
    """The index past Aider's example conversation (past its "Ok." after `EXAMPLES_END`),
    looked for among the first `EXAMPLES_WITHIN` messages; 0 when there is none."""
    for index, message in enumerate(islice(messages, EXAMPLES_WITHIN)):
        if role(message) == "user" and one_text(message) == EXAMPLES_END:
            after = index + 1
            return after + 1 if role(_at(messages, after)) == "assistant" else after
    return 0


def is_aiders(messages: Sequence[Any]) -> bool:
    """Whether `messages` are an Aider request's: its example conversation ends among them
    (`examples_end`), or one of the pairs it sends on every request (`is_pair`: the
    repository map, the read-only files, the files added or the note that none are, images;
    not a note on its edits) is among the first or the last `EXAMPLES_WITHIN` messages
    (before the session's history, or in older versions between it and the current
    messages: `ChatChunks.all_messages`). Only then are its pairs and reflections passed over
    (`classifier.asks`): their words are anyone's, and in another client's request "I ran
    this command:\n\n...\n\nAnd got this output:" and a commit's note before a prefill were
    read as no ask (found in review)."""
    if examples_end(messages):
        return True
    count = len(messages)
    ends = (
        range(min(count, EXAMPLES_WITHIN)),
        range(max(EXAMPLES_WITHIN, count - EXAMPLES_WITHIN), count),
    )
    return any(
        role(messages[index]) == "user" and _pair(messages, index, edits=False)
        for indices in ends
        for index in indices
    )


def is_pair(messages: Sequence[Any], index: int) -> bool:
    """Whether the user message `messages[index]` is the first of one of Aider's fixed
    pairs: it starts with one of `PAIR_OPENINGS` or `EDIT_NOTE_OPENING`, is one of
    `PAIR_NOTES` or `EDIT_NOTES` or captions only images (`IMAGE_CAPTIONS`), and an
    assistant message follows it. Read so only in Aider's requests (`is_aiders`)."""
    return _pair(messages, index, edits=True)


def _pair(messages: Sequence[Any], index: int, edits: bool) -> bool:
    """`is_pair`, the notes on an edit (`EDIT_NOTE_OPENING`, `EDIT_NOTES`) counted when
    `edits`."""
    if role(_at(messages, index + 1)) != "assistant":
        return False
    text = one_text(messages[index])
    if text:
        if text.startswith(PAIR_OPENINGS) or (edits and text.startswith(EDIT_NOTE_OPENING)):
            return True
        return len(text) <= _NOTE_CHARS and (text in PAIR_NOTES or (edits and text in EDIT_NOTES))
    content = messages[index].get("content") if isinstance(messages[index], dict) else None
    if not isinstance(content, list):
        return False
    captions = [text for part in islice(content, _PARTS) if (text := _part_text(part))]
    return bool(captions) and all(caption.startswith(IMAGE_CAPTIONS) for caption in captions)


def before_reminder(text: str, start: int, end: int) -> int:
    """Where `text[start:end]` ends before the reminder of Aider's edit format that ends it
    (one of `REMINDER_OPENINGS` after a blank line, within the last `REMINDER_WITHIN`
    characters, the last such one); `end` when it does not end so. A user's text that
    quotes an opening inside a line, or further from its end, is read as written."""
    base = max(start, end - REMINDER_WITHIN)
    found = max(text.rfind("\n\n" + opening, base, end) for opening in REMINDER_OPENINGS)
    return found if found >= 0 else end


def without_reminder(text: str) -> str:
    """`text` without the reminder of Aider's edit format that ends it (`before_reminder`):
    a session's first ask as its later requests' history holds it, which keys it
    (`router.conversation.conversation_key`)."""
    end = before_reminder(text, 0, len(text))
    return text if end == len(text) else text[:end]


def without_mode_reminder(message: object, messages: Sequence[Any]) -> object:
    """The content of `message`, the current message of `messages`, without the reminder of
    Aider's ask or context mode (`_MODE_REMINDER`, after a blank line, within the last
    `MODE_REMINDER_WITHIN` characters) when the system prompt, the first of `messages` and
    not `message` itself, ends with the same reminder: Aider's, which writes it to both. Its
    words ("Reply in English.") a client's own may end with, and only there are they cut. Any
    other content as it is."""
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, str) or not messages or messages[0] is message:
        return content
    found = _MODE_REMINDER.search(content, max(0, len(content) - MODE_REMINDER_WITHIN))
    system = one_text(messages[0])
    if found is None or system is None or not system.endswith("\n" + found[1]):
        return content
    return content[: found.start()]


def reflected(text: str, start: int, end: int) -> bool:
    """Whether `text[start:end]` (past an agent's blocks, before Aider's reminder) is one of
    Aider's reflections, none of the user's words: it starts with one of
    `REFLECTION_STARTS`, is `REFLECTION_WHOLE` or ends with `REFLECTION_END` (looked for in
    its last 256 characters). Asked only of an Aider request's texts (`is_aiders`); there a
    user's text that starts with one of those starts, or ends with that error, is read as
    Aider's too, as the Stop hook's notice is (`classifier.harness`): nothing tells a
    pasted one from Aider's."""
    return bool(
        _REFLECTION_START.match(text, start, end)
        or _REFLECTION_WHOLE.fullmatch(text, start, end)
        or _REFLECTION_END.search(text, max(start, end - 256), end)
    )


def _at(messages: Sequence[Any], index: int) -> object:
    return messages[index] if index < len(messages) else None


def _part_text(part: object) -> str:
    text = part.get("text") if isinstance(part, dict) and part.get("type") == "text" else None
    return text if isinstance(text, str) else ""
