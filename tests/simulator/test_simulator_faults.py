"""Every fault, observed at the raw HTTP/TCP level with httpx (no SDK retries in the way)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from router.simulator import FAULTS, SimSettings, SimThread
from tests.harness import wait_until

MODEL = "tiny"


def body(stream: bool = False, model: str = MODEL, text: str = "Tell me a story") -> dict[str, Any]:
    out: dict[str, Any] = {"model": model, "messages": [{"role": "user", "content": text}]}
    return out | ({"stream": True} if stream else {})


HTTP = httpx.Client(trust_env=False)  # one client: building an SSL context per call is slow


def post(
    sim: SimThread, fault: str | None = None, timeout: float = 10, **kw: Any
) -> httpx.Response:
    headers = {"x-sim-fault": fault} if fault else {}
    return HTTP.post(
        sim.url + "/v1/chat/completions", json=body(**kw), headers=headers, timeout=timeout
    )


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


def test_rate_limit_with_and_without_retry_after(vllm: SimThread) -> None:
    with_header = post(vllm, "rate_limit:2")
    assert with_header.status_code == 429
    assert with_header.headers["retry-after"] == "2"
    assert with_header.json()["error"]["code"] == 429
    bare = post(vllm, "rate_limit_no_retry_after")
    assert bare.status_code == 429
    assert "retry-after" not in bare.headers


def test_server_errors_default_500_and_503_body(vllm: SimThread) -> None:
    default = post(vllm, "server_error")
    assert default.status_code == 500
    assert default.json()["error"]["type"] == "InternalServerError"
    overloaded = post(vllm, "server_error:503")
    assert overloaded.status_code == 503
    assert overloaded.json()["error"] == {  # vLLM 0.32's, past --max-num-queued-reqs
        "message": "The engine is currently busy and cannot accept new requests. "
        "Please try again later or on a different instance.",
        "type": "Service Unavailable",
        "param": None,
        "code": 503,
    }
    busy = post(vllm, "overloaded:7")  # the same reply, naming a wait
    assert (busy.status_code, busy.headers["retry-after"]) == (503, "7")
    assert busy.json() == overloaded.json()


@pytest.mark.parametrize("status", [529, 520])
def test_a_status_outside_the_standard_list_is_answered_not_a_simulator_bug(
    vllm: SimThread, status: int
) -> None:
    """`HTTPStatus(529)` raised while rendering the vllm profile's error: the client got
    `500 simulator bug` and the log a traceback (found in review)."""
    resp = post(vllm, f"server_error:{status}")
    assert resp.status_code == status
    assert resp.json()["error"]["code"] == status
    messages = {"model": MODEL, "max_tokens": 5, "messages": [{"role": "user", "content": "x"}]}
    headers = {"x-sim-fault": f"server_error:{status}"}
    on_messages = HTTP.post(vllm.url + "/v1/messages", json=messages, headers=headers)
    assert on_messages.status_code == status and on_messages.json()["type"] == "error"


def test_server_error_takes_only_a_5xx(start_sim: Callable[..., SimThread]) -> None:
    """`server_error:200` answered 200 OK with an error body; now it is refused wherever a
    fault is given, with a message naming the range."""
    sim = start_sim(profile="cloud")
    for refused in (post(sim, "server_error:200"), post(sim, model=MODEL + "+server_error:200")):
        assert refused.status_code == 400
        assert "500 to 599" in refused.json()["error"]["message"]
    control = HTTP.post(sim.url + "/sim/faults", json={"fault": "server_error:404"})
    assert control.status_code == 400
    with pytest.raises(ValueError, match="fault: server_error takes an HTTP status from 500"):
        SimSettings(fault="server_error:200")
    cli = subprocess.run(
        [sys.executable, "-m", "router.simulator", "--fault", "server_error:200"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert cli.returncode == 2
    assert "server_error takes an HTTP status from 500 to 599" in cli.stderr
    assert "Traceback" not in cli.stderr


def test_bad_request_is_a_400_that_is_not_a_context_error(vllm: SimThread) -> None:
    resp = post(vllm, "bad_request")
    assert resp.status_code == 400
    error = resp.json()["error"]
    assert (error["type"], error["code"]) == ("BadRequestError", 400)
    assert "context" not in error["message"]


def test_reset_is_a_tcp_rst_without_any_response(vllm: SimThread) -> None:
    with pytest.raises(httpx.ReadError) as info:
        post(vllm, "reset")
    assert "reset" in str(info.value).lower()


def test_no_response_never_answers(vllm: SimThread) -> None:
    with pytest.raises(httpx.ReadTimeout):
        post(vllm, "no_response", timeout=0.5)


def test_slow_first_token_delays_the_headers(vllm: SimThread) -> None:
    with pytest.raises(httpx.ReadTimeout):
        post(vllm, "slow_first_token:30", timeout=0.5)
    assert post(vllm, "slow_first_token:0.01").status_code == 200


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


def test_context_length_fault_gives_vllm_400(vllm: SimThread) -> None:
    resp = post(vllm, "context_length", stream=True)
    assert resp.status_code == 400
    error = resp.json()["error"]
    assert error["message"].startswith(
        "This model's maximum context length is 512 tokens. However, your prompt contains "
        "at least 513 input tokens"
    )
    assert (error["type"], error["param"], error["code"]) == (
        "BadRequestError",
        "input_tokens",
        400,
    )


def test_model_suffix_chooses_a_fault_and_the_header_wins(vllm: SimThread) -> None:
    assert post(vllm, model=MODEL + "+server_error:502").status_code == 502
    assert post(vllm, "rate_limit", model=MODEL + "+server_error:502").status_code == 429
    unknown = post(vllm, "explode")
    assert unknown.status_code == 400
    assert "known:" in unknown.json()["error"]["message"]


def refused(sim: SimThread) -> bool:
    try:
        HTTP.get(sim.url + "/health", timeout=2)
    except httpx.ConnectError:
        return True
    return False


def test_down_refuses_connections_then_comes_back(vllm: SimThread) -> None:
    control = HTTP.post(vllm.url + "/sim/faults", json={"down": True, "for_s": 0.5})
    assert control.status_code == 200
    assert refused(vllm)
    assert wait_until(lambda: not refused(vllm))
    vllm.set_down(True)
    assert refused(vllm)
    vllm.set_down(False)
    assert post(vllm).status_code == 200


def test_hold_keeps_requests_until_released_then_answers_them(vllm: SimThread) -> None:
    with ThreadPoolExecutor(2) as pool:
        pending = [pool.submit(post, vllm, "hold") for _ in range(2)]
        assert wait_until(lambda: HTTP.get(vllm.url + "/sim/stats").json()["held"] == 2)
        assert not any(p.done() for p in pending)
        assert HTTP.post(vllm.url + "/sim/release").json()["held"] == 0
        assert [p.result(timeout=10).status_code for p in pending] == [200, 200]
    assert post(vllm).status_code == 200  # only the requests that asked for it are held


def test_runtime_default_fault_rates_and_reset(start_sim: Callable[..., SimThread]) -> None:
    sim = start_sim(seed=3)
    HTTP.post(sim.url + "/sim/faults", json={"fault": "rate_limit:1"})
    assert post(sim).status_code == 429
    HTTP.post(sim.url + "/sim/faults", json={"fault": None, "rates": {"server_error": 0.5}})
    first = [post(sim).status_code for _ in range(30)]
    assert 0 < first.count(500) < 30
    stats = HTTP.get(sim.url + "/sim/stats").json()
    assert stats["by_fault"]["server_error"] == first.count(500)
    assert stats["by_path"]["/v1/chat/completions"] == 31
    again = start_sim(seed=3, fault_rates={"server_error": 0.5})
    assert [post(again).status_code for _ in range(30)] == first  # same seed, same draws
    HTTP.post(sim.url + "/sim/reset")
    assert post(sim).status_code == 200
    assert HTTP.get(sim.url + "/sim/stats").json()["requests"] == 1


def test_last_request_is_kept_only_when_asked(start_sim: Callable[..., SimThread]) -> None:
    quiet = start_sim()
    post(quiet)
    assert "last_request" not in HTTP.get(quiet.url + "/sim/stats").json()
    keeper = start_sim(keep_requests=1)
    HTTP.post(keeper.url + "/v1/chat/completions", json=body() | {"top_k": 5, "seed": 7})
    last = HTTP.get(keeper.url + "/sim/stats").json()["last_request"]
    assert (last["top_k"], last["seed"]) == (5, 7)


def test_every_fault_has_a_test_here() -> None:
    here = Path(__file__)
    others = ("other_servers", "tool_faults", "endless_event")  # by theme
    names = (here.name, *(f"test_simulator_{other}.py" for other in others))
    source = "".join(here.with_name(name).read_text() for name in names)
    assert all(f'"{name}' in source or f"+{name}" in source for name in FAULTS)


def test_bad_control_bodies_are_400(vllm: SimThread) -> None:
    assert HTTP.post(vllm.url + "/sim/faults", json={"fault": "nope"}).status_code == 400
    assert HTTP.post(vllm.url + "/sim/quality", json={"math": 3}).status_code == 400
    assert (
        HTTP.post(vllm.url + "/sim/faults", json={"rates": {"reset": 0.9, "down": 0.9}}).status_code
        == 400
    )
