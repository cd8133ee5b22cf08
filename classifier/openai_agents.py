"""The OpenAI Agents SDK's own text: the history it hands the next agent in place of the
conversation, where the user's asks are lines of an assistant message.

With `RunConfig(nest_handoff_history=True)`, the OpenAI Agents SDK (0.24.0,
`agents/handoffs/history.py`, `_build_summary_message`) sends the agent a handoff goes to
no user message: the conversation so far is one assistant message, `PREAMBLE`, `START`, a
numbered line an item, `END`, each a line apart. An item with a role and a one-line text (or
none) is "N. role: text" ("N. user (name): text" with a name); any other, a user message of
several lines or of parts among them, its JSON ("N. {"content": "...", "role": "user"}").
Read as sent, the request asked nothing: "Solve for x: 3x^2 - 12x + 9 = 0." went to the
cloud from the triage agent and its specialist's call was unknown on the default route
(local); and with no first ask to key it, every run's specialist call under the same
instructions was one conversation, one run's pin holding the others' (found running the
SDK).

So when such a message opens the conversation (the first after the system messages, where
the SDK puts it), the user lines in it are the user's messages (`handed_asks`): the latest
is the ask unless a user message follows it, the first is the first ask, which keys the
conversation (`classifier.asks.first_ask`). The SDK reads the legacy preamble
(`LEGACY_PREAMBLE`) too when it nests a history again; so does this. Not markers an app set
with `set_conversation_history_wrappers`: those are read as sent. The SDK is no coding
agent: its history, read, does not make the request an agent's session
(`classifier.rules.agent_session`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from itertools import islice
from typing import Any, NamedTuple

from classifier.message import one_text, per_text

# `_CONVERSATION_HISTORY_PREAMBLE`, and the one `_SUPPORTED_CONVERSATION_HISTORY_PREAMBLES`
# also reads
PREAMBLE = "For context, here is the conversation so far between the user and the previous agent:"
LEGACY_PREAMBLE = "For context, here is the conversation so far:"
# `_DEFAULT_CONVERSATION_HISTORY_START` and `_END`
START = "<CONVERSATION HISTORY>"
END = "</CONVERSATION HISTORY>"
_OPENINGS = (f"{PREAMBLE}\n{START}\n", f"{LEGACY_PREAMBLE}\n{START}\n")
_CLOSING = f"\n{END}"
# A user's item: `_format_transcript_item_legacy`'s "N. user: " (its name up to the first
# colon, where the SDK's own parser ends a role), or an item's JSON (`_JSON_AT` marks it), a
# user's when it names its role at its start or its end (`_ROLE`: the SDK keeps an item's
# keys in their order, "content" first for an ask it was given as a string)
_USER_LINE = re.compile(r"^\d+\. (?:user(?: \([^\n:]*\))?: |(?P<json>\{))", re.M)
_JSON_AT = "json"
_ROLE = '"role": "user"'
_ROLE_AT_END = 64
_TEXT_PARTS = ("input_text", "text", "output_text")
# System messages looked past, at most, to the history
_SYSTEMS = 4
# How far into the history the first user line is looked for, and how far back from its end
# the latest: past both, a user line between them is not read (the latest read is then the
# last one found before), as a message past `classifier.message.SCAN_ROLES` is not
WITHIN = 65_536


class Handed(NamedTuple):
    """The first and the latest user message of a handed-over history, each a user message of
    its text: the same object when the history holds one."""

    first: dict[str, Any]
    latest: dict[str, Any]


def handed_asks(messages: Sequence[Any]) -> Handed | None:
    """The user's messages in the SDK's history opening `messages` (`_history`); None when
    no such history opens them or it holds no user line."""
    for message in islice(messages, _SYSTEMS + 1):
        role = message.get("role") if isinstance(message, dict) else None
        if role == "assistant":
            text = one_text(message)
            return _history(text) if text is not None else None
        if role not in ("system", "developer"):
            return None
    return None


@per_text
def _history(text: str) -> Handed | None:
    """The first and the latest user line of the SDK's history `text`, as user messages:
    told by its opening and closing before a line is read, read once for a request
    (`classifier.message.per_text`: asked for its first ask and its latest, by the classifier
    and the conversation key)."""
    if not text.startswith(_OPENINGS) or not text.endswith(_CLOSING):
        return None
    start = text.index(START) + len(START) + 1
    end = len(text) - len(_CLOSING)
    head = min(end, start + WITHIN)
    lines = [*_USER_LINE.finditer(text, start, head)]
    lines += _USER_LINE.finditer(text, max(head, end - WITHIN), end)
    said = ((i, w) for i, line in enumerate(lines) if (w := _said(text, line, end)))
    first = next(said, None)
    if first is None:
        return None
    after = range(len(lines) - 1, first[0], -1)
    last = next((w for i in after if (w := _said(text, lines[i], end))), None)
    ask = {"role": "user", "content": first[1]}
    return Handed(ask, ask if last is None else {"role": "user", "content": last})


def _said(text: str, line: re.Match[str], end: int) -> str | None:
    """What the user line `line` of `text` (its history ending at `end`) says: its text, or
    its item's content when the item is a user's (`_user_item`); None for another item, or
    no words."""
    stop = text.find("\n", line.end(), end)
    stop = end if stop < 0 else stop
    at = line.start(_JSON_AT)
    words = text[line.end() : stop] if at < 0 else _user_item(text, at, stop)
    return words if words and not words.isspace() else None


def _user_item(text: str, at: int, stop: int) -> str | None:
    """The content of the item whose JSON is `text[at:stop]`, the text of its parts, when it
    is a user's; None for another item. Decoded whole, once for a request, as its body was;
    only when its role is named near either end (`_ROLE`): not every tool call's."""
    near = text.find(_ROLE, at, min(stop, at + WITHIN)) >= 0
    if not near and text.find(_ROLE, max(at, stop - _ROLE_AT_END), stop) < 0:
        return None
    try:
        item = json.loads(text[at:stop])
    except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth
        return None
    if not isinstance(item, dict) or item.get("role") != "user":
        return None
    content = item.get("content")
    if isinstance(content, list):
        parts = [p for p in content if isinstance(p, dict) and p.get("type") in _TEXT_PARTS]
        content = "\n".join(t for p in parts if isinstance(t := p.get("text"), str))
    return content if isinstance(content, str) else None
