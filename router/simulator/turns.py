"""What the simulated model reads of a conversation besides its last user text: the tool
it called last, and what the system told it.

Both read every API's shapes at once, as `wire.last_user_text` does: chat's messages,
Anthropic's, and Responses' input items.
"""

from __future__ import annotations

import re
from typing import Any

from router.simulator import tokens

# smolagents (1.26) sends its own earlier calls back as the assistant's text, its results
# as user text ("Observation:"): `Calling tools:` and the calls as a Python list
_TEXT_CALLS = re.compile(r"\s*Calling tools:\s*\[")
_TEXT_NAME = re.compile(r"'name':\s*'([^'\\]{1,128})'")
_READ = 4096  # characters of a text turn read for the calls it says it made


def last_called(turns: list[Any]) -> str | None:
    """The name of the last tool the conversation shows the model calling, None if none.

    A model under a forced tool choice reads its own calls and their results and goes on
    to the next step; the simulator called the first tool again and again, and an agent
    whose answer is an output tool (pydantic-ai's `final_result`, smolagents'
    `final_answer`) never got it (`tool_calls.tool_call`)."""
    for turn in reversed(turns):
        if not isinstance(turn, dict):
            continue
        name = called(turn)
        if name is not None:
            return name
    return None


def called(turn: dict[str, Any]) -> str | None:
    """The last call one turn holds: chat's `tool_calls`, a Responses `function_call`
    item, Anthropic's `tool_use` blocks, or calls written out as text."""
    if turn.get("type") == "function_call":
        return _name(turn.get("name"))
    if turn.get("role") != "assistant":
        return None
    calls = turn.get("tool_calls")
    if isinstance(calls, list):
        for call in reversed(calls):
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(function, dict) and (name := _name(function.get("name"))):
                return name
    content = turn.get("content")
    if isinstance(content, list):
        for block in reversed(content):
            is_use = isinstance(block, dict) and block.get("type") == "tool_use"
            if is_use and (name := _name(block.get("name"))):
                return name
    return _written_call(tokens.content_text(content)[:_READ])


def _written_call(text: str) -> str | None:
    if not _TEXT_CALLS.match(text):
        return None
    names = _TEXT_NAME.findall(text)
    return names[-1] if names else None


def _name(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def system_text(turns: list[Any], *given: Any) -> str:
    """The system's text: the `system` and `developer` turns', after any given apart from
    the turns (Anthropic's `system`, Responses' `instructions`: a string or text blocks)."""
    parts = [tokens.content_text(part) for part in given]
    parts += [
        tokens.content_text(turn.get("content"))
        for turn in turns
        if isinstance(turn, dict) and turn.get("role") in ("system", "developer")
    ]
    return "\n\n".join(part for part in parts if part)
