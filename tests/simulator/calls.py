"""What the simulator's tool-call tests share: an openai SDK client of a simulator, a chat
tool of one required string field, and the one call a reply makes, read back."""

from __future__ import annotations

import json
from typing import Any

import openai

from router.simulator import SimThread


def client(sim: SimThread) -> openai.OpenAI:
    """The official openai SDK against `sim`, no retries (a refusal is seen, not retried)."""
    return openai.OpenAI(base_url=sim.url + "/v1", api_key="x", max_retries=0)


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
