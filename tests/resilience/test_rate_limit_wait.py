"""A backend's 429 asking for a wait longer than `retry_after_max_s` is honoured: the router
passes the backend by until the wait ends, as it does an open circuit. Forgotten, every next
request went to it first, got the same 429 and fell back, a round trip each, the provider
asked again and again until its window ended (found in review). Real sockets: the router
and two simulators on 127.0.0.1, the official openai SDK; the simulators count what reached
them."""

from __future__ import annotations

import math
from pathlib import Path

import httpx
import openai
import pytest

from router.health import Breaker, BreakerPolicy, Health
from router.retry_after import MAX_RETRY_AFTER_S
from tests.harness import router
from tests.resilience.conftest import (
    ask_coding,
    backend_state,
    cloud_first,
    explained_skips,
    local_and_cloud,
    until,
)


def test_a_long_retry_after_sends_the_next_requests_elsewhere_unasked(tmp_path: Path) -> None:
    """The first request meets the 429 and falls back; the next goes to the fallback at
    once, the cloud never asked again (it was, on every request)."""
    with local_and_cloud() as pair:
        pair["cloud"].control("faults", {"fault": "rate_limit:30"})
        with router(cloud_first(pair, tmp_path)) as proxy:
            first = ask_coding(proxy)
            assert first.headers["x-smf-backend"] == "local"
            assert pair["cloud"].completions() == 1
            second = ask_coding(proxy)
            assert second.headers["x-smf-backend"] == "local"
            assert second.headers["x-smf-attempts"] == "1"
            assert pair["cloud"].completions() == 1
            cloud = backend_state(proxy.root, "cloud")
            assert cloud["circuit"] == "closed"  # a working backend said "not now"
            assert 0 < cloud["rate_limited_for_s"] <= 30
            assert {"backend": "cloud", "reason": "rate_limited"} in explained_skips(proxy)
            top = httpx.get(f"{proxy.root}/v1/router/status", trust_env=False).json()
            listed = {b["name"]: b for b in top["backends"]}
            assert 0 < listed["cloud"]["rate_limited_for_s"] <= 30
            assert listed["local"]["rate_limited_for_s"] is None


def test_the_backend_is_tried_again_once_its_wait_is_over(tmp_path: Path) -> None:
    """A 1 s wait (over `retry_after_max_s`, 0.5): requests go to local until it ends,
    then the cloud serves again. Polled, not timed: whichever requests fall in the wait,
    the cloud sees none of them."""
    with local_and_cloud() as pair:
        pair["cloud"].control("faults", {"fault": "rate_limit:1"})
        with router(cloud_first(pair, tmp_path)) as proxy:
            assert ask_coding(proxy).headers["x-smf-backend"] == "local"
            pair["cloud"].control("faults", {"fault": None})  # its window refilled
            until(lambda: ask_coding(proxy).headers["x-smf-backend"] == "cloud", what="cloud again")
            assert pair["cloud"].completions() == 2  # the 429, then the one it served
            assert backend_state(proxy.root, "cloud")["rate_limited_for_s"] is None


def test_a_429_naming_no_wait_keeps_none(tmp_path: Path) -> None:
    """No `Retry-After`, no wait made up: each request tries the cloud first, as before."""
    with local_and_cloud() as pair:
        pair["cloud"].control("faults", {"fault": "rate_limit_no_retry_after"})
        with router(cloud_first(pair, tmp_path)) as proxy:
            for _ in range(2):
                assert ask_coding(proxy).headers["x-smf-backend"] == "local"
            assert pair["cloud"].completions() == 2
            cloud = backend_state(proxy.root, "cloud")
            assert (cloud["circuit"], cloud["rate_limited_for_s"]) == ("closed", None)


def test_every_backend_waiting_is_a_429_that_says_when_the_soonest_wait_ends(
    tmp_path: Path,
) -> None:
    """Both backends asked for a wait: the next request is sent to neither, and its 429 (a
    503 before: tests/resilience/test_rate_limited_refusal.py) carries the sooner end
    (local's 20 s, not the cloud's 30 s) as `Retry-After`."""
    with local_and_cloud() as pair:
        pair["cloud"].control("faults", {"fault": "rate_limit:30"})
        pair["local"].control("faults", {"fault": "rate_limit:20"})
        with router(cloud_first(pair, tmp_path)) as proxy:
            with pytest.raises(openai.RateLimitError) as limited:
                ask_coding(proxy)  # each backend's 429 in turn: the sooner wait is told
            assert limited.value.response.headers["retry-after"] == "20"
            before = backend_state(proxy.root, "local")["rate_limited_for_s"]
            with pytest.raises(openai.RateLimitError) as refused:
                ask_coding(proxy)
            response = refused.value.response
            after = backend_state(proxy.root, "local")["rate_limited_for_s"]
            assert (pair["cloud"].completions(), pair["local"].completions()) == (1, 1)
    assert response.status_code == 429
    assert response.headers["x-smf-attempts"] == "0"  # the router's own: neither was asked
    seconds = int(response.headers["retry-after"])
    assert math.ceil(after) <= seconds <= math.ceil(before) <= 20, (before, seconds, after)
    # under a minute: a 429 says no `x-should-retry`, as a backend's, the SDKs retrying a
    # 429 on their own (the 503 said `true` for the same)
    assert "x-should-retry" not in response.headers
    error = response.json()["error"]
    assert error["code"] == "rate_limit_exceeded"
    assert "'cloud', 'local' answered a rate limit with a Retry-After" in error["message"]


def test_a_wait_ends_on_the_clock_and_a_bogus_one_is_cut_to_an_hour() -> None:
    """On an injected clock: the later of two ends stands, the circuit is left as it was,
    and a header saying days sidelines the backend for an hour at most."""
    now = [100.0]
    health = Health(BreakerPolicy, lambda: now[0])
    health.asked_to_wait("cloud", 30.0)
    health.asked_to_wait("cloud", 5.0)  # a straggler's 429: the wait stands
    assert health.limited_for("cloud") == 30.0
    assert health.circuit("cloud") == "closed"
    now[0] += 29.5
    assert health.limited_for("cloud") == 0.5
    now[0] += 0.5
    assert health.limited_for("cloud") is None
    health.asked_to_wait("cloud", 86400.0 * 3)
    assert health.limited_for("cloud") == MAX_RETRY_AFTER_S
    health.forget("cloud")  # a reload that re-pointed it: another server now
    assert health.limited_for("cloud") is None
    assert Breaker().limited_for(0.0) is None
