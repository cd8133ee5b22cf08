"""The backends a request passes by, and a 429's or an overloaded 503's wait, show in the
metrics and alert.

A backend waiting out a long 429 was invisible in Prometheus: `backend_up` read 1, its
circuit closed, its attempts 0/s as if no traffic came, while a route of it alone failed
every request with `no_backend_available` and no alert fired; and no skip of any reason was
counted anywhere (found in review, with a real Prometheus). A real router on the simulators,
driven by the official openai SDK and scraped by a real Prometheus evaluating alerts.yml;
`SmfBackendRateLimited`'s firing and text by `promtool test rules`. An overloaded 503's wait,
kept apart from a 429's, was as invisible: status said `overloaded_for_s` 3599.9 while the
rate-limited gauge read 0, `up` 1 and the circuit closed (found in review); it has its gauge
and `SmfBackendOverloaded`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import openai
import pytest
from alert_cases import Case, fired, promtool_account, quiet, series
from dashboard_queries import ALERTS, alert_queries, panel_queries
from prometheus_server import Prometheus, require_prometheus

from router.config import Config
from router.metrics import Metrics
from router.record import Attempt
from tests.harness import (
    INTENTS,
    Running,
    RunningRouter,
    config_for,
    router,
    scrape,
    sdk,
    simulator,
)
from tests.observability.finished_records import local_coding_record
from tests.resilience.conftest import status

SKIPS = "smf_router_backend_skips_total"
WAIT = "smf_router_backend_rate_limited_seconds"
OVERLOAD = "smf_router_backend_overloaded_seconds"
CLOUD = {"backend": "cloud", "tier": "cloud"}
LOCAL = {"backend": "local", "tier": "local"}
PENDING = 'ALERTS{alertname="SmfBackendRateLimited",alertstate="pending",backend="cloud"}'
OVERLOAD_PENDING = 'ALERTS{alertname="SmfBackendOverloaded",alertstate="pending",backend="cloud"}'


def test_each_backend_passed_by_counts_once_per_request_by_its_reason() -> None:
    """From the record's `skipped` attempts, as the ledger row lists them: not the attempts
    that ran, and a reason outside the closed set is `other`."""
    metrics = Metrics()
    attempts = [
        Attempt("gpu2", "local", "skipped", "circuit_open"),
        Attempt("cloud", "cloud", "skipped", "rate_limited"),
        Attempt("cloud2", "cloud", "skipped", "a-new-reason"),
        Attempt("local", "local"),
    ]
    for _ in range(2):
        metrics.record_finished(local_coding_record(attempts=attempts))
    got = metrics.registry.get_sample_value
    assert got(SKIPS, {"backend": "gpu2", "tier": "local", "reason": "circuit_open"}) == 2
    assert got(SKIPS, {**CLOUD, "reason": "rate_limited"}) == 2
    assert got(SKIPS, {"backend": "cloud2", "tier": "cloud", "reason": "other"}) == 2
    assert got(SKIPS, {**LOCAL, "reason": "rate_limited"}) is None  # it served: no skip


def _servers(local: Running, cloud: Running, tmp_path: Path) -> Config:
    """Every route cloud first, then local; `cloud_only` the cloud alone. A `Retry-After`
    over 0.5 s (`config_for`'s `retry_after_max_s`) is not slept out: it is a wait."""
    routes = {i: ["cloud", "local"] for i in INTENTS} | {"cloud_only": ["cloud"]}
    servers = {"local": local, "cloud": cloud}
    return config_for(servers, tmp_path, routes=routes, resilience={"enabled": True})


@contextmanager
def watched(tmp_path: Path) -> Iterator[tuple[Running, RunningRouter, Prometheus]]:
    """The router over a local and a cloud simulator, scraped by a real Prometheus holding
    the alert rules: the cloud (to inject faults on), the router and Prometheus."""
    require_prometheus()
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
        router(_servers(local, cloud, tmp_path)) as proxy,
    ):
        host = proxy.root.removeprefix("http://")
        prom = Prometheus(tmp_path, {"smf-router": [host]}, rule_file=ALERTS)
        try:
            yield cloud, proxy, prom
        finally:
            prom.stop()


def _ask(client: openai.OpenAI, model: str) -> str:
    """The backend that answered one chat request through the SDK."""
    answer = client.chat.completions.with_raw_response.create(
        model=model, messages=[{"role": "user", "content": "what is 3+3"}]
    )
    return str(answer.headers["x-smf-backend"])


def test_a_429_wait_counts_each_request_passing_the_backend_by_and_shows_what_is_left(
    tmp_path: Path,
) -> None:
    """The cloud answers 429 `Retry-After: 30`: the first request meets it and falls back
    to local; each next one passes the cloud by unasked, counted as `rate_limited`, and one
    on a route of the cloud alone is refused with the 429 the cloud would give (ledger kind
    `no_backend_available`), counted too. The
    gauge shows the seconds left, while `up` reads 1 and only the first 429 is an attempt.
    A real Prometheus charts it on the dashboard's panel and holds the alert pending."""
    with watched(tmp_path) as (cloud, proxy, prom):
        before = scrape(proxy.root)  # the zero series, there before any request
        assert before.get(SKIPS, **CLOUD, reason="rate_limited") == 0
        assert before.get(WAIT, **CLOUD) == 0 and before.get(WAIT, **LOCAL) == 0
        prom.wait_for(f'count_over_time({SKIPS}{{backend="cloud"}}[5m])', 2)  # 2 scrapes
        cloud.control("faults", {"fault": "rate_limit:30"})
        client = sdk(proxy)
        assert [_ask(client, "coding") for _ in range(4)] == ["local"] * 4
        with pytest.raises(openai.RateLimitError) as refused:
            _ask(client, "cloud_only")
        assert refused.value.response.json()["error"]["code"] == "rate_limit_exceeded"
        after = scrape(proxy.root)
        assert cloud.completions() == 1  # the first request's 429: the rest passed it by
        assert after.get(SKIPS, **CLOUD, reason="rate_limited") == 4
        assert after.get(SKIPS, **LOCAL, reason="rate_limited") == 0
        assert 0 < (after.get(WAIT, **CLOUD) or 0) <= 30
        assert after.get(WAIT, **LOCAL) == 0
        assert after.get("smf_router_backend_up", **CLOUD) == 1  # why a gauge of its own
        assert after.get("smf_router_attempts_total", **CLOUD, outcome="error",
                         error_kind="rate_limited") == 1  # fmt: skip
        prom.wait_for(f'{SKIPS}{{backend="cloud",reason="rate_limited"}}', 4)
        prom.wait_for(PENDING, 1)
        _charted(prom)


def _charted(prom: Prometheus) -> None:
    """The "Backends passed by, by reason" panel shows the cloud's skips and its wait, and
    the alert's expression names the cloud alone."""
    (skips, wait, _) = [q.expr for q in panel_queries() if "Backends passed by" in q.where]
    passed = {(s["metric"]["backend"], s["metric"]["reason"]): s for s in prom.series(skips)}
    assert float(passed[("cloud", "rate_limited")]["value"][1]) > 0
    assert float(passed[("local", "rate_limited")]["value"][1]) == 0
    left = {s["metric"]["backend"]: float(s["value"][1]) for s in prom.series(wait)}
    assert 0 < left["cloud"] <= 30 and left["local"] == 0
    (alert,) = [q.expr for q in alert_queries() if q.where == "alert SmfBackendRateLimited"]
    assert [s["metric"]["backend"] for s in prom.series(alert)] == ["cloud"]


def test_an_overloaded_503s_wait_shows_in_a_gauge_of_its_own_and_alerts(tmp_path: Path) -> None:
    """The cloud answers overloaded, a 503 with `Retry-After: 3600`: the first request meets
    it and falls back to local, each next one passes the cloud by as `overloaded`. Its gauge
    shows the seconds left (what status says), while the 429's reads 0, `up` 1 and the
    circuit is closed. A real Prometheus charts it beside the 429's wait on the panel and
    holds SmfBackendOverloaded pending."""
    with watched(tmp_path) as (cloud, proxy, prom):
        assert scrape(proxy.root).get(OVERLOAD, **CLOUD) == 0  # there before any wait
        prom.wait_for(f'count_over_time({OVERLOAD}{{backend="cloud"}}[5m])', 2)
        cloud.control("faults", {"fault": "overloaded:3600"})
        client = sdk(proxy)
        assert [_ask(client, "coding") for _ in range(3)] == ["local"] * 3
        after = scrape(proxy.root)
        said = status(proxy.root)["extra"]["resilience"]["backends"]["cloud"]
        assert cloud.completions() == 1
        assert after.get(SKIPS, **CLOUD, reason="overloaded") == 2
        left = after.get(OVERLOAD, **CLOUD) or 0
        assert 0 < said["overloaded_for_s"] <= left <= 3600  # read before status
        assert after.get(OVERLOAD, **LOCAL) == 0
        assert after.get(WAIT, **CLOUD) == 0  # a 429's: none
        assert after.get("smf_router_backend_up", **CLOUD) == 1
        assert said["circuit"] == "closed"
        prom.wait_for(OVERLOAD_PENDING, 1)
        (_, _, overload) = [q.expr for q in panel_queries() if "Backends passed by" in q.where]
        shown = {s["metric"]["backend"]: float(s["value"][1]) for s in prom.series(overload)}
        assert 0 < shown["cloud"] <= 3600 and shown["local"] == 0
        (alert,) = [q.expr for q in alert_queries() if q.where == "alert SmfBackendOverloaded"]
        assert [s["metric"]["backend"] for s in prom.series(alert)] == ["cloud"]


def rate_limited(backend: str, left: str) -> dict[str, str]:
    """SmfBackendRateLimited's annotations for `backend` with `left` of its wait."""
    return {
        "summary": f"Backend {backend} is rate limited: passed by for {left} more",
        "description": (
            f"{backend} answered 429 with a Retry-After longer than its retry_after_max_s, "
            "and the router honours the wait: every request passes it by until it ends "
            "(its circuit stays closed, and smf_router_backend_up reads 1). Requests it "
            "would serve go to the next backend of their route, or fail with "
            "no_backend_available where the route has no other (SmfRequestsFailing). "
            'smf-reliability, "Backends passed by, by reason", shows the requests passed '
            "by; raise the provider's limits, or give the route another backend."
        ),
    }


# An `alert_cases.Case` (the annotations written out: read from alerts.yml, they would pass
# whatever it said). The cloud asked at 2m for a 30-minute wait, which runs down, as one
# replica of two holds it (one alert); local's 2-minute wait ends before `for: 5m`.
CASES: dict[str, Case] = {
    "a long wait": (
        [
            series(WAIT, "0 0 1800-60x20", **CLOUD),
            series(WAIT, "0x22", **CLOUD, instance="router:4001"),
            series(WAIT, "0 0 120 60 0x18", **LOCAL),
        ],
        [
            quiet("SmfBackendRateLimited", "6m30s"),
            fired(
                "SmfBackendRateLimited",
                "7m",
                {**CLOUD, "severity": "warning"},
                rate_limited("cloud", "25m 0s"),
            ),
        ],
    ),
}
TESTED = frozenset({"SmfBackendRateLimited", "SmfBackendOverloaded"})  # test_alert_rules.py's


def overloaded(backend: str, left: str) -> dict[str, str]:
    """SmfBackendOverloaded's annotations for `backend` with `left` of its wait."""
    return {
        "summary": f"Backend {backend} is overloaded: passed by for {left} more",
        "description": (
            f"{backend} answered overloaded (a 503, or Anthropic's 529) with a Retry-After "
            "longer than its retry_after_max_s, and the router honours the wait: every "
            "request passes it by until it ends (its circuit stays closed, and "
            "smf_router_backend_up reads 1). Requests it would serve go to the next backend "
            "of their route, or fail with no_backend_available where the route has no other "
            '(SmfRequestsFailing). smf-reliability, "Backends passed by, by reason", shows '
            "the requests passed by; the provider's status page says how long it expects, or "
            "give the route another backend."
        ),
    }


# The cloud asked at 2m for an hour's wait as overloaded, which runs down, on one replica of
# two (one alert); local's 2-minute one ends before `for: 5m`. A 429's gauge at 0 throughout.
OVERLOADED: Case = (
    [
        series(OVERLOAD, "0 0 3600-60x20", **CLOUD),
        series(OVERLOAD, "0x22", **CLOUD, instance="router:4001"),
        series(OVERLOAD, "0 0 120 60 0x18", **LOCAL),
        series(WAIT, "0x22", **CLOUD),
    ],
    [
        quiet("SmfBackendOverloaded", "6m30s"),
        quiet("SmfBackendRateLimited", "7m"),
        fired(
            "SmfBackendOverloaded",
            "7m",
            {**CLOUD, "severity": "warning"},
            overloaded("cloud", "55m 0s"),
        ),
    ],
)


def test_a_wait_of_five_minutes_fires_and_says_what_it_means(tmp_path: Path) -> None:
    assert promtool_account(tmp_path, CASES["a long wait"]) == ""


def test_an_overloaded_wait_of_five_minutes_fires_apart_from_a_rate_limit(tmp_path: Path) -> None:
    assert promtool_account(tmp_path, OVERLOADED) == ""
