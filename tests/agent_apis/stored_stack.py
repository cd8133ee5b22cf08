"""A router whose `cloud` speaks chat only, so the router makes its Responses and keeps what
it made (`router.stored_items`), over simulators seeded apart: what the tests of
`item_reference` and of `previous_response_id` over chat share, and the simulators and
backends of the tests of responses the backends store themselves."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import openai

from classifier.intent import INTENTS
from router.config import hash_key
from tests.harness import Running, RunningRouter, simulator

WEATHER = "What's the weather in Paris?"
TOOLS: Any = [
    {
        "type": "function",
        "name": "weather",
        "description": "Get the weather in a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    }
]
TIMEOUTS = {"connect_s": 2, "first_token_s": 5, "idle_s": 5, "total_s": 20}
CALLERS = {"alice": "key-a", "bob": "key-b"}


@contextmanager
def seeded(seed: int) -> Iterator[dict[str, Running]]:
    """`local` (vLLM) and `cloud`, seeds of their own: one seed gives both the same ids, in
    the same order."""
    with (
        simulator(profile="vllm", model="local-model", seed=seed) as local,
        simulator(profile="cloud", model="cloud-model", seed=seed + 1) as cloud,
    ):
        yield {"local": local, "cloud": cloud}


def backends(servers: dict[str, Running], apis: dict[str, list[str]]) -> list[dict[str, Any]]:
    """Each server a backend named for it, of the tier of that name, speaking `apis[name]`,
    with the deadlines of `TIMEOUTS`."""
    return [
        {
            "name": name,
            "tier": name,
            "base_url": server.url,
            "model": f"{name}-model",
            "apis": apis[name],
            "timeouts": TIMEOUTS,
        }
        for name, server in servers.items()
    ]


def config(
    servers: dict[str, Running],
    tmp: Path,
    local_apis: list[str],
    keys: bool = True,
    entries: int = 50_000,
) -> dict[str, Any]:
    """`cloud` speaks chat only (the router makes its Responses); `local` speaks
    `local_apis`; every route tries cloud first; with `keys`, two callers, each with one."""
    data: dict[str, Any] = {
        "backends": backends(servers, {"local": local_apis, "cloud": ["chat"]}),
        "routes": {intent: ["cloud", "local"] for intent in INTENTS},
        "ledger": {"path": str(tmp / "ledger")},
        "resilience": {"enabled": False, "sticky_max_entries": entries},
    }
    if keys:
        callers = [{"name": name, "sha256": hash_key(key)} for name, key in CALLERS.items()]
        data["auth"] = {"keys": callers}
    return data


def client(proxy: RunningRouter, caller: str = "alice") -> openai.OpenAI:
    return openai.OpenAI(base_url=proxy.url, api_key=CALLERS[caller], max_retries=0)


def received(server: Running) -> dict[str, Any]:
    """The body `server` was sent last."""
    body: dict[str, Any] = server.stats()["last_request"]
    return body
