"""The fields of a JSON error reply read only in part (cut at `MAX_ERROR_BYTES`).

Whole, such a reply is JSON no more, and its raw text became the message: the upstream's
names were lost (found in review). Its own fields are read by walking its tokens once, in
order, keeping track of where each one stands: the top-level `error` and the `message`,
`type`, `code` and `param` of the top level and of the `error` object. Which of them are
the error's is the rule a whole reply is read by (`router.error_fields`): the `error`
object's (OpenAI's, vLLM's and Anthropic's envelopes), TGI's `{"error": "<message>"}`, the
flat ones of SGLang and older vLLM (`{"object": "error", "message", ...}`). Not the first
`"type"` anywhere, as a pattern had read them: that was the `"error"` of Anthropic's
envelope, a nested `details[0].type`, or the head of a name the cut went through. A name
is kept only when its closing quote came before the cut, a number only when something
followed it; only the message may be cut (what it says still helps).

One pass, linear in the text: each token is read from where the last one ended, by
`json.decoder.scanstring` or a pattern anchored there (`_tokens`); the redaction patterns
read 64 KiB quadratically once (found in review). The walk stops where the reply's object
ends, or after `MAX_TOKENS`. What is read is cleaned of secrets later, where the body is
taken in (`router.attempt_errors`); the end of a message the cut went through is masked here
(`redaction.masked_end`), as no cleaning can see a key the cut left in part.
"""

from __future__ import annotations

import json
import re
from _json import scanstring  # the C scanner that `json.decoder` reads strings with
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from evals.redaction import masked_end
from router.error_fields import FIELDS, error_fields

_NEXT = re.compile(r"[ \t\n\r]*+(.)", re.S)  # a token's first character, after white space
_SCALAR = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null")
_PUNCTUATION = frozenset("{}[]:,")
_OPENING = frozenset("{[")
_CLOSING = frozenset("}]")
_STRING = '"'
# A string's content up to its closing quote or the end of the text: any character but a
# quote or a backslash, or a backslash and the character it escapes, whatever that is.
_CONTENT = re.compile(r'[^"\\]*+(?:\\.[^"\\]*+)*+', re.S)
# A run of content whose escapes are JSON's, then one that is not (`\x`, `\u12`, or the
# backslash the text ends with); the last match is the run alone. Read left to right, so
# that an escaped backslash (`\\u12`) is never taken for the start of an escape.
_ESCAPES = re.compile(
    r'((?:[^\\]++|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*+)(\\(?:u[0-9a-fA-F]{0,3}|.)?)?', re.S
)
_SURROGATE = re.compile("[\ud800-\udfff]")
_HIGH_SURROGATES = ("\ud800", "\udbff")
_REPLACEMENT = "\ufffd"
_SCALAR_TOKEN = "scalar"
_NOTHING = object()  # a token with no value: punctuation, or a string the cut went through


@dataclass(frozen=True, slots=True)
class _Token:
    """One JSON token: `kind` a punctuation character, `"` or `scalar`; `value` its value,
    `_NOTHING` if it has none; `cut` for the last string, which the text ended inside
    (`value` then the message it would be, if it can be read: `_cut_string`)."""

    kind: str
    start: int
    end: int
    value: Any = _NOTHING
    cut: bool = False


# How many tokens are read at most. An error envelope is 20 to 30 tokens in all (OpenAI's
# 21, 6 before its message), a string one token however long; this leaves room for a list
# of details before the fields, and costs well under a millisecond. Without it a reply
# echoing the client's JSON (FastAPI's 422 `{"detail": [...]}`) was read to its 30,000th
# token: 180 ms of the event loop, which any client could ask for (found in re-review).
MAX_TOKENS = 256


def cut_fields(text: str) -> dict[str, Any] | None:
    """The error's own fields in `text`, the head of a JSON error reply, as an OpenAI error
    (`type` an `invalid_request_error` when it is not there); None when none is."""
    reading = _Reading()
    for count, token in enumerate(_tokens(text), 1):
        reading.take(token)
        if reading.done or count >= MAX_TOKENS:
            break
    fields = reading.fields()
    if not fields:
        return None
    return {"type": "invalid_request_error", "param": None, "code": None} | fields


@dataclass(slots=True)
class _Frame:
    """An open object or array: `key` the key whose value comes next in an object."""

    kind: str
    key: str | None = None
    is_error: bool = False  # the top-level `error` object


@dataclass(slots=True)
class _Reading:
    """Where a walk through the tokens stands, and what it kept of the error's fields."""

    stack: list[_Frame] = field(default_factory=list)
    flat: dict[str, Any] = field(default_factory=dict)
    own: dict[str, Any] = field(default_factory=dict)
    error_seen: bool = False  # a top-level `error` key
    # Its value as read: the object's own fields (`own`), a string's message as kept (TGI's),
    # None (null: the flat fields are the error), `_NOTHING` (anything else: no fields).
    error: Any = None
    done: bool = False  # the top level closed, or the text is no object

    def take(self, token: _Token) -> None:
        if not self.stack:  # the reply itself: an object, or it is not read
            if token.kind == "{":
                self.stack.append(_Frame("{"))
            else:
                self.done = True
            return
        frame = self.stack[-1]
        if token.kind in _CLOSING:
            self.stack.pop()
            self.done = not self.stack
        elif token.kind == ",":
            frame.key = None
        elif token.kind == ":":
            pass
        elif frame.kind == "{" and frame.key is None:
            key = token.value if token.kind == _STRING else ""
            frame.key = key if isinstance(key, str) else ""
        else:
            self._value(frame, token)

    def _value(self, frame: _Frame, token: _Token) -> None:
        """A value in `frame`, kept when it is one of the error's own fields."""
        key, depth = frame.key, len(self.stack)
        frame.key = ""  # its value is taken: a string after it is no key before a `,`
        if token.kind in _OPENING:
            self.stack.append(_Frame(token.kind, is_error=depth == 1 and key == "error"))
        if depth == 1 and key == "error":  # the last one counts, as for orjson
            self.own = {}
            self.error_seen = True
            if token.kind == "{":
                self.error = self.own
            else:
                self.error = None if token.value is None else _kept("message", token)
        elif key in FIELDS and (depth == 1 or frame.is_error):
            value = _kept(key, token)
            if value is not _NOTHING:
                (self.flat if depth == 1 else self.own)[key] = value

    def fields(self) -> dict[str, Any]:
        """What of the kept fields is the error's, by the rule for a whole reply."""
        body = self.flat | {"error": self.error} if self.error_seen else self.flat
        return {key: value for key, value in error_fields(body).items() if value is not _NOTHING}


def _kept(key: str, token: _Token) -> Any:
    """`token`'s value as the field `key` when it can be one, else `_NOTHING`: a message a
    string, cut or not (then its last run of non-space characters masked: `masked_end`); a
    `type` a whole string; a `code` or `param` a whole string, an integer or null."""
    value = token.value
    if value is _NOTHING:
        return _NOTHING
    if key == "message":
        kept = isinstance(value, str)
        if kept and token.cut:
            value = masked_end(value)
    elif token.cut:
        kept = False
    elif key == "type":
        kept = isinstance(value, str)
    else:
        kept = value is None or (isinstance(value, str | int) and not isinstance(value, bool))
    return value if kept else _NOTHING


def _tokens(text: str) -> Iterator[_Token]:
    """The JSON tokens of `text` in order, each read from where the last one ended; they
    end at a string the text ends inside, or at anything that is no JSON token."""
    end = len(text)
    pos = 0
    while (found := _NEXT.match(text, pos)) is not None:
        pos = found.start(1)
        char = found.group(1)
        if char in _PUNCTUATION:
            yield _Token(char, pos, pos + 1)
            pos += 1
        elif char == _STRING:
            try:
                value, after = scanstring(text, pos + 1, False)
            except json.JSONDecodeError:  # cut inside it, or an escape JSON has not
                token = _lenient_string(text, pos)
            else:
                token = _Token(_STRING, pos, after, _text(value))
            yield token
            if token.cut:
                return
            pos = token.end
        else:
            scalar = _SCALAR.match(text, pos)
            if scalar is None or scalar.end() == end:  # no JSON, or a number maybe cut
                return
            yield _Token(_SCALAR_TOKEN, pos, scalar.end(), _scalar(scalar.group()))
            pos = scalar.end()


def _scalar(text: str) -> Any:
    """A number, `true`, `false` or `null`; a number of more digits than Python reads into
    an int (4300) has no value."""
    try:
        return json.loads(text)
    except ValueError:
        return _NOTHING


def _text(value: str) -> str:
    """`value` with each lone surrogate (an escaped `\\ud83d` without its pair) as U+FFFD:
    as it was, it is no text that can be written out (`orjson.dumps` raised on it), and
    the message it was in was lost (found in re-review)."""
    try:
        value.encode()
    except UnicodeEncodeError:  # the scanner joined each pair: a surrogate left is lone
        return _SURROGATE.sub(_REPLACEMENT, value)
    return value


def _lenient_string(text: str, start: int) -> _Token:
    """The string token at `start` that the scanner refused: cut by the end of the text
    (`cut`), or with an escape JSON has not. Read as far as it can be: an escape the cut
    went through (`\\u12`) is dropped, and a high surrogate whose pair it was (`\\ud83d`
    of an emoji, 12 characters escaped); an escape that is none is U+FFFD. It was read back
    from the cut 6 characters at most, as JSON, so that a cut in an emoji's pair, or a
    single bad escape anywhere in the message, lost all of it (found in re-review)."""
    content = _CONTENT.match(text, start + 1)
    assert content is not None  # it matches an empty string
    cut = text[content.end() : content.end() + 1] != _STRING
    inner = text[start + 1 :] if cut else content.group()

    def escape(match: re.Match[str]) -> str:
        if match.group(2) is None:
            return match.group(1)
        dropped = cut and match.end() == len(inner)
        return match.group(1) + ("" if dropped else _REPLACEMENT)

    value: Any
    try:
        value, _ = scanstring(_ESCAPES.sub(escape, inner) + _STRING, 0, False)
    except json.JSONDecodeError:  # not expected: every escape left is JSON's
        value = _NOTHING
    else:
        if cut and _HIGH_SURROGATES[0] <= value[-1:] <= _HIGH_SURROGATES[1]:
            value = value[:-1]
        value = _text(value)
    end = len(text) if cut else content.end() + 1
    return _Token(_STRING, start, end, value, cut=cut)
