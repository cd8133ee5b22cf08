"""Every fault of the status, the connection and the controls, observed at the raw HTTP/TCP
level with httpx (no SDK retries in the way). The faults of a stream under way, read event by
event, are `test_simulator_stream_faults.py`'s; that every fault has a test is checked here."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from router.simulator import FAULTS, SimSettings, SimThread
from tests.harness import wait_until
from tests.simulator.fault_requests import HTTP, MODEL, body, post


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
        HTTP.get(sim.url + "/health", timeout=10)  # refused at once when down
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


def test_a_release_may_name_the_fault_the_held_requests_then_meet(vllm: SimThread) -> None:
    """A backend that takes its time, then refuses when the test says: the answer comes
    after whatever the test did meanwhile (a router reloaded while the request waited)."""
    with ThreadPoolExecutor(1) as pool:
        pending = pool.submit(post, vllm, "hold")
        assert wait_until(lambda: HTTP.get(vllm.url + "/sim/stats").json()["held"] == 1)
        again = HTTP.post(vllm.url + "/sim/release", json={"fault": "hold"})
        assert again.status_code == 400  # held again, it would wait for nothing
        released = HTTP.post(vllm.url + "/sim/release", json={"fault": "rate_limit:600"})
        assert released.json()["held"] == 0
        refused = pending.result(timeout=10)
    assert (refused.status_code, refused.headers["retry-after"]) == (429, "600")
    assert HTTP.get(vllm.url + "/sim/stats").json()["by_fault"] == {"hold": 1, "rate_limit": 1}


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
    others = ("stream_faults", "other_servers", "tool_faults", "endless_event")  # by theme
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
