"""An answer's shape described in pseudo-JSON, read as a JSON schema.

Taskmaster (`task-master-ai` 0.43.1) on its documented `--openai-compatible` provider goes
through the Vercel AI SDK, which sends `response_format: {"type": "json_object"}` and no
schema: the shape is only in the prompt, and not in JSON. parse-prd shows "Each task should
follow this JSON structure:" then `{ "id": number, "title": string, "status": "pending",
"dependencies": number[] (IDs of tasks this depends on), "priority": "high" | "medium" |
"low", ... }` and asks in the user turn "Your response must be a JSON object with a "tasks"
property containing an array of task objects."; add-task says "Your response MUST be a JSON
object with the following structure" over `"title": "string"`, `"dependencies": [array of
numbers]`. The AI SDK checks the answer against its zod schema; the simulator answered
`{"answer": "..."}` (`instances.JSON_OBJECT`), so in demo mode every Taskmaster command that
asks the model failed with "No object generated: response did not match schema" (found in
a live review).

Here such a block is read (`described_shapes`): type words (`number`, `string`, `boolean`,
`integer`, quoted or not, `[]` after one for an array of it), a list spelled out (`[array of
numbers]`), alternatives (`"high" | "medium" | "low"`, the first kept), `// comments` and a
note in parentheses after a value dropped, bare or quoted keys, trailing commas, `...`
placeholders skipped. A quoted word alone is a literal the answer keeps (`"pending"`); a
quoted phrase (`"Task title goes here"`) is a placeholder, any string. Every key is required.

cipher 0.3.0's memory decision ends "Respond ONLY with:" over `{ "operation":
"ADD|UPDATE|DELETE|NONE", "confidence": 0.0-1.0, "targetMemoryId": "..." }`: alternatives
written inside one quoted string (`alternatives_in`) are the values the answer keeps one of,
a range of numbers (`0.0-1.0`, `1-10`) a number within it, and dots alone (`"..."`) a
placeholder. Its `0.0-1.0` ended the block's read, and the simulator read it as a sum:
"Computing 0.0-1.0 step by step gives -1" (found in a live review).
A block that is plain JSON is not read here: `prompted` answers those already, and one it
passes over (JSON the user shows) stays passed over.

The result is a schema, not an example object: an example's strings are all placeholders
(`answer.shaped_like`), which would lose `"high" | "medium" | "low"`'s choice.

The scan is bounded as `shown_forms.decoded`'s: `_TRIES` blocks at most, each read within
`_SPAN` characters by a reader without regular expressions that backtrack, `_DEEP` levels
and `_MEMBERS` members.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from router.simulator.shown_forms import LONGEST, SENTENCE_END

_DECODER = json.JSONDecoder()
_TRIES = 64  # blocks read in one text at most
_SPAN = 8 * 1024  # characters one block may take
_DEEP = 4  # levels of objects and arrays a block may hold
_MEMBERS = 64  # members or items one level may hold
_NOTE = 200  # characters of a note in parentheses after a value
_PHRASE = 80  # characters of a list spelled out in words (`[array of numbers]`)
# an object's opening: a brace then a quoted key, or a bare one and a colon
_OPENING = re.compile(r'\{(?=\s*(?:"|[A-Za-z_][\w-]{0,40}\??\s*:))')
_WORD = re.compile(r"[A-Za-z_][\w-]{0,40}")
_NUMBER = re.compile(r"-?\d{1,18}(\.\d{1,18})?")
_TYPE_WORDS = {
    "number": "number",
    "float": "number",
    "integer": "integer",
    "int": "integer",
    "string": "string",
    "str": "string",
    "boolean": "boolean",
    "bool": "boolean",
    "object": "object",
}
_LISTED_TYPE = re.compile(r"\b(number|integer|int|string|boolean|object)s?\b|\bids?\b", re.I)
_SPACE = re.compile(r"\s+")
# a quoted word alone: a value the answer keeps (a letter or digit in it: `"..."` is none)
_LITERAL = re.compile(r"(?=[\w.-]{0,31}[^\W_])[\w.-]{1,32}")
_ALTERNATIVE = re.compile(r"\s*\|\s*")  # between alternatives written in one string
_MOST_ALTERNATIVES = 16
# a range of numbers (`0.0-1.0`, `1-10`, `0–100`): its low and high ends
_RANGE = re.compile(r"(-?\d{1,18}(?:\.\d{1,18})?)[ \t]?[-–][ \t]?(\d{1,18}(?:\.\d{1,18})?)")


# the answer's one property named, and what it holds ("a JSON object with a "tasks" property
# containing an array of task objects", "a single property named "task" containing the
# updated task object"): the name, then within the sentence the array or object of a noun
_PROPERTY = re.compile(
    r'"(\w{1,40})"\s+(?:property|key|field)\b'
    r'|\b(?:property|key|field)\s+(?:named\s+|called\s+)?"(\w{1,40})"',
    re.I,
)
_HOLDS = re.compile(
    r"\b(?:containing|holding|with|whose\s+value\s+is|where\s+the\s+value\s+is)\s+"
    r"(?:an?\s+|the\s+)?(?:(array|list)\s+of\s+)?(?:[\w-]+\s+){0,2}?(\w{1,40}?)s?\s+objects?\b",
    re.I,
)
_HOLDS_LEAD = 120  # characters after the property's name read for what it holds


class _NotShape(Exception):
    """The text at hand is no described shape."""


@dataclass(frozen=True, slots=True)
class Described:
    """A shape a text describes, read as a JSON schema, and where its block starts and ends."""

    schema: dict[str, Any]
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Wrapper:
    """The answer's one property a text names (`key`), an array of or one `noun` object,
    and where the name is."""

    key: str
    array: bool
    noun: str
    start: int


def wrappers(text: str) -> Iterator[Wrapper]:
    """The answer's single properties `text` names with what they hold (`_PROPERTY`, then
    `_HOLDS` in the rest of the sentence): the sentence's ask is the caller's to read."""
    if len(text) > LONGEST or '"' not in text:
        return
    for count, found in enumerate(_PROPERTY.finditer(text)):
        if count >= _TRIES:
            return
        rest = text[found.end() : found.end() + _HOLDS_LEAD]
        rest = SENTENCE_END.split(rest, maxsplit=1)[0]
        holds = _HOLDS.match(rest.lstrip(" ,"))
        if holds is not None:
            key = found.group(1) or found.group(2)
            yield Wrapper(key, holds.group(1) is not None, holds.group(2).lower(), found.start())


def alternatives_in(text: str) -> list[str] | None:
    """The values a string written as alternatives stands for (`"ADD|UPDATE|DELETE|NONE"`,
    two to `_MOST_ALTERNATIVES` words, `_LITERAL`), else None: a template's way to say the
    answer keeps one of them."""
    if "|" not in text:
        return None
    options = _ALTERNATIVE.split(text.strip(), maxsplit=_MOST_ALTERNATIVES)
    if len(options) > _MOST_ALTERNATIVES or not all(_LITERAL.fullmatch(o) for o in options):
        return None
    return options


def described_shapes(text: str) -> Iterator[Described]:
    """The object blocks in `text` written in pseudo-JSON (at least one mark of it: a type
    word, alternatives, a comment, a note, a bare key, a trailing comma, a placeholder), each
    as the schema of the object it describes; one inside another not read apart."""
    if len(text) > LONGEST or "{" not in text:
        return
    position = 0
    for _ in range(_TRIES):
        found = _OPENING.search(text, position)
        if found is None:
            return
        reader = _Reader(text[found.start() : found.start() + _SPAN])
        try:
            schema = reader.value(0)
        except (_NotShape, ValueError):
            position = found.start() + 1
            continue
        end = found.start() + reader.at
        if reader.loose:
            yield Described(schema, found.start(), end)
        position = end


class _Reader:
    """One block's read from its opening brace: `at` where it is, `loose` whether anything
    not JSON was met. Each step moves forward; a dead end raises `_NotShape`."""

    def __init__(self, chunk: str) -> None:
        self.text, self.at, self.loose = chunk, 0, False

    def value(self, depth: int) -> dict[str, Any]:
        if depth > _DEEP:
            raise _NotShape
        self.space()
        char = self.text[self.at : self.at + 1]
        if char == "{":
            return self.members(depth)
        if char == "[":
            return self.items(depth)
        ranged = self.ranged()
        if ranged is not None:
            return ranged
        number = _NUMBER.match(self.text, self.at)  # never at a quote
        if number is not None:
            self.at = number.end()
            return {"type": "number" if number.group(1) else "integer"}
        return self.alternatives(self.option())

    def option(self) -> dict[str, Any]:
        """A quoted value (`quoted`) or a bare word (`named`): a value, or one of `|`'s."""
        if self.text.startswith('"', self.at):
            return self.quoted()
        word = _WORD.match(self.text, self.at)
        if word is None:
            raise _NotShape
        self.at = word.end()
        return self.named(word.group())

    def members(self, depth: int) -> dict[str, Any]:
        """An object's members up to its closing brace, commas or line ends between them."""
        self.at += 1
        properties: dict[str, Any] = {}
        for _ in range(_MEMBERS):
            self.space()
            if self.take("}"):
                return {"type": "object", "properties": properties, "required": list(properties)}
            if self.placeholder():
                continue
            key = self.key()
            self.space()
            if not self.take(":"):
                raise _NotShape
            properties[key] = self.value(depth + 1)
            self.after_value()
        raise _NotShape

    def items(self, depth: int) -> dict[str, Any]:
        """An array: `[]` empty, a list spelled out (`[array of numbers]`), else its items,
        the first one's schema taken for all."""
        self.at += 1
        self.space()
        if self.take("]"):
            return {"type": "array", "maxItems": 0}
        spelled = self.spelled()
        if spelled is not None:
            return spelled
        first: dict[str, Any] | None = None
        for _ in range(_MEMBERS):
            self.space()
            if self.take("]"):
                return {"type": "array", "items": first or {}}
            if self.placeholder():
                continue
            item = self.value(depth + 1)
            first = first or item
            self.after_value()
        raise _NotShape

    def ranged(self) -> dict[str, Any] | None:
        """A range of numbers (`0.0-1.0`, `1-10`), as a number within it (an integer where
        both ends are whole), else None: read as one number, its `-1.0` ended the block."""
        found = _RANGE.match(self.text, self.at)
        if found is None:
            return None
        low, high = found.group(1), found.group(2)
        if float(low) > float(high):
            return None
        whole = "." not in low and "." not in high
        kind, read = ("integer", int) if whole else ("number", float)
        self.at, self.loose = found.end(), True
        return {"type": kind, "minimum": read(low), "maximum": read(high)}

    def spelled(self) -> dict[str, Any] | None:
        """A list described in words up to its `]` ("array of numbers", "task IDs"), as an
        array of the type it names (numbers where it names IDs), else None."""
        close = self.text.find("]", self.at, self.at + _PHRASE)
        phrase = self.text[self.at : close] if close >= 0 else ""
        if not phrase or any(c in phrase for c in '[]{}"\n,:') or " " not in phrase.strip():
            return None
        named = _LISTED_TYPE.search(phrase)
        if named is None:
            return None
        word = (named.group(1) or "number").lower()
        self.at, self.loose = close + 1, True
        return {"type": "array", "items": {"type": _TYPE_WORDS[word]}}

    def named(self, word: str) -> dict[str, Any]:
        """A bare word: a type's name (`number`, `string[]` an array of it), true, false or
        null."""
        if word in ("true", "false"):
            return {"type": "boolean"}
        if word == "null":
            return {"type": "null"}
        kind = _TYPE_WORDS.get(word.lower())
        if kind is None:
            raise _NotShape
        self.loose = True
        if self.text.startswith("[]", self.at):
            self.at += 2
            return {"type": "array", "items": {"type": kind}}
        return {"type": kind}

    def quoted(self) -> dict[str, Any]:
        """A quoted value: a type's name (`"string"`), a word the answer keeps (`"pending"`),
        alternatives it keeps one of (`"ADD|UPDATE"`, `alternatives_in`), else a
        placeholder, any string."""
        text = self.string()
        kind = _TYPE_WORDS.get(text.lower())
        if kind is not None:
            self.loose = True
            return {"type": kind}
        options = alternatives_in(text)
        if options is not None:
            self.loose = True
            return {"type": "string", "enum": options}
        if _LITERAL.fullmatch(text):
            return {"type": "string", "enum": [text]}
        return {"type": "string"}

    def alternatives(self, first: dict[str, Any]) -> dict[str, Any]:
        """`first | second | ...` on one line: the first that is not null is the value."""
        chosen = first
        for _ in range(_MEMBERS):
            self.inline_space()
            if not self.take("|"):
                return chosen
            self.loose = True
            self.inline_space()
            option = self.option()
            if chosen.get("type") == "null":
                chosen = option
        raise _NotShape

    def key(self) -> str:
        if self.text.startswith('"', self.at):
            return self.string()
        word = _WORD.match(self.text, self.at)
        if word is None:
            raise _NotShape
        self.at, self.loose = word.end(), True
        self.take("?")  # TypeScript's optional member: required all the same
        return word.group()

    def after_value(self) -> None:
        """What may follow a value: a note in parentheses, then a comma, a closing bracket,
        or a line's end (a member per line)."""
        self.inline_space()
        if self.text.startswith("(", self.at):
            close = self.text.find(")", self.at, self.at + _NOTE)
            if close < 0:
                raise _NotShape
            self.at, self.loose = close + 1, True
        line_ended = self.space()
        if self.take(","):
            before = self.at
            self.space()
            if self.text[self.at : self.at + 1] in ("}", "]"):  # a trailing comma
                self.loose = True
            self.at = before
        elif self.text[self.at : self.at + 1] not in ("}", "]") and not line_ended:
            raise _NotShape

    def placeholder(self) -> bool:
        """`...` (or `…`) standing for more members or items, skipped with its comma."""
        for dots in ("...", "…"):
            if self.text.startswith(dots, self.at):
                self.at += len(dots)
                self.loose = True
                self.space()
                self.take(",")
                return True
        return False

    def string(self) -> str:
        if not self.text.startswith('"', self.at):
            raise _NotShape
        text, self.at = _DECODER.raw_decode(self.text, self.at)
        if not isinstance(text, str):
            raise _NotShape
        return text

    def space(self) -> bool:
        """Skips whitespace and `// comments`; whether a line ended in what was skipped."""
        line_ended = False
        while True:
            blank = _SPACE.match(self.text, self.at)
            end = blank.end() if blank is not None else self.at
            line_ended = line_ended or "\n" in self.text[self.at : end]
            self.at = end
            if not self.text.startswith("//", self.at):
                return line_ended
            close = self.text.find("\n", self.at)
            self.at, self.loose = (len(self.text) if close < 0 else close), True

    def inline_space(self) -> None:
        while self.text[self.at : self.at + 1] in (" ", "\t"):
            self.at += 1

    def take(self, char: str) -> bool:
        if self.text.startswith(char, self.at):
            self.at += len(char)
            return True
        return False
