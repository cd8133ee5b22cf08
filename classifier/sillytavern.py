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
Post-Processing leaves it: a system message of its own, opening the one system message of
"Merge", "Semi-strict" and "Strict", or opening the one user message of "Single user
message"; "Strict"'s `[Start a new chat]` placeholder before the greeting then neither reads
nor keys the chat. Only the default sentence, alone on its line (a message of its own, or
followed by a line break where post-processing joins the prompts): a main prompt the user
wrote is read and keyed as any other app's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import islice
from typing import Any

from classifier.message import SCAN_MESSAGES, System, one_text, opening_text, role

# A name as SillyTavern puts it in (a character's, a persona's); the group's members, joined
NAME_CHARS = 100
MEMBERS_CHARS = 1000
# `default_main_prompt` with its names put in, exactly, from the opening of the text; the
# persona's name holds no ". ", which would be a sentence the user added on its line
MAIN_PROMPT = re.compile(
    rf"Write (?P<char>[^\n]{{1,{NAME_CHARS}}})'s next reply in a fictional chat between"
    rf" (?P<between>[^\n]{{1,{MEMBERS_CHARS}}})"
    rf" and (?P<user>(?:(?!\. )[^\n]){{1,{NAME_CHARS}}})\.(?=\n|\Z)"
)
# `default_new_group_chat_prompt`, its members put in: a system message of its own
GROUP_CHAT = re.compile(
    rf"\[Start a new group chat\. Group members: (?P<members>[^\n]{{1,{MEMBERS_CHARS}}})\]\Z"
)


def _main_prompt(messages: Sequence[Any], system: System) -> re.Match[str] | None:
    """SillyTavern's default main prompt opening the request's system prompt (`system`), or
    its first message when that is a user message ("Single user message"), when its second
    name is the character's or a group's that holds the character; None otherwise."""
    opening = system.opening
    if system.content is None and messages and role(messages[0]) == "user":
        opening = opening_text(messages[0])
    found = MAIN_PROMPT.match(opening) if opening is not None else None
    if found is None:
        return None
    char, between = found["char"], found["between"]
    return found if between == char or char in between.split(", ") else None


def roleplays(messages: Sequence[Any], system: System) -> bool:
    """Whether the request is a SillyTavern chat's: its default main prompt opens it
    (`_main_prompt`), a character's next reply in a fictional chat."""
    return _main_prompt(messages, system) is not None


def chat_names(messages: Sequence[Any], system: System) -> tuple[str, str] | None:
    """What keys a SillyTavern chat's requests (`router.conversation`): the character, or
    the group's members, and the user's persona, as its main prompt names them
    (`_main_prompt`); None for any other request. A group chat's members are its
    `[Start a new group chat. ...]` marker's, when that is a system message of its own among
    the first `SCAN_MESSAGES`: the main prompt names the character who speaks next, which
    changes turn by turn."""
    found = _main_prompt(messages, system)
    if found is None:
        return None
    for message in islice(messages, 1, SCAN_MESSAGES):
        text = one_text(message) if role(message) == "system" else None
        if text is not None and (group := GROUP_CHAT.match(text)) is not None:
            return group["members"], found["user"]
    return found["between"], found["user"]
