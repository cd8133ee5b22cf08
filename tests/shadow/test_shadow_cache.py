"""A Messages request replayed on a litellm Anthropic backend keeps its cache breakpoints, as
the live request does (`exchange.send`): the replay translated it without them, so every
shadowed Claude Code turn paid its whole prompt (found in review)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import orjson

from router.backends.base import Reply as BackendReply
from router.comparison import Reply
from router.config import Backend, parse
from router.record import Record, Usage
from router.shadow import Shadow
from router.shadow_row import Job
from tests.harness import Running, config_for

MARK = {"type": "ephemeral"}
TURN = {
    "model": "auto",
    "max_tokens": 20,
    "system": [{"type": "text", "text": "A long system prompt.", "cache_control": MARK}],
    "messages": [{"role": "user", "content": "What is 1234 + 4321?"}],
}
ANSWER = b'{"choices":[{"index":0,"message":{"role":"assistant","content":"5555"}}]}'


class Anthropic:
    """A litellm backend whose provider is Anthropic (a plain `claude-…` model litellm
    knows); keeps what it was asked."""

    def __init__(self) -> None:
        self.settings = Backend.model_validate(
            {"name": "claude", "tier": "cloud", "kind": "litellm", "model": "claude-sonnet-4-5"}
        )
        self.asked: list[dict[str, Any]] = []

    async def send(self, api: str, body: dict[str, Any], *_: Any) -> BackendReply:
        self.asked.append(body)
        return BackendReply(200, {}, body=ANSWER)


def test_a_replayed_messages_turn_keeps_its_cache_breakpoints(tmp_path: Path) -> None:
    nowhere = Running("http://127.0.0.1:9/v1", "http://127.0.0.1:9")
    target = Anthropic()
    data = config_for({"local": nowhere, "cloud": nowhere}, tmp_path).model_dump(mode="json")
    claude = target.settings.model_dump(mode="json")  # configured, as a router's target is
    config = parse({**data, "backends": [*data["backends"], claude]})
    sink = Shadow(config, {"claude": target})
    record = Record(
        "r1", 0.0, intent="math", route="math", backend="cloud", tier="cloud", usage=Usage(1, 1)
    )
    job = Job(record, orjson.dumps(TURN), Reply("5555"), "claude", "messages")
    asyncio.run(sink.replay(job))
    (asked,) = target.asked
    assert asked["messages"][0]["content"] == [
        {"type": "text", "text": "A long system prompt.", "cache_control": MARK}
    ]
