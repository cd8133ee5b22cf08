"""A custom tool call's input from the arguments of the function a chat backend was shown
for it: one string argument, `input` (`router.translate.responses_request`).

A whole call's input is that string; arguments that are JSON but hold no string `input` are
the model's own, and go as their JSON text. Small models' JSON is not always JSON, and a
freeform tool may run its input (a shell, SQL, a patch), so a whole call's input is never
cut short: arguments that are no JSON are read leniently (`lenient`), a Python-style `\\'`
a quote (what every string syntax that has it means), any other escape JSON has none of
(`\\x41`, a regex's `\\d`, a lone surrogate `\\ud83d`) its characters as they came, a raw
control character (a real newline) itself. Those that still give no string `input` (no
JSON at all, JSON cut though the call ended) are the input as they came.

A call the stream or the output limit cut (`cut`) gives the string's text as far as it
came, read the same way: arguments cut after their `{"input": "` decode up to an escape or
a surrogate pair cut in two, those cut inside that opening give none. Only an `input` that
comes first is read so: other cut arguments (`{"path": "a", "input": "...`, `{"input": 5`)
are the input as they came, where whole they give `input` (a key before it is the model's
own, as the function has one argument; not worth a partial JSON parser).
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

# An escape JSON knows: surrogate pairs only whole, no lone half (Python's json takes one,
# and orjson then refuses the string as the event's text).
_VALID = (
    r'\\(?:["\\/bfnrt]|u(?![dD][89a-fA-F])[0-9a-fA-F]{4}'
    r"|u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2})"
)
# An escape cut short at the arguments' end: a backslash, `\u12`, a high surrogate, one with
# the low one begun (`\ud83d\ude0`).
_CUT_ESCAPE = (
    r"\\(?:u[dD][89abAB][0-9a-fA-F]{2}(?:\\(?:u(?:[dD](?:[c-fC-F][0-9a-fA-F]{0,2})?)?)?)?"
    r"|u[0-9a-fA-F]{0,3})?\Z"
)
# A run with no escape JSON has none of, then the one that ends it, if any.
_UP_TO_BAD = re.compile(rf"((?:[^\\]++|{_VALID})*+)(?:({_CUT_ESCAPE})|(\\')|(\\)|\Z)")

# The opening of the arguments a custom call's function is called with (whole, and cut
# short), JSON's whitespace only, and the longest run of its string's JSON that decodes
# (raw control characters too). Possessive: nothing is ever retried.
_WS = r"[ \t\n\r]*"
_OPENING = re.compile(rf'{_WS}\{{{_WS}"input"{_WS}:{_WS}"')
_OPENING_SO_FAR = re.compile(
    rf'{_WS}(?:\{{{_WS}(?:"(?:i(?:n(?:p(?:u(?:t(?:"{_WS}(?::{_WS})?)?)?)?)?)?)?)?)?'
)
_STRING_SO_FAR = re.compile(rf'(?:[^"\\]++|{_VALID})*+')
# Where that run may stop in cut arguments: the string's end, the arguments' end, an
# escape cut there. Anywhere else is an escape JSON has none of.
_STOP = re.compile(rf'"|\Z|{_CUT_ESCAPE}')


def custom_input(arguments: str, cut: bool = False) -> str:
    """The input of a custom call whose function got `arguments`, whole or `cut` short."""
    try:
        raw = orjson.loads(arguments)
    except orjson.JSONDecodeError:
        return _so_far(arguments) if cut else _whole(arguments)
    given = raw["input"] if isinstance(raw, dict) and "input" in raw else arguments
    return given if isinstance(given, str) else orjson.dumps(given).decode()


def lenient(arguments: str) -> str:
    """`arguments` with every escape JSON has none of made JSON: `\\'` a quote, any other
    one's backslash escaped, so that its characters stay as they came. An escape cut at the
    end stays, for `_so_far` to drop."""
    return _UP_TO_BAD.sub(_fixed, arguments)


def _fixed(found: re.Match[str]) -> str:
    run, cut_escape, quote, other = found.groups()
    return run + (cut_escape or ("'" if quote else "\\\\" if other else ""))


def _whole(arguments: str) -> str:
    """A whole call's string `input` read leniently, else its arguments as they came (a
    lenient parser's other values, NaN or a 30-digit integer, are no JSON to send)."""
    try:
        raw: Any = json.loads(lenient(arguments), strict=False)
    except (ValueError, RecursionError):  # RecursionError: nested deeper than it goes
        return arguments
    given = raw.get("input") if isinstance(raw, dict) else None
    return given if isinstance(given, str) else arguments


def _so_far(arguments: str) -> str:
    """A cut call's input: the text of `input`'s string as far as it came (the module's
    docstring)."""
    opening = _OPENING.match(arguments)
    if opening is None:
        return "" if _OPENING_SO_FAR.fullmatch(arguments) else arguments
    run = _STRING_SO_FAR.match(arguments, opening.end())
    assert run is not None  # it matches the empty string at least
    if _STOP.match(arguments, run.end()) is None:  # an escape JSON has none of
        arguments = lenient(arguments)
        run = _STRING_SO_FAR.match(arguments, opening.end())
        assert run is not None
    text: str = json.loads(f'"{run[0]}"', strict=False)
    return text
