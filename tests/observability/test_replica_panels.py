"""A gauge every replica shows alike is drawn once, not once per replica.

Each replica polls the same vLLM `/metrics` and follows the same canary rounds, so two
replicas showed each backend's load, pass rate, margin and last run twice, in a doubled
legend, where the other panels take the max across replicas (found in review). A `Metrics`
fed every kind of event is scraped as two replicas, and `promtool test rules` evaluates each
of these panels' exact queries: one series per backend (and suite), with no `instance`.
"""

from __future__ import annotations

from pathlib import Path

from dashboard_queries import panel_queries
from metrics_feed import feed
from prometheus_client.parser import text_string_to_metric_families
from prometheus_server import promtool_test

from router.metrics import Metrics

REPLICAS = ("router:4000", "router:4001")
EVAL_AT = 60  # seconds: `time()` there
TS = 1_764_000_000  # when the fed canary rounds ran
LOCAL = '{backend="local"}'


def two_replicas() -> list[dict[str, str]]:
    """The fed gauges as each of two replicas shows them, constant."""
    metrics = Metrics()
    feed(metrics, 0)
    out = []
    for family in text_string_to_metric_families(metrics.render()[0].decode()):
        if family.type != "gauge":
            continue
        for s in family.samples:
            for instance in REPLICAS:
                labels = {**s.labels, "instance": instance, "job": "smf-router"}
                inner = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
                out.append({"series": f"{s.name}{{{inner}}}", "values": f"{s.value!r}x3"})
    return out


def queries(title: str) -> list[str]:
    """The queries of the panel whose title begins with `title`."""
    found = [q.expr for q in panel_queries() if f"/ {title}" in q.where]
    assert found, title
    return found


def suites(**values: float) -> dict[str, float]:
    return {f'{{backend="local",suite="{suite}"}}': v for suite, v in values.items()}


def test_each_backend_and_suite_is_one_series_however_many_replicas_show_it(
    tmp_path: Path,
) -> None:
    running, waiting = queries("Backend capacity: running and waiting")
    _, wait_left, overload_left = queries("Backends passed by, by reason")
    expected = {
        running: {LOCAL: 30.0},
        waiting: {LOCAL: 4.0},
        queries("Backend KV-cache use")[0]: {LOCAL: 0.93},
        wait_left: {LOCAL: 1800.0, '{backend="cloud"}': 0.0},
        overload_left: {LOCAL: 0.0, '{backend="cloud"}': 0.0, '{backend="cloud2"}': 600.0},
        queries("Canary pass rate by backend and suite")[0]: suites(
            math=0.25, coding=0.9, prose=0.5
        ),
        # no row for prose: it has no floor
        queries("Canary margin over floor")[0]: suites(math=0.1 - 0.5, coding=0.7 - 0.6),
        queries("Time since the canary last graded each suite")[0]: suites(
            math=EVAL_AT - TS, coding=EVAL_AT - TS, prose=EVAL_AT - TS
        ),
    }
    checks = [
        {
            "expr": expr,
            "eval_time": f"{EVAL_AT}s",
            "exp_samples": [{"labels": k, "value": v} for k, v in want.items()],
        }
        for expr, want in expected.items()
    ]
    test = {
        "rule_files": [],
        "evaluation_interval": "1m",
        "tests": [{"interval": "1m", "input_series": two_replicas(), "promql_expr_test": checks}],
    }
    assert promtool_test(tmp_path, test) == ""
