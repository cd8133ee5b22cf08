"""A wait the router's own calls meet is live traffic's too: a canary case or a shadow replay
answered a 429, or an overloaded 503, whose `Retry-After` is past `retry_after_max_s` starts
the wait a live attempt's would (`router.backend_waits`), with its log line, status and
gauge. Only live attempts started one: the canary passed the backend by for the rest of its
round, but the next live request went to it first, met the same refusal and fell back, a
round trip its user waited through (found in review). A 429 naming no wait starts none, as
for live traffic. The companion of test_rate_limit_wait_replays.py (a live wait keeps the
canary and the shadow away). Real sockets: the router and two simulators on 127.0.0.1, the
official openai SDK; the simulators count what reached them."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from evals.suite import SHIPPED
from router.attempt_errors import RateLimited
from router.backend_waits import heard_by
from router.components import build
from router.config import Config
from tests.harness import INTENTS, Running, RunningRouter, config_for, router, scrape, sdk
from tests.resilience.conftest import (
    CODING,
    FAST,
    backend_state,
    local_and_cloud,
    status,
    until,
)

WAIT_S = 600  # the cloud's Retry-After: far past the test, whatever the machine's pace
WAITS = [(f"rate_limit:{WAIT_S}", "rate_limited"), (f"overloaded:{WAIT_S}", "overloaded")]
MATH = [{"role": "user", "content": "What is 1234 + 4321?"}]


def _ask(proxy: RunningRouter, route: str = "coding") -> Any:
    """One request on `route` through the SDK (no retries of its own): the raw response."""
    messages: Any = MATH if route == "math" else CODING
    return sdk(proxy).chat.completions.with_raw_response.create(model=route, messages=messages)


def _config(pair: dict[str, Running], tmp: Path, **extra: Any) -> Config:
    """Every route on the cloud first but math, which local serves first; fast resilience."""
    routes = {intent: ["cloud", "local"] for intent in INTENTS}
    routes["math"] = ["local", "cloud"]
    return config_for(pair, tmp, routes=routes, resilience=FAST, **extra)


def _canary_config(pair: dict[str, Running], tmp: Path) -> Config:
    """A canary whose first run starts with the router (an empty ledger), and no second."""
    canary = {
        "enabled": True,
        "interval_s": 3600,
        "suites": str(SHIPPED / "math"),
        "sample_per_suite": 3,
        "concurrency": 1,
    }
    return _config(pair, tmp, canary=canary)


def _first_run(proxy: RunningRouter) -> dict[str, Any]:
    """The canary's rounds of its first run, by backend, once it is over."""

    def canary() -> dict[str, Any]:
        section: dict[str, Any] = status(proxy.root)["extra"]["canary"]
        return section

    until(lambda: canary()["runs"] >= 1, limit_s=60, what="the first canary run")
    last: dict[str, Any] = canary()["last_run"]
    return last


def _shadow_counts(proxy: RunningRouter) -> dict[str, int]:
    counts: dict[str, int] = status(proxy.root)["extra"]["shadow"]["counts"]
    return counts


def _passed_by_unasked(proxy: RunningRouter, cloud: Running, asked: int, kind: str) -> None:
    """A coding request (the cloud first) is served by local at once, the cloud not asked
    again; the cloud's wait shows in the status and on `/metrics`."""
    served = _ask(proxy)
    assert (served.headers["x-smf-backend"], served.headers["x-smf-attempts"]) == ("local", "1")
    assert cloud.completions() == asked
    state = backend_state(proxy.root, "cloud")
    assert state["circuit"] == "closed"  # a working backend said "not now"
    assert 0 < state[f"{kind}_for_s"] <= WAIT_S
    gauge = scrape(proxy.root).get(
        f"smf_router_backend_{kind}_seconds", backend="cloud", tier="cloud"
    )
    assert gauge is not None and 0 < gauge <= WAIT_S


def _said(caplog: pytest.LogCaptureFixture, kind: str) -> list[str]:
    """Health's lines starting the cloud's wait (one per new wait, whoever met it)."""
    said = "rate limited" if kind == "rate_limited" else "overloaded"
    line = f"backend cloud: {said}; passed by for {WAIT_S} s"
    return [r.getMessage() for r in caplog.records if r.getMessage() == line]


@pytest.mark.parametrize(("fault", "kind"), WAITS)
def test_a_wait_a_canary_case_met_sends_live_traffic_elsewhere_unasked(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, fault: str, kind: str
) -> None:
    """The canary's first case on the cloud meets the wait: its round passes the cloud by
    (as before: one case asked, the round's row saying why), and so does the next live
    request, which the old router sent to the cloud to meet the same refusal."""
    with local_and_cloud() as pair, caplog.at_level(logging.WARNING, "smf_router.health"):
        cloud = pair["cloud"]
        cloud.control("faults", {"fault": fault})
        with router(_canary_config(pair, tmp_path)) as proxy:
            last = _first_run(proxy)
            assert (last["cloud"]["skipped_reason"], last["cloud"]["cases"]) == (kind, 0)
            assert last["local"]["cases"] == 3
            assert cloud.completions() == 1  # the case that met the wait
            _passed_by_unasked(proxy, cloud, 1, kind)
    assert len(_said(caplog, kind)) == 1


@pytest.mark.parametrize(("fault", "kind"), WAITS)
def test_a_wait_a_shadow_replay_met_sends_live_traffic_elsewhere_unasked(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, fault: str, kind: str
) -> None:
    """A math request, served by local, is mirrored on the cloud (the other tier), which the
    live request never used: the replay's refusal starts the cloud's wait, and the next
    coding request (the cloud first) goes to local unasked."""
    shadow = {"route_rates": {"math": 1.0}, "allow_cloud_targets": True}
    with local_and_cloud() as pair, caplog.at_level(logging.WARNING, "smf_router.health"):
        cloud = pair["cloud"]
        cloud.control("faults", {"fault": fault})
        with router(_config(pair, tmp_path, shadow=shadow)) as proxy:
            assert _ask(proxy, "math").headers["x-smf-backend"] == "local"
            until(lambda: _shadow_counts(proxy).get("dropped_error", 0) == 1, what="the replay")
            assert cloud.completions() == 1  # the replay
            _passed_by_unasked(proxy, cloud, 1, kind)
    assert len(_said(caplog, kind)) == 1


def test_a_429_naming_no_wait_met_by_the_canary_or_a_shadow_keeps_none(tmp_path: Path) -> None:
    """No `Retry-After`, no wait, as for a live attempt: the next live request tries the
    cloud first, meets its 429 and falls back (test_rate_limit_wait.py's rule)."""
    shadow = {"route_rates": {"math": 1.0}, "allow_cloud_targets": True}
    with local_and_cloud() as pair:
        cloud = pair["cloud"]
        cloud.control("faults", {"fault": "rate_limit_no_retry_after"})
        with router(_canary_config(pair, tmp_path)) as proxy:
            assert _first_run(proxy)["cloud"]["skipped_reason"] is None  # every case asked
            asked = cloud.completions()
            assert asked >= 3
            assert backend_state(proxy.root, "cloud")["rate_limited_for_s"] is None
            served = _ask(proxy)
            assert (served.headers["x-smf-backend"], served.headers["x-smf-attempts"]) == (
                "local",
                "2",
            )
            assert cloud.completions() == asked + 1
        with router(_config(pair, tmp_path / "shadow", shadow=shadow)) as proxy:
            assert _ask(proxy, "math").headers["x-smf-backend"] == "local"
            until(lambda: _shadow_counts(proxy).get("dropped_error", 0) == 1, what="the replay")
            assert backend_state(proxy.root, "cloud")["rate_limited_for_s"] is None
            before = cloud.completions()
            assert _ask(proxy).headers["x-smf-attempts"] == "2"  # the cloud's 429, then local
            assert cloud.completions() == before + 1


def test_a_call_sent_before_a_reload_changed_its_server_or_key_starts_no_wait(
    tmp_path: Path,
) -> None:
    """A canary case or replay sent with settings a reload has since changed: its wait was
    the old server's or the old key's (a reload forgets those, `router.resilience_reload`),
    and kept, it passed the backend by under its new ones. The running router's own parts:
    its resilience, dispatcher and listeners."""
    dead = Running("http://127.0.0.1:9/v1", "http://127.0.0.1:9")  # no request is sent
    components = build(_config({"local": dead, "cloud": dead}, tmp_path))
    heard, cloud = heard_by(components), components.config.backend("cloud")
    refusal = RateLimited("not now", backend="cloud", retry_after=WAIT_S)
    heard(cloud.model_copy(update={"headers": {"authorization": "Bearer old"}}), refusal)
    heard(cloud.model_copy(update={"model": "the-old-model"}), refusal)
    heard(cloud.model_copy(update={"name": "removed"}), refusal)
    states = components.gateway.state_source.states
    assert states()["cloud"].rate_limited_for_s is None
    heard(cloud, refusal)
    limited = states()["cloud"].rate_limited_for_s
    assert limited is not None and 0 < limited <= WAIT_S
