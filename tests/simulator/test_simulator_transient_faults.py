"""A transient runtime fault, `POST /sim/faults {"fault": ..., "times": N}`: the next N
generation requests meet it, then the default before it applies again. Over real HTTP
to a simulator on 127.0.0.1, httpx and no SDK (no retry hides what the simulator did).
A `POST /sim/faults` body with a bad field, `times` or another, changes nothing."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from router.simulator import SimThread
from tests.simulator.fault_requests import HTTP, MODEL, post


def faults(sim: SimThread, **body: Any) -> dict[str, Any]:
    answer = HTTP.post(sim.url + "/sim/faults", json=body, timeout=10)
    assert answer.status_code == 200, answer.text
    result: dict[str, Any] = answer.json()
    return result


def test_the_next_n_requests_fail_then_the_earlier_default_returns(
    start_sim: Callable[..., SimThread],
) -> None:
    """Two 500s, then the default set before (a 429) again; health, models and a request
    naming its own fault take none of the two."""
    sim = start_sim(profile="vllm")
    faults(sim, fault="rate_limit:7")
    state = faults(sim, fault="server_error", times=2)
    assert (state["fault"], state["transient"]) == (
        "rate_limit:7",
        {"fault": "server_error", "left": 2},
    )
    assert HTTP.get(sim.url + "/health").status_code == 200
    assert HTTP.get(sim.url + "/v1/models").status_code == 200
    assert post(sim, "bad_request").status_code == 400  # its own fault: not one of the two
    assert post(sim, model=MODEL + "+overloaded").status_code == 503  # likewise
    assert post(sim, model="another-model").status_code == 404  # refused before the choice
    assert post(sim).status_code == 500
    assert HTTP.get(sim.url + "/sim/stats").json()["transient"]["left"] == 1
    assert post(sim, stream=True).status_code == 500
    assert HTTP.get(sim.url + "/sim/stats").json()["transient"] is None
    after = post(sim)
    assert (after.status_code, after.headers["retry-after"]) == (429, "7")
    faults(sim, fault=None)
    assert post(sim).status_code == 200


def test_a_transient_fault_without_a_default_then_serves_as_usual(
    start_sim: Callable[..., SimThread],
) -> None:
    sim = start_sim()
    assert faults(sim, fault="cut_stream", times=1)["fault"] is None
    with pytest.raises(httpx.RemoteProtocolError):  # the connection closed mid-body
        post(sim, stream=True)
    assert "[DONE]" in post(sim, stream=True).text
    assert HTTP.get(sim.url + "/sim/stats").json()["by_fault"] == {"cut_stream": 1}


def test_exactly_n_of_concurrent_requests_meet_the_fault(
    start_sim: Callable[..., SimThread],
) -> None:
    sim = start_sim()
    faults(sim, fault="rate_limit:1", times=5)
    with ThreadPoolExecutor(20) as pool:
        statuses = list(pool.map(lambda _: post(sim).status_code, range(20)))
    assert sorted(statuses) == [200] * 15 + [429] * 5
    stats = HTTP.get(sim.url + "/sim/stats").json()
    assert (stats["by_fault"], stats["transient"]) == ({"rate_limit": 5}, None)


def test_a_fault_without_times_or_a_reset_drops_a_pending_transient_one(
    start_sim: Callable[..., SimThread],
) -> None:
    sim = start_sim()
    faults(sim, fault="server_error", times=3)
    assert faults(sim, rates={})["transient"] == {"fault": "server_error", "left": 3}  # kept
    assert faults(sim, fault=None)["transient"] is None
    assert post(sim).status_code == 200
    faults(sim, fault="server_error", times=3)
    assert HTTP.post(sim.url + "/sim/reset").json()["transient"] is None
    assert post(sim).status_code == 200


@pytest.mark.parametrize(
    "body",
    [
        {"fault": "server_error", "times": 0},
        {"fault": "server_error", "times": -1},
        {"fault": "server_error", "times": 1.5},
        {"fault": "server_error", "times": 2.0},
        {"fault": "server_error", "times": "2"},
        {"fault": "server_error", "times": True},
        {"fault": None, "times": 1},
        {"times": 1},
    ],
    ids=["zero", "negative", "fraction", "float", "string", "bool", "null-fault", "no-fault"],
)
def test_a_bad_times_is_a_400_naming_it(start_sim: Callable[..., SimThread], body: Any) -> None:
    sim = start_sim()
    refused = HTTP.post(sim.url + "/sim/faults", json=body, timeout=10)
    assert refused.status_code == 400
    assert "times" in refused.json()["error"]["message"]
    state = HTTP.get(sim.url + "/sim/stats").json()
    assert (state["fault"], state["transient"]) == (None, None)  # nothing was applied
    assert post(sim).status_code == 200


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"fault": "server_error", "rates": {"overloaded": 2}}, "rates"),
        ({"fault": "server_error", "rates": {"no_such_fault": 0.5}}, "rates"),
        ({"fault": "server_error", "times": 1, "rates": [0.5]}, "rates"),
        ({"fault": "server_error", "rates": {}, "hang_metrics": "yes"}, "hang_metrics"),
        ({"fault": "server_error", "hang_metrics": True, "down": True, "for_s": 0}, "for_s"),
    ],
    ids=["rate-over-1", "rate-unknown-fault", "transient-rates-list", "hang-string", "for-s"],
)
def test_a_body_with_one_bad_field_is_a_400_that_applies_none_of_it(
    start_sim: Callable[..., SimThread], body: dict[str, Any], field: str
) -> None:
    """All or nothing: the right fields before the bad one are not applied either."""
    sim = start_sim()
    before = faults(sim, fault="rate_limit:7", rates={"overloaded": 0.0})
    refused = HTTP.post(sim.url + "/sim/faults", json=body, timeout=10)
    assert refused.status_code == 400
    assert field in refused.json()["error"]["message"]
    state = HTTP.get(sim.url + "/sim/stats").json()
    kept = ("fault", "transient", "rates", "hang_metrics")
    assert {k: state[k] for k in kept} == {k: before[k] for k in kept}
    assert (state["fault"], state["transient"]) == ("rate_limit:7", None)
    answer = post(sim)  # still listening, and still meeting the earlier fault
    assert (answer.status_code, answer.headers["retry-after"]) == (429, "7")
