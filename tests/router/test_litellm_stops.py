"""A litellm backend's answer that its upstream stopped, not finished.

litellm turns a finish reason it does not know into "stop": vLLM's "abort" and "error",
DeepSeek's "insufficient_system_resource". The client must get what a `kind: openai`
backend would give it: a whole reply falls back (else a 502 `upstream_cut`), a stream ends
in an error, never "stop". Real sockets: the router, litellm speaking OpenAI's chat
(`openai/...`) to a vLLM simulator and to a scripted upstream, the official SDKs.
"""

from __future__ import annotations

import json
import socketserver
from collections.abc import Iterator
from typing import Any

import anthropic
import openai
import pytest

from router.config import parse
from tests.harness import (
    INTENTS,
    Running,
    RunningRouter,
    collected,
    local_backend,
    openai_via_litellm,
    read_body,
    router,
    scrape,
    sdk,
    simulator,
    upstream,
)

# Reasons that say the answer was stopped, not finished, which litellm maps to "stop".
STOPPED = ("abort", "error", "insufficient_system_resource")


def _chunk(delta: dict[str, Any], reason: str | None = None) -> bytes:
    choice = {"index": 0, "delta": delta, "finish_reason": reason}
    data = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    return b"data: " + json.dumps({**data, "choices": [choice]}).encode() + b"\n\n"


class _Stops(socketserver.StreamRequestHandler):
    """An OpenAI-style upstream that answers "Here is" and then stops, its finish reason being
    the request's last message (so each test says which reason it wants)."""

    def handle(self) -> None:
        body = json.loads(read_body(self) or b"{}")
        reason = body["messages"][-1]["content"] if body.get("messages") else "stop"
        if body.get("stream"):
            events = [
                _chunk({"role": "assistant", "content": ""}),
                _chunk({"content": "Here is"}),
                _chunk({}, reason),
                b"data: [DONE]\n\n",
            ]
            head = (
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n"
            )
            self.wfile.write(head + b"".join(events))
            return
        message = {"role": "assistant", "content": "Here is"}
        reply = json.dumps(
            {
                "id": "c1",
                "object": "chat.completion",
                "created": 1,
                "model": "m",
                "choices": [{"index": 0, "message": message, "finish_reason": reason}],
                "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7},
            }
        ).encode()
        head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
        head += f"content-length: {len(reply)}\r\nconnection: close\r\n\r\n"
        self.wfile.write(head.encode() + reply)


@pytest.fixture(scope="module")
def stops(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Running, RunningRouter]]:
    """`scripted` (the upstream above) and `engine` (a vLLM simulator) through litellm, each
    with `local` behind it (routes `writing` and `coding`); no breaker, so a stopped answer
    on one test does not close a backend to the next."""
    with (
        upstream(_Stops, socketserver.ThreadingTCPServer) as scripted,
        simulator(profile="vllm", model="engine-model") as engine,
        simulator(profile="vllm", model="local-model") as local,
    ):
        routes = {i: ["engine", "local"] for i in INTENTS} | {"writing": ["scripted", "local"]}
        config = parse(
            {
                "backends": [
                    openai_via_litellm("scripted", scripted.url, "m"),
                    openai_via_litellm("engine", engine.url, "engine-model"),
                    local_backend(local),
                ],
                "routes": routes,
                "ledger": {"path": str(tmp_path_factory.mktemp("stops") / "ledger")},
                "resilience": {"enabled": False},
            }
        )
        with router(config) as proxy:
            yield engine, proxy


def fallbacks(proxy: Running, backend: str) -> float:
    found = scrape(proxy.root).get(
        "smf_router_fallbacks_total", from_backend=backend, to_backend="local", reason="cut"
    )
    return found or 0.0


@pytest.mark.parametrize("reason", STOPPED)
def test_a_stopped_whole_reply_falls_back(
    stops: tuple[Running, RunningRouter], reason: str
) -> None:
    """litellm made the reason "stop": the truncated "Here is" went to the client as a whole
    answer, recorded ok, never falling back (found in review)."""
    _, proxy = stops
    records = collected(proxy)
    before = fallbacks(proxy, "scripted")
    raw = sdk(proxy).chat.completions.with_raw_response.create(
        model="writing", messages=[{"role": "user", "content": reason}]
    )
    assert raw.headers["x-smf-backend"] == "local"
    assert raw.parse().choices[0].message.content
    record = records.wait(30)
    assert [(a.backend, a.error_kind) for a in record.attempts] == [
        ("scripted", "cut"),
        ("local", None),
    ]
    assert record.outcome == "ok" and record.backend == "local"
    assert fallbacks(proxy, "scripted") == before + 1


def test_a_stopped_whole_reply_with_nowhere_to_go_is_a_cut(
    stops: tuple[Running, RunningRouter],
) -> None:
    """As from a `kind: openai` backend: a 502 `upstream_cut`, not a complete-looking 200."""
    _, proxy = stops
    records = collected(proxy)
    with pytest.raises(openai.APIStatusError) as info:
        sdk(proxy).chat.completions.create(
            model="scripted", messages=[{"role": "user", "content": "abort"}]
        )
    assert info.value.status_code == 502
    assert isinstance(info.value.body, dict) and info.value.body["code"] == "upstream_cut"
    assert "abort" in info.value.message
    record = records.wait(30)
    assert (record.outcome, record.error_kind) == ("upstream_error", "cut")


@pytest.mark.parametrize("reason", STOPPED)
def test_a_stopped_stream_never_ends_with_stop(
    stops: tuple[Running, RunningRouter], reason: str
) -> None:
    """litellm raises for "abort" and "error" itself, but ended a DeepSeek stream that said
    "insufficient_system_resource" with "stop": the client took "Here is" for the answer."""
    _, proxy = stops
    records = collected(proxy)
    stream = sdk(proxy).chat.completions.create(
        model="scripted", messages=[{"role": "user", "content": reason}], stream=True
    )
    text, reasons = [], []
    with pytest.raises(openai.APIError):
        for chunk in stream:
            text.extend(c.delta.content or "" for c in chunk.choices)
            reasons.extend(c.finish_reason for c in chunk.choices if c.finish_reason)
    assert "".join(text) == "Here is" and reasons == []
    assert records.wait(30).outcome == "upstream_error"


def test_an_engine_abort_falls_back_from_a_whole_reply(
    stops: tuple[Running, RunningRouter],
) -> None:
    """The simulator's vLLM engine dropping the request, on the path of the review."""
    engine, proxy = stops
    records = collected(proxy)
    engine.control("faults", {"fault": "abort"})
    try:
        raw = sdk(proxy).chat.completions.with_raw_response.create(
            model="coding", messages=[{"role": "user", "content": "Write a Python function."}]
        )
    finally:
        engine.control("faults", {"fault": None})
    assert raw.headers["x-smf-backend"] == "local"
    assert records.wait(30).attempts[0].error_kind == "cut"


def test_an_engine_abort_is_no_end_turn_for_a_messages_client(
    stops: tuple[Running, RunningRouter],
) -> None:
    """Translated from chat for the litellm backend, the "stop" made a Messages reply that
    ended `end_turn`, which Claude Code takes for a finished turn."""
    engine, proxy = stops
    engine.control("faults", {"fault": "abort"})
    agent = anthropic.Anthropic(base_url=proxy.root, api_key="x", max_retries=0)
    try:
        with pytest.raises(anthropic.APIStatusError) as info:
            agent.messages.create(
                model="engine",
                max_tokens=100,
                messages=[{"role": "user", "content": "Write a Python function."}],
            )
    finally:
        engine.control("faults", {"fault": None})
    assert info.value.status_code == 502
