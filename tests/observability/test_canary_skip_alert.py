"""A canary round that passes its backend by is counted, and a backend whose rounds keep
being passed by with nothing graded fires SmfCanaryBlind.

A provider whose per-minute limit answered the canary's first case with `429 Retry-After`
longer than `retry_after_max_s` stopped every round there (`router.canary_wait`): the cases
it stopped are no part of the round, so `smf_router_canary_cases_total` never moved,
SmfCanaryBlind (which needed error cases) could not fire, nor could SmfBackendRateLimited
(the canary's own 429 starts no wait of live routing's): the canary graded nothing and
nothing said so (found in review). A real router on the simulators scraped by a real
Prometheus evaluating alerts.yml and the quality dashboard's panel; the alert's `for:` and
text by `promtool test rules`.
"""

from __future__ import annotations

from pathlib import Path

from alert_cases import Case, fired, promtool_account, quiet, series
from dashboard_queries import ALERTS, alert_queries, panel_queries
from prometheus_server import Prometheus, require_prometheus

from tests.canary.servers import math_gating_canary
from tests.harness import config_for, router, scrape, simulator
from tests.resilience.conftest import status, until

SKIPPED = "smf_router_canary_rounds_skipped_total"
CASES = "smf_router_canary_cases_total"
PENDING = 'ALERTS{alertname="SmfCanaryBlind",alertstate="pending",backend="cloud"}'


def test_rounds_a_providers_wait_stops_count_and_the_blind_alert_sees_them(
    tmp_path: Path,
) -> None:
    """The cloud answers each case 429 `Retry-After: 600` (over its 0.5 s
    `retry_after_max_s`): each round asks it one case (one at a time) and stops there, and
    says so in `canary_rounds_skipped_total` (every reason at 0 before); no case count
    moves. Prometheus sees the rounds on the panel and holds SmfCanaryBlind pending for the
    cloud alone."""
    require_prometheus()
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        cloud.control("faults", {"fault": "rate_limit:600"})
        canary = math_gating_canary(2.0, window=6, concurrency=1)
        config = config_for({"local": local, "cloud": cloud}, tmp_path, canary=canary)
        with router(config) as proxy:
            host = proxy.root.removeprefix("http://")
            prom = Prometheus(tmp_path, {"smf-router": [host]}, rule_file=ALERTS)
            try:
                until(
                    lambda: status(proxy.root)["extra"]["canary"]["runs"] >= 2,
                    limit_s=60,
                    what="two canary runs",
                )
                now = scrape(proxy.root)
                runs = status(proxy.root)["extra"]["canary"]
                asked = cloud.completions()
                prom.wait_for(f'{SKIPPED}{{backend="cloud",reason="rate_limited"}}', 2)
                prom.wait_for(PENDING, 1)
                _charted(prom)
            finally:
                prom.stop()
    stopped = now.get(SKIPPED, backend="cloud", reason="rate_limited")
    assert stopped is not None and stopped >= 2
    assert stopped <= asked <= stopped + 1  # one case a round (a next one may have asked)
    assert now.get(SKIPPED, backend="cloud", reason="overloaded") == 0
    assert now.get(SKIPPED, backend="local", reason="rate_limited") == 0
    assert runs["last_run"]["cloud"]["skipped_reason"] == "rate_limited"
    cloud_math = {"backend": "cloud", "suite": "math"}
    for outcome, kind in (("passed", ""), ("failed", ""), ("error", "transport")):
        assert now.get(CASES, **cloud_math, status=outcome, error_kind=kind) == 0
    local_passed = now.get(CASES, backend="local", suite="math", status="passed", error_kind="")
    assert local_passed is not None and local_passed >= 6


def _charted(prom: Prometheus) -> None:
    """The quality dashboard's panel shows the cloud's stopped rounds, and the alert's
    expression names the cloud alone, with no suite: its rounds pass every suite by."""
    (rounds,) = [q.expr for q in panel_queries() if "Canary rounds passed by" in q.where]
    shown = {(s["metric"]["backend"], s["metric"]["reason"]): s for s in prom.series(rounds)}
    assert float(shown[("cloud", "rate_limited")]["value"][1]) > 0
    assert float(shown[("local", "rate_limited")]["value"][1]) == 0
    (alert,) = [q.expr for q in alert_queries() if q.where == "alert SmfCanaryBlind"]
    assert [s["metric"] for s in prom.series(alert)] == [{"backend": "cloud"}]


def passed_by(backend: str) -> tuple[dict[str, str], dict[str, str]]:
    """SmfCanaryBlind's labels and annotations for a backend whose rounds passed it by."""
    return {"backend": backend, "severity": "warning"}, {
        "summary": f"The canary graded no case on {backend} in an hour: its rounds passed it by",
        "description": (
            "Its canary rounds were passed by, at their start or part way, and asked nothing "
            f"that was graded, so the gates of {backend} stay as they were, open or closed. "
            'The reason says why (the smf-quality dashboard\'s "Canary rounds passed by", or '
            "reason of smf_router_canary_rounds_skipped_total): rate_limited or overloaded is "
            "a wait the backend asked for, its live traffic's or the canary's own cases' (a "
            "429 or 503 whose Retry-After is longer than its retry_after_max_s: a provider "
            "limit that the canary's cases run into; raise the limit, or lower "
            "canary.concurrency or canary.sample_per_suite), saturated a local backend too "
            "busy for its cases."
        ),
    }


def _graded(backend: str, values: str) -> list[dict[str, str]]:
    """`backend`'s math case counts: passed as `values` says, none failed or erred."""
    math = {"backend": backend, "suite": "math"}
    return [
        series(CASES, values, **math, status="passed", error_kind=""),
        series(CASES, "0x100", **math, status="failed", error_kind=""),
        series(CASES, "0x100", **math, status="error", error_kind="transport"),
    ]


# A round a minute, as scraped. The cloud's rounds are stopped by a wait from the start, on
# two replicas (one alert, per backend): the hour has rounds passed by and nothing graded from
# the first, so `for: 20m` ends at 21m. gpu's rounds were passed by too, but it graded a
# round at 45m: quiet from then on. gpu2's circuit stayed open (its down alert's), and local
# graded every round.
CASES_PASSED_BY: Case = (
    [
        series(SKIPPED, "0+1x100", backend="cloud", reason="rate_limited"),
        series(SKIPPED, "0+1x100", backend="cloud", reason="rate_limited", instance="r:1"),
        *_graded("cloud", "0x100"),
        series(SKIPPED, "0+1x100", backend="gpu", reason="saturated"),
        *_graded("gpu", "0x44 3x56"),
        series(SKIPPED, "0+1x100", backend="gpu2", reason="circuit_open"),
        *_graded("gpu2", "0x100"),
        series(SKIPPED, "0x100", backend="local", reason="rate_limited"),
        *_graded("local", "0+0.2x100"),
    ],
    [
        quiet("SmfCanaryBlind", "20m"),
        fired("SmfCanaryBlind", "22m", *passed_by("cloud"), passed_by("gpu")),
        fired("SmfCanaryBlind", "50m", *passed_by("cloud")),
    ],
)


def test_rounds_passed_by_for_an_hour_with_nothing_graded_fire_per_backend(
    tmp_path: Path,
) -> None:
    assert promtool_account(tmp_path, CASES_PASSED_BY) == ""
