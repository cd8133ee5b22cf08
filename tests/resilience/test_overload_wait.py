"""A backend's 503 asking for a wait longer than `retry_after_max_s` (a provider or proxy
overloaded: `Retry-After` on its 503 or 529) is honoured as a 429's is: the router passes
the backend by until the wait ends. Forgotten, every next request went to the overloaded
backend first, got the same 503 and fell back, a round trip each, the backend that asked
for room asked again and again. A short one, or none, keeps no wait: the next request tries
the backend again, as before. Real sockets: the router and two simulators on 127.0.0.1,
the official openai SDK; the simulators count what reached them."""

from __future__ import annotations

import math
from pathlib import Path

import httpx
import openai
import pytest

from router.health import BreakerPolicy, Health
from router.retry_after import MAX_RETRY_AFTER_S
from tests.harness import router
from tests.resilience.conftest import (
    ask_coding,
    backend_state,
    cloud_first,
    explained_skips,
    local_and_cloud,
)


def test_a_503s_long_retry_after_sends_the_next_requests_elsewhere_unasked(
    tmp_path: Path,
) -> None:
    """The first request meets the 503 and falls back; the next goes to local at once, the
    cloud not asked again (it was, on every request), its circuit closed (an overloaded
    backend is a working one), the wait shown apart from a 429's."""
    with local_and_cloud() as pair:
        pair["cloud"].control("faults", {"fault": "overloaded:30"})
        with router(cloud_first(pair, tmp_path)) as proxy:
            assert ask_coding(proxy).headers["x-smf-backend"] == "local"
            assert pair["cloud"].completions() == 1
            second = ask_coding(proxy)
            assert (second.headers["x-smf-backend"], second.headers["x-smf-attempts"]) == (
                "local",
                "1",
            )
            assert pair["cloud"].completions() == 1
            cloud = backend_state(proxy.root, "cloud")
            assert (cloud["circuit"], cloud["rate_limited_for_s"]) == ("closed", None)
            assert 0 < cloud["overloaded_for_s"] <= 30
            assert {"backend": "cloud", "reason": "overloaded"} in explained_skips(proxy)
            top = httpx.get(f"{proxy.root}/v1/router/status", trust_env=False).json()
            listed = {b["name"]: b for b in top["backends"]}
            assert 0 < listed["cloud"]["overloaded_for_s"] <= 30
            assert listed["local"]["overloaded_for_s"] is None


@pytest.mark.parametrize("fault", ["overloaded:1", "server_error:503"])
def test_a_503_with_a_short_retry_after_or_none_keeps_no_wait(tmp_path: Path, fault: str) -> None:
    """A `Retry-After` within `retry_after_max_s` (2 s here), or none (vLLM's 503s name
    none): each request tries the cloud first and falls back, as before."""
    with local_and_cloud() as pair:
        pair["cloud"].control("faults", {"fault": fault})
        with router(cloud_first(pair, tmp_path, retry_after_max_s=2.0)) as proxy:
            for _ in range(2):
                assert ask_coding(proxy).headers["x-smf-backend"] == "local"
            assert pair["cloud"].completions() == 2
            cloud = backend_state(proxy.root, "cloud")
            assert (cloud["circuit"], cloud["overloaded_for_s"]) == ("closed", None)


def test_every_backend_overloaded_is_a_503_that_says_when_the_soonest_wait_ends(
    tmp_path: Path,
) -> None:
    """Both backends asked for room: the next request is sent to neither, and the router's
    own 503 (not a 429: no backend said rate limit) carries the sooner end, local's 20 s,
    with `x-should-retry: true` (under a minute), naming the overload."""
    with local_and_cloud() as pair:
        pair["cloud"].control("faults", {"fault": "overloaded:30"})
        pair["local"].control("faults", {"fault": "overloaded:20"})
        with router(cloud_first(pair, tmp_path)) as proxy:
            with pytest.raises(openai.InternalServerError) as met:
                ask_coding(proxy)  # each backend's 503 in turn: the sooner wait is told
            assert met.value.response.headers["retry-after"] == "20"
            before = backend_state(proxy.root, "local")["overloaded_for_s"]
            with pytest.raises(openai.InternalServerError) as refused:
                ask_coding(proxy)
            response = refused.value.response
            after = backend_state(proxy.root, "local")["overloaded_for_s"]
            assert (pair["cloud"].completions(), pair["local"].completions()) == (1, 1)
    assert response.status_code == 503
    assert response.headers["x-smf-attempts"] == "0"  # the router's own: neither was asked
    seconds = int(response.headers["retry-after"])
    assert math.ceil(after) <= seconds <= math.ceil(before) <= 20, (before, seconds, after)
    assert response.headers["x-should-retry"] == "true"
    error = response.json()["error"]
    assert error["code"] == "no_backend_available"
    assert "'cloud', 'local' answered overloaded with a Retry-After" in error["message"]


def test_an_overload_wait_is_kept_apart_from_a_429s_and_capped_alike() -> None:
    """On an injected clock: a 503's wait and a 429's are two waits, each its later end,
    each at most an hour; a reload that re-points the backend forgets both."""
    now = [100.0]
    health = Health(BreakerPolicy, lambda: now[0])
    health.asked_to_wait("cloud", 30.0, "overloaded")
    health.asked_to_wait("cloud", 5.0, "overloaded")  # a straggler's 503: the wait stands
    assert (health.limited_for("cloud", "overloaded"), health.limited_for("cloud")) == (30.0, None)
    health.asked_to_wait("cloud", 86400.0, "overloaded")
    health.asked_to_wait("cloud", 10.0)
    assert health.limited_for("cloud", "overloaded") == MAX_RETRY_AFTER_S
    assert (health.circuit("cloud"), health.limited_for("cloud")) == ("closed", 10.0)
    health.forget("cloud")
    assert health.limited_for("cloud", "overloaded") is None
