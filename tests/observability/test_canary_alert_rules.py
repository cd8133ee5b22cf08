"""The canary alert and margin panel say what the routing gate does, evaluated by promtool.

The gauges come from a real `Judge` and `GateBook` fed canary rounds and rendered by
`Metrics` as a scrape shows them; `promtool test rules` runs alerts.yml and the dashboard's
margin query on them with Prometheus's own rule engine. The alert used to compare the raw
pass ratio with the floor: one bad round of three made it claim a gate that cannot close
before `min_samples` results, and 80% passing with a lower bound under the floor closed the
gate (coding sent to the cloud) without a word (found in review).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from dashboard_queries import ALERTS, panel_queries
from prometheus_client.parser import text_string_to_metric_families
from prometheus_server import promtool, require_prometheus

from evals.results import CaseResult
from router.canary_judge import Judge
from router.gating import GateBook
from router.metrics import Metrics

FLOORS = {"coding": 0.6}  # `math` is canaried too, with no floor: it gates nothing
EVAL_AT = "10m"  # the alert's `for: 5m` has passed


def judged(rounds: list[tuple[str, int, int]]) -> tuple[Metrics, Judge]:
    """A router's canary gauges after rounds of (suite, passed, cases), as the scheduler
    and the ledger follower judge them."""
    metrics = Metrics()
    judge = Judge(GateBook(FLOORS, window=20, min_samples=5), metrics, lambda: ["local"])
    judge.show_open_gates()
    for i, (suite, passed, cases) in enumerate(rounds):
        results = [
            CaseResult(f"{suite}-{i}-{k}", suite, "easy", "pass" if k < passed else "fail")
            for k in range(cases)
        ]
        judge.judge("local", results, ts=1_764_000_000.0 + i)
    return metrics, judge


def input_series(metrics: Metrics) -> list[dict[str, str]]:
    """The canary and gate series of one scrape, held constant for 15 minutes, and the
    scrape's own `up` (without it, SmfRouterDown fires: no router target at all)."""
    out = [{"series": 'up{instance="router:4000",job="smf-router"}', "values": "1x15"}]
    for family in text_string_to_metric_families(metrics.render()[0].decode()):
        for s in family.samples:
            if s.name.startswith(("smf_router_canary_", "smf_router_route_gated")):
                labels = ",".join(f'{k}="{v}"' for k, v in sorted(s.labels.items()))
                out.append({"series": f"{s.name}{{{labels}}}", "values": f"{s.value!r}x15"})
    return out


def margin_query() -> str:
    (query,) = [q for q in panel_queries() if "Canary margin" in q.where]
    return query.expr


def run_promtool(tmp_path: Path, metrics: Metrics, checks: list[dict[str, Any]]) -> str:
    """'' when every check holds, else promtool's account of what differed."""
    require_prometheus()
    test = {
        "rule_files": [str(ALERTS)],
        "evaluation_interval": "1m",
        "tests": [
            {
                "interval": "1m",
                "input_series": input_series(metrics),
                "promql_expr_test": [{"eval_time": EVAL_AT, **c} for c in checks],
            }
        ],
    }
    path = tmp_path / "canary_test.yml"
    path.write_text(yaml.safe_dump(test, sort_keys=False))
    done = promtool("test", "rules", str(path))
    return "" if done.returncode == 0 else done.stdout + done.stderr


def test_one_bad_round_alerts_nothing_while_the_gate_cannot_close(tmp_path: Path) -> None:
    metrics, judge = judged([("coding", 1, 3)])
    assert judge.gated() == {}  # 3 results < min_samples: routing is untouched
    lower = judge.book.lower_bound("local", "coding")
    assert lower is not None
    found = run_promtool(
        tmp_path,
        metrics,
        [
            {"expr": "ALERTS", "exp_samples": []},  # no alert of any name, pending or firing
            {
                "expr": margin_query(),
                "exp_samples": [
                    {"labels": '{backend="local",suite="coding"}', "value": lower - 0.6}
                ],
            },
        ],
    )
    assert found == ""


def test_a_closed_gate_alerts_though_most_cases_pass(tmp_path: Path) -> None:
    rounds = [("coding", 4, 5)] * 4 + [("math", 1, 5)]  # coding 80%, math 20% (no floor)
    metrics, judge = judged(rounds)
    assert judge.gated() == {"local": frozenset({"coding"})}
    assert judge.book.pass_ratio("local", "coding") == 0.8
    lower = judge.book.lower_bound("local", "coding")
    assert lower is not None and lower < 0.6
    alert = 'ALERTS{alertname="SmfCanaryGateClosed",alertstate="firing",'
    alert += 'backend="local",intent="coding",severity="warning"}'
    found = run_promtool(
        tmp_path,
        metrics,
        [
            {"expr": 'ALERTS{alertstate="firing"}', "exp_samples": [{"labels": alert, "value": 1}]},
            {  # the margin the gate acts on, and no row for the suite without a floor
                "expr": margin_query(),
                "exp_samples": [
                    {"labels": '{backend="local",suite="coding"}', "value": lower - 0.6}
                ],
            },
        ],
    )
    assert found == ""
