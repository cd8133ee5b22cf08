r"""A tool call's arguments as the shadow comparison reads them: parsed, unwrapped, normalised.

Pure functions of a call (OpenAI shape) and the request's `tools`. Two calls of one tool are
the same call when the arguments its schema marks `required` are equal, strings exactly but
for `\r\n` read as `\n` and blank lines (whitespace only) dropped at their start and end,
and 1.0 read as 1. The optional ones (Claude Code's free-text `description` of a Bash
command, a default repeated as `limit: 2000`) are not compared, nor in nested objects whose
schema says what they require (MultiEdit's `edits: [{old_string, new_string}]` beside a
repeated `replace_all: false`: object `properties` and `required`, array `items`, to
`MAX_DEPTH` levels; `$ref`, `anyOf` and the like are not followed, their values compared
whole). A tool the request gives no schema, or no `required` list, has all its arguments
compared so; so has a call (or a nested object) lacking an argument its schema requires:
filtered, two calls each missing `command` agreed whatever else they said. Types count (`1`
is not `true`, nor `"1"`).

Why strings are compared so nearly exactly: whitespace changes what a call does. The first
line's indentation of an Edit's `new_string` is the code's; trailing spaces in an
`old_string` decide whether it matches the file; a Bash line ending `\ ` escapes a space
where `\` continues the line; a quoted string's inner spaces are its text. Stripped at both
ends and at each line's end, as they were, each of those agreed with the call without them.
A line end convention and blank lines around a value (a command ending in a newline, a
file's last newline) change nothing a tool reads. So `"ls -la "` disagrees with `"ls -la"`:
rarer from a model than the differences a looser rule hides.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


def call_parts(call: Mapping[str, Any]) -> tuple[str, Any]:
    """A call's name and arguments (JSON, or the text when it is no JSON)."""
    function = (call.get("function") if isinstance(call, Mapping) else None) or {}
    if not isinstance(function, Mapping):  # an upstream's odd call: no name, no arguments
        function = {}
    raw = function.get("arguments")
    args = _arguments(raw) if isinstance(raw, str) else raw or {}
    if isinstance(call, Mapping) and call.get("wrapped") is True:  # `Tally.answer_tool_calls`
        args = _unwrapped(args)
    return str(function.get("name")), args


def _arguments(raw: str) -> Any:
    """A call's arguments text as JSON; text that is no JSON as itself."""
    try:
        return json.loads(raw) if raw.strip() else {}
    except (json.JSONDecodeError, RecursionError):
        return raw.strip()


def _unwrapped(args: Any) -> Any:
    """A call's arguments that were no JSON object, as the chat text gives them. A Messages
    reply over chat wraps them in one, as a tool_use input must be (`wire.parse_arguments`:
    `{"_raw_arguments": text}`, `{"value": json}`), while a shadow asked in chat has the
    text: a small model's `{"city": Paris}` never agreed with itself (found in review). Only
    a call the relay's tally marks `wrapped` is read so: a tool whose one argument is
    `value`, called right (`{"value": 5}`), agreed with a shadow's invalid bare `5`."""
    if isinstance(args, dict) and len(args) == 1:
        if isinstance(args.get("_raw_arguments"), str):
            return _arguments(args["_raw_arguments"])
        if "value" in args:
            return args["value"]
    return args


def normalised(value: Any) -> Any:
    """JSON values as compared: strings as they came but for Windows line ends read as `\n`
    and the blank lines at their start and end (the module's docstring says why), 1.0 read
    as 1 (one JSON number); booleans stay apart from numbers, and strings from numbers."""
    if isinstance(value, str):
        return _trimmed(value.replace("\r\n", "\n"))
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: normalised(v) for k, v in value.items()}
    if isinstance(value, list):
        return [normalised(v) for v in value]
    return value


def _trimmed(text: str) -> str:
    """`text` without its leading and trailing blank lines (whitespace only, a last newline
    among them); the first line's indentation and every other line's spaces stay."""
    lines = text.split("\n")
    start = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
    end = len(lines)
    while end > start and not lines[end - 1].strip():
        end -= 1
    return "\n".join(lines[start:end])


Schemas = Mapping[str, Mapping[str, Any] | None]
"""Each tool's parameters' schema by its name (`tool_schemas`)."""

MAX_DEPTH = 8
"""How deep a tool's schema is followed into its arguments (MultiEdit's `edits` items are
the third level); below, values are compared whole. A request's schema is the client's:
never a recursion the size of whatever it nests."""


def tool_schemas(body: Mapping[str, Any]) -> dict[str, Mapping[str, Any] | None]:
    """Each function tool the chat request offers, by name, with its parameters' schema;
    None when that is no object (all of that tool's arguments are compared)."""
    found: dict[str, Mapping[str, Any] | None] = {}
    tools = body.get("tools")
    for tool in tools if isinstance(tools, list) else []:
        function = tool.get("function") if isinstance(tool, Mapping) else None
        if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
            continue
        schema = function.get("parameters")
        found[function["name"]] = schema if isinstance(schema, Mapping) else None
    return found


def _required_only(value: Any, schema: Any, depth: int = MAX_DEPTH) -> tuple[Any, bool]:
    """`value` with only what `schema` requires, object by object (an array's items by its
    `items`), and whether anything was left out. An object whose schema lists no `required`,
    or that lacks one of them, keeps every key: a call without its required argument is
    compared whole, not as `{}` (`{"cmd": "rm -rf /"}` agreed with `{"cmd": "ls"}`)."""
    if depth <= 0 or not isinstance(schema, Mapping):
        return value, False
    if isinstance(value, list):
        items = schema.get("items")
        pairs = [_required_only(v, items, depth - 1) for v in value]
        return [v for v, _ in pairs], any(left for _, left in pairs)
    if not isinstance(value, dict):
        return value, False
    listed = schema.get("required")
    names = {n for n in listed if isinstance(n, str)} if isinstance(listed, list) else set()
    if not names <= value.keys():
        return value, False
    properties = schema.get("properties")
    properties = properties if isinstance(properties, Mapping) else {}
    kept: dict[str, Any] = {}
    left = False
    for key, item in value.items():
        if names and key not in names:
            left = True
            continue
        kept[key], inner = _required_only(item, properties.get(key), depth - 1)
        left = left or inner
    return kept, left


def compared_call(call: Mapping[str, Any], schemas: Schemas) -> tuple[tuple[str, str], bool]:
    """A call as (name, canonical JSON of the arguments that count, normalised): key order
    does not matter, types do (Python's == said `1 == true` and `0 == false`); and whether
    it carries arguments the comparison leaves out (optional ones)."""
    name, args = call_parts(call)
    args, left = _required_only(args, schemas.get(name))
    try:
        text = json.dumps(normalised(args), sort_keys=True, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        text = repr(args)
    return (name, text), left
