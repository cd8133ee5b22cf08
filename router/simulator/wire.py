"""What every API adapter shares: the response identity (`Meta`), SSE frames, the contract."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import orjson

from router.simulator.errors import ApiError, Flavor
from router.simulator.generation import Ask, Generation

Frame = tuple[bytes, bool]
"""One SSE event and whether it carries a generated token (paced, and counted for faults)."""


@dataclass(frozen=True, slots=True)
class Meta:
    """Identity of one response: its id, creation time, echoed model and wire flavor."""

    id: str
    created: int
    model: str
    flavor: Flavor
    call_ids: tuple[str, ...] = ()


def sse(obj: Any) -> bytes:
    return b"data: " + orjson.dumps(obj) + b"\n\n"


def event(name: str, obj: Any) -> bytes:
    return b"event: " + name.encode() + b"\ndata: " + orjson.dumps(obj) + b"\n\n"


DONE: Frame = (b"data: [DONE]\n\n", False)


class Api(Protocol):
    """One generation endpoint's wire format: parse a body, shape the answer."""

    id_prefix: str
    call_prefix: str

    def flavor(self, profile: Flavor) -> Flavor: ...

    def parse(self, body: dict[str, Any], profile: Flavor) -> Ask: ...

    def body(self, meta: Meta, gen: Generation, ask: Ask) -> dict[str, Any]: ...

    def frames(self, meta: Meta, gen: Generation, ask: Ask) -> list[Frame]: ...


def bad_request(message: str, param: str | None = None) -> ApiError:
    return ApiError(400, "bad_request", message, param)


def int_field(body: dict[str, Any], name: str, minimum: int) -> int | None:
    """An optional integer field, validated like vLLM's pydantic request models do."""
    value = body.get(name)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise bad_request(f"{name} must be an integer >= {minimum}, got {value!r}.", name)
    return value
