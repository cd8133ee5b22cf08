"""A tool call's arguments as the shadow comparison reads them: parsed, unwrapped, normalised.

Pure functions of a call (OpenAI shape) and the request's `tools`. Two calls of one tool are
the same call when the arguments its schema marks `required` are equal once strings are
stripped (at both ends and at each line's end, `\r\n` read as `\n`) and 1.0 reads as 1; the
optional ones (Claude Code's free-text `description` of a Bash command, a default repeated
as `limit: 2000`) are not compared. A tool the request gives no schema, or no `required`
list, has all its arguments compared so. Nested objects are compared whole (normalised), not
by their own schemas; types still count (`1` is not `true`, nor `"1"`).
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
    """JSON values as compared: strings stripped at both ends and at each line's end, with
    Windows line ends read as `\n` ("ls -la " is "ls -la"), 1.0 read as 1 (one JSON
    number); booleans stay apart from numbers, and strings from numbers. Whitespace inside a
    line counts: a file's indentation (a Write call's `content`, Python) or a quoted
    string's spaces change what the call does."""
    if isinstance(value, str):
        lines = value.replace("\r\n", "\n").split("\n")
        return "\n".join(line.rstrip() for line in lines).strip()
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: normalised(v) for k, v in value.items()}
    if isinstance(value, list):
        return [normalised(v) for v in value]
    return value


def required_arguments(body: Mapping[str, Any]) -> dict[str, frozenset[str] | None]:
    """Each function tool the chat request offers, by name, with the argument names its
    schema marks `required`; None when it marks none (or its schema is no object): all of
    that tool's arguments are compared."""
    found: dict[str, frozenset[str] | None] = {}
    tools = body.get("tools")
    for tool in tools if isinstance(tools, list) else []:
        function = tool.get("function") if isinstance(tool, Mapping) else None
        if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
            continue
        schema = function.get("parameters")
        required = schema.get("required") if isinstance(schema, Mapping) else None
        names = [n for n in required if isinstance(n, str)] if isinstance(required, list) else []
        found[function["name"]] = frozenset(names) or None
    return found


def compared_call(
    call: Mapping[str, Any], required: Mapping[str, frozenset[str] | None]
) -> tuple[str, str]:
    """A call as (name, canonical JSON of the arguments that count, normalised): key order
    does not matter, types do (Python's == said `1 == true` and `0 == false`)."""
    name, args = call_parts(call)
    names = required.get(name)
    if names is not None and isinstance(args, dict):  # one side's missing key: no match
        args = {key: value for key, value in args.items() if key in names}
    try:
        text = json.dumps(normalised(args), sort_keys=True, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        text = repr(args)
    return name, text


def ignores_some(call: Mapping[str, Any], required: Mapping[str, frozenset[str] | None]) -> bool:
    """Whether the call carries arguments the comparison leaves out (optional ones)."""
    name, args = call_parts(call)
    names = required.get(name)
    return names is not None and isinstance(args, dict) and not set(args) <= names
