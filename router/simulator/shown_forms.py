"""Answers' forms a prompt shows outside a JSON object introduced as the answer (`prompted`):
a JSON list of strings, and a format example wrapped in markers of its own.

gpt-researcher 0.15.1 asks its sub-queries as "You must respond with a list of strings in
the following format: ["query 1", "query 2", "query 3"]. The response should contain ONLY
the list." and reads the answer with `json_repair.loads`: the simulator answered prose, which
read as a string, and the run stopped at `'str' object has no attribute 'append'` (found in
a live review). Here are the JSON arrays of strings a text holds (`string_lists`); the
sentence leading into one must ask for the answer as a list (`lead_in.list_asked`).

MetaGPT 0.8.2 shows its action nodes' answers as "## format example\n[CONTENT]\n{...}
\n[/CONTENT]" and asks "Format: output wrapped inside [CONTENT][/CONTENT] like format
example, nothing else."; it takes the text between the markers as JSON. Answered prose (or a
Python block, by the example's words), each of its actions failed six times and the team
gave up at its first (found in the same review). Here are the objects a text shows between
an opening marker `[NAME]` and its closing `[/NAME]` where the text asks for the answer so
(`wrapped_examples`): the markers named again where the output or answer is asked of it, or
a heading naming a format or output example just before them. The markers are any name, not
MetaGPT's alone.

Both scans are bounded as `prompted`'s is (`decoded`): a text longer than `LONGEST` is not
read, one without the opening's characters is passed over by a plain search, and the
decoding is charged against a budget proportional to the text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

LONGEST = 256 * 1024  # characters of a text scanned (`prompted`'s scans too)
_WORK = 4  # decoding work allowed, in multiples of the text's length
_TRIES = 64  # values decoded in one text at most
_MOST_STRINGS = 32  # items of a list of strings shown as an answer's form
# where a value's scan starts (`decoded` decodes from a match's end): a list of strings, and
# an object after an opening marker, `[CONTENT]` then `{`
_LIST_OPENING = re.compile(r'(?=\[\s*")')
_MARKED = re.compile(r"\[([A-Za-z][\w-]{0,31})\]\s*(?=\{)")
# a heading just before the markers that names the example as the answer's form ("## format
# example", "Example output:", "Output format example")
_HEADING = re.compile(
    r"(?:\A|\n)[^\n]*\b(?:(?:format|output|answer|response)\b[^\n]*\bexample"
    r"|example\b[^\n]*\b(?:format|output|answer|response))\b[^\n]*:?\s*\Z",
    re.I,
)
_HEADING_LEAD = 120  # characters before the opening marker read for that heading
# a sentence asking for the answer in the markers: the output or answer named, or wrapping
_WRAP_ASK = re.compile(
    r"\b(?:output|answer|respon(?:d|se)|reply|return|wrap(?:ped|s)?|enclose[ds]?)\b", re.I
)
# A sentence's end: its stop before a space, or a line's end (`described.wrappers` too)
SENTENCE_END = re.compile(r"[.!?](?=\s)|\n")
# A sentence's end in running prose: its stop before a space, or a blank line (a line break
# alone does not end it: `prompted` and `dataprompt` read sentences wrapped over lines)
PARAGRAPH_SENTENCE_END = re.compile(r"[.!?](?=\s)|\n[ \t]*\n")
_SENTENCE = 200  # characters either side of a marker's mention read for its sentence


@dataclass(frozen=True, slots=True)
class Wrapped:
    """An object shown between `[tag]` and `[/tag]` as the answer's form."""

    value: dict[str, Any]
    tag: str


def decoded(text: str, opening: re.Pattern[str]) -> Iterator[tuple[Any, re.Match[str], int]]:
    """The JSON values written whole in `text` from where `opening` matches end (one inside
    another not read apart), each with its match and where it ends. Each try decodes from a
    match's end; a failed one is charged the rest of the text (an unterminated string reads
    that far), a decoded one its own length, so the work stays within `_WORK` times the
    text, and at most `_TRIES` tries."""
    if len(text) > LONGEST:
        return
    decoder = json.JSONDecoder()
    budget, position = _WORK * len(text), 0
    for _ in range(_TRIES):
        found = opening.search(text, position)
        if found is None or budget <= 0:
            return
        start = found.end()
        try:
            value, end = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            budget -= len(text) - start
            position = found.start() + 1
            continue
        yield value, found, end
        budget -= end - start
        position = end


def string_lists(text: str) -> Iterator[tuple[list[str], int, int]]:
    """The JSON arrays of strings in `text` (one to `_MOST_STRINGS` of them, none blank),
    each with where it starts and ends; none in a text without brackets and quotes."""
    if "[" not in text or '"' not in text:
        return
    for value, found, end in decoded(text, _LIST_OPENING):
        if isinstance(value, list) and 0 < len(value) <= _MOST_STRINGS and _strings(value):
            yield value, found.end(), end


def _strings(items: list[Any]) -> bool:
    return all(isinstance(item, str) and item.strip() for item in items)


def wrapped_examples(text: str) -> Iterator[Wrapped]:
    """The objects `text` shows between `[NAME]` and `[/NAME]` (whitespace alone between
    them and the markers) where it asks for the answer so (`_asked_wrapped`)."""
    if "[/" not in text:  # a plain search first: most prompts hold no closing marker
        return
    for value, found, end in decoded(text, _MARKED):
        tag = found.group(1)
        close = re.compile(r"\s*\[/" + re.escape(tag) + r"\]").match(text, end)
        if not isinstance(value, dict) or not value or close is None:
            continue
        if _asked_wrapped(text, tag, found.start(), close.end()):
            yield Wrapped(value, tag)


def _asked_wrapped(text: str, tag: str, start: int, end: int) -> bool:
    """Whether `text` asks for the answer between the markers: a heading just before them
    names the example as the answer's (`_HEADING`), or a sentence outside the example names
    the opening marker and the output, the answer or wrapping (`_WRAP_ASK`)."""
    if _HEADING.search(text[max(0, start - _HEADING_LEAD) : start]):
        return True
    marker = f"[{tag}]"
    rest = text[:start] + "\n" + text[end:]
    at = rest.find(marker)
    for _ in range(_TRIES):  # the marker's mentions, the first few
        if at < 0:
            return False
        lead = SENTENCE_END.split(rest[max(0, at - _SENTENCE) : at])[-1]
        tail = SENTENCE_END.split(rest[at : at + _SENTENCE])[0]
        if _WRAP_ASK.search(lead + tail):
            return True
        at = rest.find(marker, at + len(marker))
    return False
