"""Time to first token is taken at the first event that carries output, in every API."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from router.config import parse
from router.first_token import carries_output
from tests.harness import config_for, router, scrape, simulator
from tests.resilience.conftest import until

PREFILL_S = 0.5  # the simulator's wait between the stream's opening events and its first token
ASK = [{"role": "user", "content": "Say hello."}]
REQUESTS: dict[str, tuple[str, dict[str, Any]]] = {
    "chat": ("/chat/completions", {"messages": ASK}),
    "responses": ("/responses", {"input": "Say hello."}),
    "messages": ("/messages", {"messages": ASK, "max_tokens": 64}),
}


@pytest.mark.parametrize("api", sorted(REQUESTS))
def test_ttft_waits_for_the_first_token_not_the_opening_events(api: str, tmp_path: Path) -> None:
    """A native Responses or Messages stream opens with `response.created` / `message_start`
    before prefill ends: TTFT was taken there, a few milliseconds in, and the prefill went
    into the time per output token (found in review)."""
    fault = f"late_first_token:{PREFILL_S}"
    with simulator(profile="vllm", model="local-model", fault=fault) as sim:
        data = config_for({"local": sim}, tmp_path).model_dump(mode="json")
        data["backends"][0]["apis"] = ["chat", "completions", "responses", "messages"]
        with router(parse(data)) as proxy:
            path, body = REQUESTS[api]
            ask = {"model": "local", **body}
            # A whole reply first (not delayed): the first request's warm-up stays out of it.
            assert httpx.post(proxy.url + path, json=ask, timeout=30).status_code == 200
            until(lambda: len(ttft_sums(proxy.root)) == 1, what="the first TTFT observed")
            before = ttft_sums(proxy.root)[0]
            with httpx.stream("POST", proxy.url + path, json=ask | {"stream": True}) as reply:
                assert reply.status_code == 200
                reply.read()
            assert sim.completions("/v1" + path) == 2  # served natively, not translated
            until(lambda: ttft_sums(proxy.root)[0] > before, what="the stream's TTFT observed")
            assert ttft_sums(proxy.root)[0] - before >= PREFILL_S


def ttft_sums(root: str) -> list[float]:
    """The TTFT histogram's sums (one series here: one intent, one backend)."""
    samples = scrape(root).samples.items()
    return [v for (name, _), v in samples if name == "smf_router_time_to_first_token_seconds_sum"]


def _chunk(delta: dict[str, Any]) -> dict[str, Any]:
    return {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta}]}


@pytest.mark.parametrize(
    ("api", "event", "output"),
    [
        ("chat", _chunk({"role": "assistant", "content": ""}), False),  # vLLM's opening chunk
        ("chat", _chunk({"content": "Hel"}), True),
        ("chat", _chunk({"reasoning_content": "Let me"}), True),
        ("chat", _chunk({"tool_calls": [{"index": 0, "function": {"arguments": "{"}}]}), True),
        ("chat", {"choices": [], "usage": {"completion_tokens": 3}}, False),
        # the deprecated `functions` API's call, and an audio answer: a stream of these
        # never committed and was cut at first_token_s (found in review)
        ("chat", _chunk({"content": None, "function_call": {"name": "f", "arguments": ""}}), True),
        ("chat", _chunk({"audio": {"id": "a", "data": "UklG"}}), True),
        ("completions", {"object": "text_completion", "choices": [{"text": "Hi"}]}, True),
        ("responses", {"type": "response.created", "sequence_number": 0}, False),
        ("responses", {"type": "response.output_item.added", "sequence_number": 2}, False),
        ("responses", {"type": "response.reasoning_text.delta", "delta": "Let"}, True),
        ("responses", {"type": "response.output_text.delta", "delta": "Hi"}, True),
        ("responses", {"type": "response.function_call_arguments.delta", "delta": "{"}, True),
        ("messages", {"type": "message_start", "message": {}}, False),
        ("messages", {"type": "content_block_start", "index": 0}, False),
        ("messages", {"type": "ping"}, False),
        ("messages", {"type": "content_block_delta", "delta": {"type": "thinking_delta"}}, True),
        ("messages", {"type": "content_block_delta", "delta": {"type": "text_delta"}}, True),
    ],
)
def test_which_events_carry_output(api: Any, event: dict[str, Any], output: bool) -> None:
    assert carries_output(api, event) is output


def test_a_translated_messages_streams_ping_is_its_models_reasoning() -> None:
    """The Messages translator sends a ping for a chat backend's reasoning, which it does not
    show, and for nothing else: that ping is the first output, as reasoning is on chat (the
    stream committed only at the answer's first text, minutes later, with its TTFT). A native
    server's pings come before the model works, a request waiting in its queue included."""
    ping = {"type": "ping"}
    assert carries_output("messages", ping, translated=True)
    assert not carries_output("messages", ping, translated=False)
    assert not carries_output("messages", {"type": "message_start"}, translated=True)
    assert not carries_output("responses", ping, translated=True)
