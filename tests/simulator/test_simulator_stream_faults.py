"""The faults of a stream once its 200 went out, observed at the raw HTTP level with httpx:
queued, stalled, cut, malformed, ended early or in-band with an error.

Apart from `test_simulator_faults.py` (faults in the status, the connection and the
controls) because each of these reads the body event by event.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest

from router.simulator import SimThread
from tests.simulator.fault_requests import HTTP, body, post


@contextmanager
def stream(sim: SimThread, fault: str, read_timeout: float = 10) -> Iterator[httpx.Response]:
    """A streamed chat with `fault` injected (closed when the block ends)."""
    timeout = httpx.Timeout(10, read=read_timeout)
    with httpx.stream(
        "POST",
        sim.url + "/v1/chat/completions",
        json=body(stream=True),
        headers={"x-sim-fault": fault},
        timeout=timeout,
    ) as resp:
        yield resp


def data_lines(sim: SimThread, fault: str, read_timeout: float = 10) -> list[str]:
    """Stream a chat and return its `data:` payloads (raises what httpx raises)."""
    with stream(sim, fault, read_timeout) as resp:
        assert resp.status_code == 200
        return [line[6:] for line in resp.iter_lines() if line.startswith("data: ")]


def test_queued_sends_headers_and_comments_then_the_stream(vllm: SimThread) -> None:
    """What a queued vLLM or a busy cloud does: the 200 at once, keep-alive comments, then
    the events; a client that leaves meanwhile is counted as abandoned."""
    with stream(vllm, "queued:0.6") as resp:
        assert resp.status_code == 200
        lines = [line for line in resp.iter_lines() if line]
    first_data = next(i for i, line in enumerate(lines) if line.startswith("data: "))
    assert first_data >= 2 and all(line == ": queued" for line in lines[:first_data])
    assert lines[-1] == "data: [DONE]"
    before = HTTP.get(vllm.url + "/sim/stats").json()["abandoned"]
    with stream(vllm, "queued:5") as resp:
        next(resp.iter_lines())  # the first comment, then the client closes
    for _ in range(40):
        if HTTP.get(vllm.url + "/sim/stats").json()["abandoned"] > before:
            break
        time.sleep(0.05)
    assert HTTP.get(vllm.url + "/sim/stats").json()["abandoned"] == before + 1


def events_until_silent(sim: SimThread, fault: str) -> list[dict[str, Any]]:
    """The streamed chat events sent before `fault` made the server go quiet for 0.5 s."""
    received: list[str] = []
    with (
        pytest.raises(httpx.ReadTimeout),
        httpx.stream(
            "POST",
            sim.url + "/v1/chat/completions",
            json=body(stream=True),
            headers={"x-sim-fault": fault},
            timeout=httpx.Timeout(10, read=0.5),
        ) as resp,
    ):
        received.extend(resp.iter_lines())
    return [json.loads(line[6:]) for line in received if line.startswith("data: ")]


def test_stall_goes_silent_after_two_tokens(vllm: SimThread) -> None:
    events = events_until_silent(vllm, "stall:30")
    contents = [e["choices"][0]["delta"].get("content") for e in events]
    assert contents[0] == ""  # the role chunk
    assert len([c for c in contents[1:] if c]) == 2


def test_late_first_token_sends_the_opening_events_then_waits(vllm: SimThread) -> None:
    """A server that opens its stream before prefill ends (Anthropic, vLLM's Responses):
    the opening events go out at once, the first token only after the wait."""
    events = events_until_silent(vllm, "late_first_token:30")
    assert [e["choices"][0]["delta"] for e in events] == [{"role": "assistant", "content": ""}]
    assert data_lines(vllm, "late_first_token:0.01")[-1] == "[DONE]"
    assert post(vllm, "late_first_token:30").status_code == 200  # a whole reply: no wait


def test_thinking_streams_reasoning_before_the_answer(vllm: SimThread) -> None:
    """vLLM with a reasoning parser: `reasoning` deltas (the name vLLM gives it since 2026,
    FACTS.md), shaped like the stream's own chunks, for the given time, then the answer as
    usual."""
    payloads = data_lines(vllm, "thinking:0.6")
    chunks = [json.loads(p) for p in payloads if p != "[DONE]"]
    deltas = [c["choices"][0]["delta"] for c in chunks if c["choices"]]
    thoughts = [d for d in deltas if "reasoning" in d]
    assert deltas[0] == {"role": "assistant", "content": ""} and len(thoughts) >= 2
    assert not any("reasoning_content" in d for d in deltas)
    first_thought = deltas.index(thoughts[0])
    assert all("reasoning" not in d for d in deltas[first_thought + len(thoughts) :])
    assert any(d.get("content") for d in deltas[first_thought + len(thoughts) :])
    assert {c["id"] for c in chunks} == {chunks[0]["id"]} and payloads[-1] == "[DONE]"


def test_cut_stream_closes_mid_body(vllm: SimThread) -> None:
    with pytest.raises(httpx.RemoteProtocolError):
        data_lines(vllm, "cut_stream")
    with pytest.raises(httpx.RemoteProtocolError):
        post(vllm, "cut_stream")


def test_malformed_chunk_is_a_data_line_that_is_not_json(vllm: SimThread) -> None:
    lines = data_lines(vllm, "malformed_chunk")
    broken = []
    for line in lines[:-1]:
        try:
            json.loads(line)
        except ValueError:
            broken.append(line)
    assert len(broken) == 1
    assert lines[-1] == "[DONE]"


def test_missing_done_ends_cleanly_without_it(vllm: SimThread) -> None:
    lines = data_lines(vllm, "missing_done")
    assert "[DONE]" not in lines
    assert json.loads(lines[-1])["choices"][0]["finish_reason"] == "stop"


def test_cut_before_done_closes_mid_body_after_the_usage_chunk(vllm: SimThread) -> None:
    """The answer and its usage came; the connection drops where [DONE] was due."""
    asked = body(stream=True) | {"stream_options": {"include_usage": True}}
    lines: list[str] = []
    with (
        pytest.raises(httpx.RemoteProtocolError),
        HTTP.stream(
            "POST",
            vllm.url + "/v1/chat/completions",
            json=asked,
            headers={"x-sim-fault": "cut_before_done"},
            timeout=10,
        ) as resp,
    ):
        lines += (line[6:] for line in resp.iter_lines() if line.startswith("data: "))
    assert "[DONE]" not in lines
    assert json.loads(lines[-1])["usage"]["completion_tokens"] > 0


def test_no_usage_leaves_usage_out_even_when_asked_for(vllm: SimThread) -> None:
    """A server that ignores `stream_options` (and one whose whole reply has no usage)."""
    asked = body(stream=True) | {"stream_options": {"include_usage": True}}
    headers = {"x-sim-fault": "no_usage"}
    url = vllm.url + "/v1/chat/completions"
    with httpx.stream("POST", url, json=asked, headers=headers, timeout=10) as resp:
        lines = [line[6:] for line in resp.iter_lines() if line.startswith("data: ")]
    assert lines[-1] == "[DONE]" and all("usage" not in json.loads(x) for x in lines[:-1])
    whole = post(vllm, "no_usage").json()
    assert "usage" not in whole and whole["choices"][0]["finish_reason"] == "stop"


def test_abort_ends_the_answer_early_with_finish_reason_abort_then_done(vllm: SimThread) -> None:
    """vLLM's engine dropping a request (shutdown, sleep, scale-down): issue #57082."""
    lines = data_lines(vllm, "abort:3")
    assert lines[-1] == "[DONE]"
    chunks = [json.loads(line)["choices"][0] for line in lines[:-1]]
    assert chunks[-1]["finish_reason"] == "abort" and chunks[-1]["delta"] == {"content": ""}
    assert len([c for c in chunks if c["delta"].get("content")]) == 3
    assert all(c["finish_reason"] is None for c in chunks[:-1])
    whole = post(vllm, "abort").json()
    assert (
        whole["choices"][0]["finish_reason"] == "abort" and whole["usage"]["completion_tokens"] == 2
    )
    scraped = HTTP.get(vllm.url + "/metrics").text.splitlines()
    counted = [line for line in scraped if 'finished_reason="abort"' in line]
    assert [float(line.rpartition(" ")[2]) for line in counted] == [2.0]  # as vLLM counts it


def test_error_event_fails_the_stream_in_band_as_vllm_does(vllm: SimThread) -> None:
    lines = data_lines(vllm, "error_event")
    assert lines[-1] == "[DONE]"  # vLLM still ends the stream after its error line
    error = json.loads(lines[-2])["error"]
    assert error["code"] == 500 and error["type"] == "InternalServerError"
    tokens = [json.loads(line)["choices"][0]["delta"].get("content") for line in lines[:-2]]
    assert len([t for t in tokens if t]) == 2
    first = data_lines(vllm, "error_event:0")
    assert len(first) == 2 and "error" in json.loads(first[0])
    assert post(vllm, "error_event").status_code == 500  # a whole reply gets its 500
    limited = json.loads(data_lines(vllm, "error_event:2:429")[-2])["error"]
    assert limited["code"] == 429 and limited["type"] == "TooManyRequestsError"
    assert post(vllm, "error_event:2:503").status_code == 503
