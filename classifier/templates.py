"""An eval tool's fixed template with its placeholders filled, told exactly.

Eval tools wrap what they test or grade in texts of their own (`classifier.inspect_ai`,
`classifier.promptfoo`, `classifier.deepeval`, `classifier.ragas`): a multiple-choice
question inside an answer-format directive, an answer to grade inside a judge's
instructions. Read as written, those texts decided the intent (found running inspect_ai,
promptfoo, deepeval and ragas against the router). Each template is kept
as its tool's source writes it and split at its placeholders into the fixed texts between
them (`fixed_parts`); a text is the template filled (`fills`) when it opens with the first,
ends with the last and holds the others in order, whatever the values are. Only then: a
user who types a template's opening and words of their own is asking those words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from classifier.message import part_text, scanned_at

# The most messages a judge's request holds: its one user message after a model's own system
# messages (or instructor's, `classifier.ragas`)
JUDGE_MESSAGES = 3


def fixed_parts(template: str, placeholder: re.Pattern[str]) -> tuple[str, ...]:
    """The fixed texts of `template` around its placeholders (`placeholder`, a pattern of no
    groups, matches one): one more than the placeholders, "" where two meet or one opens or
    ends it."""
    return tuple(placeholder.split(template))


def fills(text: str, parts: tuple[str, ...]) -> bool:
    """Whether `text` is the template of fixed `parts` (`fixed_parts`) with each placeholder
    filled by any text, "" too. Each middle part is looked for at its first place after the
    last one: if any placing fits, that one does (it leaves the most text for the others).
    One scan of the text at most, and only for a text that opens and ends as the template
    does: any other is told at its first characters."""
    head = parts[0]
    if not text.startswith(head):  # most texts: told here, before any other work
        return False
    if len(parts) == 1:
        return text == head
    tail = parts[-1]
    if len(text) < len(head) + len(tail) or not text.endswith(tail):
        return False
    at, end = len(head), len(text) - len(tail)
    for part in parts[1:-1]:
        found = text.find(part, at, end)
        if found < 0:
            return False
        at = found + len(part)
    return True


def framed(text: str, opening: str, closing: str) -> str | None:
    """What stands between `opening` and `closing` when `text` opens with the one and ends
    with the other, apart; None for any other text. A text shorter than both together is
    none, though it open and end so: its start and end share characters (`opening`'s last
    and `closing`'s first, as a newline), and the bare `startswith`/`endswith` pair read it
    as framing an empty text, or one taken from the opening's own words."""
    if len(text) < len(opening) + len(closing):
        return None
    if not (text.startswith(opening) and text.endswith(closing)):
        return None
    return text[len(opening) : len(text) - len(closing)]


def fills_any(text: str, templates: tuple[tuple[str, ...], ...], heads: tuple[str, ...]) -> bool:
    """Whether `text` fills any of `templates` (`fills`), whose opening fixed texts are
    `heads` (`opening_texts`): a text that opens as none of them is told in one call (a
    request classified asked each of deepeval's eleven judges and ragas's six in turn)."""
    return text.startswith(heads) and any(fills(text, parts) for parts in templates)


def opening_texts(templates: tuple[tuple[str, ...], ...]) -> tuple[str, ...]:
    """The opening fixed text of each of `templates` (`fixed_parts`), for `fills_any`."""
    return tuple(parts[0] for parts in templates)


def text_of(content: object) -> str | None:
    """A message content's one text: a string, or the text of the one text part among its
    parts (images beside it: an eval tool sends a sample's media after its text); None for
    any other. Its parts are read as the classifier reads them (`_text_at`)."""
    if isinstance(content, str):
        return content
    at = _text_at(content)
    return None if at is None or not isinstance(content, list) else part_text(content[at])


def with_text(content: object, text: str) -> object:
    """`content` (one `text_of`) with its text replaced by `text`: a string, or a copy of its
    parts with the text part's text replaced (the request's own parts are never changed)."""
    at = _text_at(content)
    if at is None or not isinstance(content, list):
        return text
    part = content[at]
    parts = [*content]
    parts[at] = {**part, "text": text} if isinstance(part, dict) else text
    return parts


def _text_at(content: object) -> int | None:
    """Where a part array's one text part is (`classifier.message.part_text`: a part of no
    string text is none), among its parts the classifier reads (`scanned_at`: the first and
    the last 8 of a long one, however many images it carries); None when it has none or
    several, or is no array."""
    if not isinstance(content, list):
        return None
    found = [at for at in scanned_at(len(content)) if part_text(content[at]) is not None]
    return found[0] if len(found) == 1 else None


def judged_text(messages: Sequence[Any]) -> str | None:
    """The text of a judge's one user message (`text_of`), when `messages` are that message
    after two system (or developer) messages at most: how deepeval and ragas send their
    judges' templates (`classifier.deepeval`, `classifier.ragas`); None for any other."""
    if not messages or len(messages) > JUDGE_MESSAGES:
        return None
    last = messages[-1]
    if not isinstance(last, dict) or last.get("role") != "user":
        return None
    if not all(
        isinstance(m, dict) and m.get("role") in ("system", "developer") for m in messages[:-1]
    ):
        return None
    return text_of(last.get("content"))
