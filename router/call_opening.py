"""A streamed tool call's opening fragment, given the empty `arguments` OpenAI sends with it.

OpenAI opens each streamed call with `"function": {"name": "get_weather", "arguments": ""}`;
vLLM's opening fragment carries the name and no `arguments` key at all
(tests/vllm/captures/tool_named_stream.json, docs/compatibility.md). A client that types the
fragment's arguments as a string fails on vLLM's: guidance's stream handler raised a pydantic
ValidationError (`function.arguments` None) for every tool call routed local, where the same
client against OpenAI worked (found in the live review of Python libraries). So the relay
adds `"arguments": ""` to a fragment that names a function and has no `arguments`, and to
nothing else: arguments that came (even `null`, or an object) stay as the upstream sent them.
"""

from __future__ import annotations

from typing import Any


def give_empty_arguments(call: dict[str, Any]) -> bool:
    """Add `"arguments": ""` to the function of streamed tool-call fragment `call` when it
    names the function without any arguments; True when it did (the chunk then goes out
    rewritten)."""
    function = call.get("function")
    if type(function) is not dict or "arguments" in function or not function.get("name"):
        return False
    function["arguments"] = ""
    return True
