"""SillyTavern's roleplay chats: its default main prompt says the reply is a character's next
reply in a fictional chat, and names the character and the user's persona, which key the chat.

SillyTavern (npm `sillytavern`, 1.19.0, AGPL-3.0) sends a Chat Completion request built by
its prompt manager: its main prompt first, as a system message of its own, then the active
World Info (lorebook) entries, the character card's description, personality and scenario,
the `[Start a new Chat]` marker, the chat history and the user's turn. Its main prompt's
default is fixed text with names put in (`public/scripts/openai.js` `default_main_prompt`,
the Default preset's `main` in `default/content/presets/openai/Default.json`):
"Write {{char}}'s next reply in a fictional chat between {{char}} and {{user}}." (the
prompt manager's own default has `{{charIfNotGroup}}` second: the character in a solo chat,
the group's members, ", "-joined, in a group chat). Its NSFW and jailbreak prompts are empty
by default: nothing to recognise.

Read by the words of the turn, a roleplay chat's turns were `reasoning`, `tool_calling`,
`reasoning`, `tool_calling`, `prose`, `tool_calling` with no tool offered: first-person
action text ("*I take the cup of tea gratefully.* Thank you, Seraphina.") reads as tool use
(found in a live review). The prompt asks for fiction whatever the user's turn says:
role-play is `prose` (`classifier/data/licences/authored-README.md`), a rule's reading
(`classifier.fixed.ROLEPLAY`).

Keyed as other requests are, by every system message before the first user message and by
that message, a chat was a new conversation on most turns, its pin lost: World Info entries
come and go with the keywords of the latest messages, and once the prompt outgrows its
context size SillyTavern drops the oldest messages, so the first user message changes every
turn (6 turns were 5 conversations). Its requests are keyed by the names the main prompt
holds instead (`chat_names`, `router.conversation`): one conversation per character (or
group) and persona, as the `prompt_cache_key: "st-{{user}}-{{char}}"` a user could set
before. Not by the card's description: it is a system message as a World Info entry before
it is, and nothing fixed tells them apart. SillyTavern sends no chat id, so two chats with
one character are one conversation. The main prompt is recognised where Prompt
Post-Processing leaves it: a system message of its own, or opening the one system message of
"Merge", "Semi-strict" and "Strict" ("Strict"'s `[Start a new chat]` placeholder before the
greeting then neither reads nor keys the chat). Only the default sentence, alone on its line
(a message of its own, or followed by a line break where post-processing joins the prompts):
a main prompt the user wrote is read and keyed as any other app's.

"Single user message" (`src/prompt-converters.js` `mergeMessages`, `single`) sends the whole
prompt as the request's one message, a user message: every prompt and turn, in order, joined
by a blank line, the chat's turns each after its speaker's name ("User: ..."), so the main
prompt opens it and the new chat's marker (`[Start a new Chat]`, or a group chat's
`[Start a new group chat. Group members: ...]`, `default_new_chat_prompt`) is a paragraph of
it, before the chat. That shape is asked for, the marker as well: taken from a request's first
user message alone, the sentence opening a plain chat made every later turn prose ("Stop the
roleplay. Write a Python function ...") and the user's chats with those names one (found in
review). A group chat's members are read from its marker there, as from the one system
message of the other modes, or a system message of its own.

The names are read by their fixed words around them (`_named`), from the text's first line
alone, bounded (`LINE_CHARS`): a pattern that backtracked over " and " cost 3-4 ms for a
crafted line, in `classify` and again for the key, where other requests cost 0.2-0.5 ms (found
in review). A persona's name may hold " and " ("Tom and Jerry"): the character's name comes
first, so the line is split after it ("between Bob and Tom and Jerry"), or, for a group's
members, at each " and " from the right (`SPLITS` of them), where the members hold the
character. It may hold ". " after an initial or a title ("Dr. Watson", "J. R. Smith",
`_persona`): after a longer word, ". " starts a sentence the user added, their own prompt
(a persona named "Al" and a sentence after it are still taken for a name). The reading is
kept for the text (`classifier.message.per_text`): the classifier and the conversation key
each ask.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import islice
from typing import Any, NamedTuple

from classifier.message import SCAN_MESSAGES, System, one_text, opening_text, per_text, role

# A name as SillyTavern puts it in (a character's, a persona's); the group's members, joined
NAME_CHARS = 100
MEMBERS_CHARS = 1000
# `default_main_prompt`'s fixed words, around its names
OPENING = "Write "
NEXT_REPLY = "'s next reply in a fictional chat between "
AND = " and "
# The main prompt's line at its longest: its fixed words, its names and its full stop
LINE_CHARS = len(OPENING) + NAME_CHARS + len(NEXT_REPLY) + MEMBERS_CHARS + len(AND) + NAME_CHARS + 1
# How many of the line's " and " are tried, from the right, for the end of a group's members
SPLITS = 8
# The longest word a ". " in a persona's name may follow: an initial or a title ("Dr", "Mrs")
ABBREVIATION_CHARS = 3
# How post-processing joins the prompts, and the new chat's markers, each a paragraph
PARAGRAPH = "\n\n"
NEW_CHAT = PARAGRAPH + "[Start a new Chat]"
NEW_GROUP_CHAT = PARAGRAPH + "[Start a new group chat. Group members: "
# `default_new_group_chat_prompt`, its members put in: a system message of its own
GROUP_CHAT = re.compile(
    rf"\[Start a new group chat\. Group members: (?P<members>[^\n]{{1,{MEMBERS_CHARS}}})\]\Z"
)


class MainPrompt(NamedTuple):
    """SillyTavern's default main prompt opening a text, and what the text holds after it."""

    # The character whose reply is asked for: in a group chat, whoever speaks next
    char: str
    # The character, or the group's members, ", "-joined (the prompt manager's default)
    between: str
    # The user's persona
    user: str
    # The new chat's marker the text holds as a paragraph after it: "" for a chat's, the
    # members for a group chat's, None for none
    marker: str | None


@per_text
def main_prompt(text: str) -> MainPrompt | None:
    """The default main prompt opening `text`, its names put in, alone on the text's first
    line (`LINE_CHARS` at most), when its second name is the character's or a group's that
    holds the character; None for any other text. Kept for the text (`per_text`): the
    classifier and the conversation key each ask."""
    line = text[: LINE_CHARS + 1].partition("\n")[0]
    if len(line) > LINE_CHARS or not line.startswith(OPENING) or not line.endswith("."):
        return None
    at = line.find(NEXT_REPLY, len(OPENING))
    if not len(OPENING) < at <= len(OPENING) + NAME_CHARS:
        return None
    char = line[len(OPENING) : at]
    if (found := _named(char, line[at + len(NEXT_REPLY) : -1])) is None:
        return None
    return MainPrompt(char, *found, _marker(text, len(line)))


def _named(char: str, names: str) -> tuple[str, str] | None:
    """The character or the group's members, and the persona, `names` holds ("<between> and
    <user>"), `char` the character: split after the character's name, else at one of the last
    `SPLITS` " and " where the members before it hold the character; None otherwise."""
    if names.startswith(char + AND) and _persona(user := names[len(char) + len(AND) :]):
        return char, user
    end = len(names)
    for _ in range(SPLITS):
        end = names.rfind(AND, 0, end)
        if end < 0:
            return None
        between, user = names[:end], names[end + len(AND) :]
        if len(between) <= MEMBERS_CHARS and char in between.split(", ") and _persona(user):
            return between, user
    return None


def _persona(name: str) -> bool:
    """Whether `name` is a persona's name as SillyTavern puts it in: `NAME_CHARS` at most,
    each ". " in it after an initial or a title (`ABBREVIATION_CHARS` letters, a capital
    first): after any other word, ". " starts a sentence of the user's own prompt."""
    if not 0 < len(name) <= NAME_CHARS:
        return False
    for before in name.split(". ")[:-1]:
        word = before.rpartition(" ")[2]
        if not (0 < len(word) <= ABBREVIATION_CHARS and word.isalpha() and word[0].isupper()):
            return False
    return True


def _marker(text: str, start: int) -> str | None:
    """`MainPrompt.marker` of `text`, looked for from `start` (the main prompt's end): its
    first new chat's marker, a paragraph of its own (the text's last or before a blank line)."""
    at = text.find(NEW_CHAT, start)
    if at >= 0 and _ends_paragraph(text, at + len(NEW_CHAT)):
        return ""
    at = text.find(NEW_GROUP_CHAT, start)
    if at < 0:
        return None
    at += len(NEW_GROUP_CHAT)
    members = text[at : at + MEMBERS_CHARS + 2].partition("\n")[0]
    end = at + len(members)
    found = 1 < len(members) <= MEMBERS_CHARS + 1 and members.endswith("]")
    return members[:-1] if found and _ends_paragraph(text, end) else None


def _ends_paragraph(text: str, end: int) -> bool:
    """Whether a paragraph of `text` ends at `end`: the text's end, or a blank line."""
    return end == len(text) or text.startswith(PARAGRAPH, end)


def _main_prompt(messages: Sequence[Any], system: System) -> MainPrompt | None:
    """SillyTavern's default main prompt (`main_prompt`) opening the request's system prompt
    (`system`), or its one message when that is a user message holding the new chat's marker
    ("Single user message"); None otherwise."""
    if system.content is not None:
        return main_prompt(system.opening) if system.opening is not None else None
    if len(messages) != 1 or role(messages[0]) != "user":
        return None
    opening = opening_text(messages[0])
    found = main_prompt(opening) if opening is not None else None
    return found if found is not None and found.marker is not None else None


def roleplays(messages: Sequence[Any], system: System) -> bool:
    """Whether the request is a SillyTavern chat's: its default main prompt opens it
    (`_main_prompt`), a character's next reply in a fictional chat."""
    return _main_prompt(messages, system) is not None


def chat_names(messages: Sequence[Any], system: System) -> tuple[str, str] | None:
    """What keys a SillyTavern chat's requests (`router.conversation`): the character, or
    the group's members, and the user's persona, as its main prompt names them
    (`_main_prompt`); None for any other request. A group chat's members are its
    `[Start a new group chat. ...]` marker's, a paragraph of the main prompt's text
    (`MainPrompt.marker`) or a system message of its own among the first `SCAN_MESSAGES`:
    the main prompt names the character who speaks next, which changes turn by turn."""
    found = _main_prompt(messages, system)
    if found is None:
        return None
    if found.marker:
        return found.marker, found.user
    for message in islice(messages, 1, SCAN_MESSAGES):
        text = one_text(message) if role(message) == "system" else None
        if text is not None and (group := GROUP_CHAT.match(text)) is not None:
            return group["members"], found.user
    return found.between, found.user
