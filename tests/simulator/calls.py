"""What the simulator's tests through the openai SDK share: a client of a simulator, the text
of its chat answer, a chat tool of one required string field, and the one call a reply
makes, read back."""

from __future__ import annotations

import json
from typing import Any

import openai

from router.simulator import SimThread


def client(sim: SimThread) -> openai.OpenAI:
    """The official openai SDK against `sim`, no retries (a refusal is seen, not retried)."""
    return openai.OpenAI(base_url=sim.url + "/v1", api_key="x", max_retries=0)


def said(sim: SimThread, ask: str | list[dict[str, Any]], **fields: Any) -> str:
    """The text of `sim`'s chat answer to `ask` (a string: one user turn; else the
    messages), with the request's other `fields`."""
    messages = [{"role": "user", "content": ask}] if isinstance(ask, str) else ask
    reply = client(sim).chat.completions.create(model="tiny", messages=messages, **fields)
    return reply.choices[0].message.content or ""


def no_sum(text: str) -> bool:
    """Whether an answer works no sum: no `Computing` line, no `\\boxed` result."""
    return "boxed" not in text and "Computing" not in text


def string_tool(name: str, field: str, description: str | None = None) -> dict[str, Any]:
    """A chat tool of one required string `field` (with `description` where given), as
    Langflow's StructuredTools send theirs."""
    spec: dict[str, Any] = {"type": "string"}
    if description is not None:
        spec["description"] = description
    parameters = {"type": "object", "properties": {field: spec}, "required": [field]}
    return {"type": "function", "function": {"name": name, "parameters": parameters}}


def only_call(reply: Any) -> tuple[str, dict[str, Any]]:
    """The name and parsed arguments of the one tool call of a chat completion `reply`
    (fails where it makes none or several)."""
    (call,) = reply.choices[0].message.tool_calls or []
    return call.function.name, json.loads(call.function.arguments)
