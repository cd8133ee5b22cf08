"""Share and ratio panels read 0, not No data, when their numerator never happened.

A `Metrics` is fed records and shadow comparisons through its real methods; its scrape,
grown at that pace every 5 s for 80 minutes, is the input of `promtool test rules`, which
evaluates each panel's exact query (macros replaced as Grafana would: `$__range` 1h,
`$__rate_interval` 15s). Prometheus divides only series that exist: with no local, streamed
or agreed series the panels were empty, which reads as "broken", not "none" (found in review).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dashboard_queries import panel_queries
from prometheus_client.parser import text_string_to_metric_families
from prometheus_server import promtool_test

from router.metrics import Metrics

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
