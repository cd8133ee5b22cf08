"""Share and ratio panels read 0, not No data, when their numerator never happened.

A `Metrics` is fed records and shadow comparisons through its real methods; its scrape,
grown at that pace every 5 s for 80 minutes, is the input of `promtool test rules`, which
evaluates each panel's exact query (macros replaced as Grafana would: `$__range` 1h,
`$__rate_interval` 15s), and docs/metrics.md's local-share query. Prometheus divides only
series that exist: with no local, streamed or agreed series the panels were empty, which
reads as "broken", not "none" (found in review). And a count every replica holds whole
(the canary's cases) reads as one replica's, not as their sum.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from dashboard_queries import ROOT, panel_queries
from prometheus_client.parser import text_string_to_metric_families
from prometheus_server import promtool_test

from router.metrics import Metrics
from router.record import Attempt, Record, Usage

STEP, STEPS, EVAL_AT = "5s", 960, "70m"


def grown(metrics: Metrics, prefixes: tuple[str, ...]) -> list[dict[str, str]]:
    """Each counter series of one scrape, growing by its scraped value at every step."""
    out = []
    for family in text_string_to_metric_families(metrics.render()[0].decode()):
        for s in family.samples:
            if s.name.startswith(prefixes):
                labels = ",".join(f'{k}="{v}"' for k, v in sorted(s.labels.items()))
                out.append({"series": f"{s.name}{{{labels}}}", "values": f"0+{s.value!r}x{STEPS}"})
    return out


def panel(title: str) -> str:
    (query,) = [q.expr for q in panel_queries() if f"/ {title} [" in q.where]
    return query


def check(tmp_path: Path, series: list[dict[str, str]], exprs: dict[str, Any]) -> str:
    """'' when each expression gives exactly the expected {labels: value} at EVAL_AT."""
    tests = [
        {
            "expr": expr,
            "eval_time": EVAL_AT,
            "exp_samples": [{"labels": k, "value": v} for k, v in want.items()],
        }
        for expr, want in exprs.items()
    ]
    test = {
        "rule_files": [],
        "evaluation_interval": STEP,
        "tests": [{"interval": STEP, "input_series": series, "promql_expr_test": tests}],
    }
    return promtool_test(tmp_path, test)


def test_shadow_agreement_reads_0_for_an_intent_whose_answers_all_disagreed(
    tmp_path: Path,
) -> None:
    metrics = Metrics()
    for _ in range(5):
        metrics.shadow_compared("coding", "cloud", "local", agreed=False)
        metrics.shadow_compared("writing", "cloud", "local", agreed=True)
        metrics.shadow_compared("writing", "cloud", "local", agreed=False)
    series = grown(metrics, ("smf_router_shadow_comparisons_total",))
    agreement = panel("Shadow agreement by intent")
    want = {'{intent="coding"}': 0, '{intent="writing"}': 0.5}
    assert check(tmp_path, series, {agreement: want}) == ""


def served(metrics: Metrics, tier: str, stream: bool) -> None:
    """One finished request as the router records it, on backend `tier` of that tier."""
    record = Record(
        request_id=f"{tier}-{stream}",
        started_at=0.0,
        intent="writing",
        route="writing",
        backend=tier,
        tier=tier,
        attempts=[Attempt(tier, tier)],
        stream=stream,
        usage=Usage(prompt_tokens=30, completion_tokens=40),
        ttft_s=0.2,
        duration_s=1.0,
    )
    metrics.record_finished(record)


def documented_local_share() -> str:
    """The 'share of requests served locally' query of docs/metrics.md's useful queries."""
    lines = (ROOT / "docs" / "metrics.md").read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("# share of requests served"))
    return lines[at + 1]


@pytest.mark.parametrize(
    ("requests", "share"),
    [
        ([("cloud", False)], 0),  # no local token, no stream: 0%, not No data
        ([("cloud", False), ("local", True)], 0.5),
    ],
)
def test_local_and_streaming_shares_read_0_before_the_first_one(
    tmp_path: Path, requests: list[tuple[str, bool]], share: float
) -> None:
    metrics = Metrics()
    for tier, stream in requests:
        served(metrics, tier, stream)
    series = grown(metrics, ("smf_router_completion_tokens_total", "smf_router_requests_total"))
    exprs = {
        panel("Local share of tokens"): {"{}": share},
        panel("Streaming share"): {"{}": share},
        documented_local_share(): {"{}": share},
    }
    assert check(tmp_path, series, exprs) == ""


def test_unpriced_requests_read_per_backend_and_none_for_a_priced_one(tmp_path: Path) -> None:
    """The cost dashboard's count beside the spend, where an unpriced backend's $0 read as
    free: its requests per backend, whole; a backend with a price adds no series (the
    config's unpriced ones exist at 0 from the start: test_unpriced_metric.py)."""
    metrics = Metrics()
    for i, (backend, cost) in enumerate((("frontier", None), ("frontier", None), ("cloud", 0.01))):
        record = Record(
            request_id=f"u{i}",
            started_at=0.0,
            intent="math",
            route="math",
            backend=backend,
            tier="cloud",
            attempts=[Attempt(backend, "cloud")],
            usage=Usage(prompt_tokens=30, completion_tokens=40),
            cost_usd=cost,
            counterfactual_usd=cost,
        )
        metrics.record_finished(record)
    series = grown(metrics, ("smf_router_unpriced_requests_total",))
    # grown at 2 (and 0) a step: 720 steps of 5 s in the panel's hour
    want = {'{backend="frontier"}': 2 * 720}
    assert check(tmp_path, series, {panel("Unpriced requests by backend (range)"): want}) == ""


def test_canary_cases_read_one_replicas_counts_when_every_replica_counts_each_round(
    tmp_path: Path,
) -> None:
    """Every replica following the ledger counts each round it reads (canary_follow.py), so
    three replicas scraped as three instances hold the same counts. The panel summed them:
    on the shipped 3-replica Deployment it read 3x the cases asked (found in review)."""
    metrics = Metrics()
    metrics.canary_cases("local", "math", "pass", None, 2)
    metrics.canary_cases("local", "coding", "pass", None)
    metrics.canary_cases("local", "math", "error", "timeout")
    one = grown(metrics, ("smf_router_canary_cases_total",))
    replicas = [
        {**s, "series": s["series"].replace("{", f'{{instance="10.0.0.{n}:4000",', 1)}
        for n in (1, 2)
        for s in one
    ]
    # a step's growth is its scraped count (suites summed), over the hour's 720 steps of 5 s
    want = {
        '{backend="local",status="passed"}': 3 * 720,
        '{backend="local",status="error",error_kind="timeout"}': 720,
    }
    assert check(tmp_path, replicas, {panel("Canary cases by outcome (per hour)"): want}) == ""
