"""Haystack's retrieval side calls are read and keyed by the user's query inside them
(`classifier.haystack`).

Haystack 3.4.1's `LLMRanker` asks a chat generator to rank a retriever's documents for a query,
its `QueryExpander` to expand a query into others: each its prompt as the request's one user
message. Read whole, the ranker was coding 0.81-0.92 for any query ("Why is the sky blue?"
among them: local, where the query alone goes to the cloud) and the expander instruction
0.30-0.54 (found in a review of agent frameworks). The bodies are the ones it sent
(`tests/fixtures/haystack-ai-3.4.1.md`), over chat completions (`OpenAIChatGenerator`) and over
the Responses API (their default `OpenAIResponsesChatGenerator`); real sockets, the official
SDK, the simulators as backends.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.agent_apis.agent_stack import streamed_headers
from tests.agent_apis.served import served, served_as_read
from tests.harness import Collect, RunningRouter

FIXTURES = Path(__file__).parents[1] / "fixtures" / "haystack-ai-3.4.1"
# Each query, and where it goes by the default routes
QUERIES = {
    "code": ("Fix the bug in the add function in utils.py", ("coding", "local")),
    "sky": ("Why is the sky blue?", ("reasoning", "cloud")),
    "math": ("Compute 17 * 23", ("math", "cloud")),
    "haiku": ("Write a haiku about autumn leaves", ("prose", "cloud")),
    "responses": ("Why is the sky blue?", ("reasoning", "cloud")),
}
SIDE_CALLS = [(kind, name) for kind in ("ranker", "expander") for name in QUERIES]


def captured(name: str) -> dict[str, Any]:
    """The body as sent, but for its model: the default generator asks for "gpt-4.1-mini",
    which the router serves as `auto`."""
    return {**json.loads((FIXTURES / name).read_text(encoding="utf-8")), "model": "auto"}


@pytest.fixture(scope="module")
def proxy(default_proxy: RunningRouter) -> RunningRouter:
    """The router over a vLLM `local` and a `cloud`, the default routes."""
    return default_proxy


@pytest.mark.parametrize(("kind", "name"), SIDE_CALLS)
def test_a_side_call_is_read_and_served_as_its_query(
    proxy: RunningRouter, kind: str, name: str
) -> None:
    query, where = QUERIES[name]
    served_as_read(proxy, captured(f"{kind}-{name}.json"), query, where)
    alone = {"model": "auto", "messages": [{"role": "user", "content": query}]}
    assert served(proxy, alone) == where


def test_a_querys_ranking_and_expansion_are_one_conversation(proxy: RunningRouter) -> None:
    """The ranker's and the expander's requests for "Why is the sky blue?", over chat
    completions: one conversation in the router's records; a chat asking the query, another."""
    records = Collect()
    proxy.components.gateway.sinks.append(records)
    try:
        bodies = [captured(f"{kind}-sky.json") for kind in ("ranker", "expander")]
        bodies.append(
            {"model": "auto", "messages": [{"role": "user", "content": QUERIES["sky"][0]}]}
        )
        keys = []
        for body in bodies:
            streamed_headers(proxy, records, body)
            keys.append(records.records[-1].conversation)
    finally:
        proxy.components.gateway.sinks.remove(records)
    assert keys[0] == keys[1] and keys[0] is not None
    assert keys[2] != keys[0]
