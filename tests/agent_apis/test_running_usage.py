"""A running usage (vLLM's `stream_options.continuous_usage_stats`: usage on every chunk) is
not the answer's count until the answer finished.

Found in review: the last running count of a stream cut mid-answer was recorded as the final
one (`tokens_estimated` false), so the ledger skipped the larger-of-it-and-the-estimate
fallback a cut stream gets, and undercounted what was generated.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import orjson
import pytest

from router.relay import Tally
from router.translate import anthropic_reply, responses_reply
from tests.agent_apis.agent_stack import stack
from tests.agent_apis.chat_chunks import USAGE, chunk
from tests.harness import Collect, Running, RunningRouter


def running(completion: int) -> dict[str, int]:
    return {"prompt_tokens": 40, "completion_tokens": completion, "total_tokens": 40 + completion}


# the answer's chunks as vLLM sends them with continuous_usage_stats, up to its finish reason
RUNNING = [
    chunk({"role": "assistant", "content": ""}, usage=running(0)),
    chunk({"content": "Hello"}, usage=running(1)),
    chunk({"content": " world"}, usage=running(2)),
]
FINISH = chunk({}, "stop", usage=running(3))
USAGE_CHUNK = {**chunk({}), "choices": [], "usage": USAGE}


def translators() -> list[Any]:
    return [responses_reply.ResponsesStream({"model": "m"}), anthropic_reply.MessagesStream(10)]


@pytest.mark.parametrize("stream", translators(), ids=["responses", "messages"])
def test_a_translated_streams_running_usage_cut_mid_answer_is_no_final_count(
    stream: Any,
) -> None:
    for c in RUNNING:
        stream.feed(c)
    assert stream.answering  # the connection drops here: no finish reason, no usage chunk
    assert stream.upstream_usage["output_tokens"] == 2  # the exact prompt count is kept,
    assert stream.usage_estimated  # but the output's is not final: the gateway estimates


@pytest.mark.parametrize(
    ("tail", "final"),
    [([FINISH], running(3)), ([FINISH, USAGE_CHUNK], USAGE), ([USAGE_CHUNK], USAGE)],
    ids=["finish-chunk", "then-usage-chunk", "usage-chunk"],
)
def test_a_translated_streams_usage_with_its_finish_or_after_it_is_final(
    tail: list[dict[str, Any]], final: dict[str, Any]
) -> None:
    for stream in translators():
        for c in RUNNING + tail:
            stream.feed(c)
        assert stream.upstream_usage is not None and not stream.usage_estimated
        assert stream.upstream_usage["output_tokens"] == final["completion_tokens"]


def test_a_chat_streams_running_usage_is_final_only_once_every_choice_ended() -> None:
    tally = Tally()
    for c in RUNNING:
        tally.see(c)
    assert tally.usage == running(2) and not tally.usage_final
    tally.see(FINISH)  # the count that came with the finish reason is the whole answer's
    assert tally.usage == running(3) and tally.usage_final
    two = Tally()
    two.see({**chunk({"content": "a"}), "choices": [{"index": 1, "delta": {"content": "b"}}]})
    two.see({**chunk({}, "stop"), "usage": running(2)})  # choice 1 is still open
    assert not two.usage_final
    two.see(USAGE_CHUNK)
    assert two.usage == USAGE and two.usage_final
    both = Tally()  # each choice's last chunk with its own running count, both finished
    both.see({**chunk({}, "stop"), "usage": running(2)})
    both.see({**chunk({}), "choices": [{"index": 1, "delta": {}, "finish_reason": "stop"}]})
    both.see({**chunk({}), "choices": [{"index": 1, "delta": {}}], "usage": running(2)})
    assert not both.open_choices and not both.usage_final  # one choice's count alone
    both.see(USAGE_CHUNK)
    assert both.usage == USAGE and both.usage_final


@pytest.fixture(scope="module")
def proxy(
    servers: dict[str, Running], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningRouter]:
    """The router with every route on `local` (vLLM's profile): chat passes through."""
    with stack(servers, tmp_path_factory.mktemp("running_usage"), ["local"]) as running:
        yield running


ASK = {
    "model": "local",
    "stream": True,
    "max_tokens": 40,
    "stream_options": {"include_usage": True, "continuous_usage_stats": True},
    "messages": [{"role": "user", "content": "Write a long essay about the sea."}],
}


def chunks(url: str, model: str = "local") -> list[dict[str, Any]]:
    """The JSON chunks of a chat stream (up to where it broke off)."""
    out: list[dict[str, Any]] = []
    body = ASK | {"model": model}
    try:
        with httpx.stream("POST", url, json=body, timeout=10, trust_env=False) as response:
            for line in response.iter_lines():
                if line.startswith("data: {"):
                    out.append(orjson.loads(line[6:]))
    except httpx.HTTPError:  # the simulator's cut
        pass
    return out


def test_the_simulator_sends_vllms_running_usage_on_every_chunk(
    servers: dict[str, Running],
) -> None:
    sent = chunks(servers["local"].url + "/chat/completions", "local-model")
    counts = [c["usage"]["completion_tokens"] for c in sent]
    assert counts[0] == 0 and counts == sorted(counts)
    assert sent[-1]["choices"] == [] and counts[-2] == counts[-1] > 1  # the usage chunk


@pytest.mark.parametrize("cut", [False, True])
def test_a_chat_stream_cut_after_running_usage_is_recorded_as_estimated(
    proxy: RunningRouter, servers: dict[str, Running], cut: bool
) -> None:
    records = Collect()
    proxy.components.gateway.sinks.append(records)
    if cut:
        servers["local"].control("faults", {"fault": "cut_stream"})
    try:
        sent = chunks(proxy.url + "/chat/completions")
        record = records.wait(30)
    finally:
        servers["local"].control("faults", {"fault": None})
        proxy.components.gateway.sinks.remove(records)
    last = [c["usage"] for c in sent if c.get("usage")][-1]
    assert record.usage.prompt_tokens == last["prompt_tokens"]
    if cut:  # the ledger's `tokens_estimated`: at least the last running count
        assert record.outcome == "upstream_error" and record.usage.estimated
        assert record.usage.completion_tokens >= last["completion_tokens"]
    else:
        assert record.outcome == "ok" and not record.usage.estimated
        assert record.usage.completion_tokens == last["completion_tokens"]
