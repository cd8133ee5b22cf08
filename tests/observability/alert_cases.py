"""How the alert rule tests write a `promtool test rules` case for alerts.yml: a router's
series, an alert firing with its labels and annotations or quiet, and the run.

Shared by the tests of the router's own alerts (test_alert_rules.py) and of those that say
it is losing what it records (test_record_loss_alert_rules.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dashboard_queries import ALERTS
from prometheus_server import promtool_test

ROUTER = {"instance": "router:4000", "job": "smf-router"}

Case = tuple[list[dict[str, str]], list[Any]]
"""An alert's case: (input series, checks); one sample a minute, rules evaluated every 30 s."""


def series(name: str, values: str, **labels: str) -> dict[str, str]:
    inner = ",".join(f'{k}="{v}"' for k, v in sorted({**ROUTER, **labels}.items()))
    return {"series": f"{name}{{{inner}}}", "values": values}


def fired(
    alert: str,
    at: str,
    labels: dict[str, str],
    annotations: dict[str, str],
    *more: tuple[dict[str, str], dict[str, str]],
) -> Any:
    """`alert` firing at `at` with these labels and annotations, and `more` such pairs."""
    return {
        "eval_time": at,
        "alertname": alert,
        "exp_alerts": [
            {"exp_labels": each, "exp_annotations": said}
            for each, said in ((labels, annotations), *more)
        ],
    }


def quiet(alert: str, at: str) -> dict[str, Any]:
    return {"eval_time": at, "alertname": alert, "exp_alerts": []}


def promtool_account(tmp_path: Path, case: Case) -> str:
    """'' when every check of `case` holds against alerts.yml, else promtool's account of what
    differed."""
    input_series, checks = case
    test = {
        "rule_files": [str(ALERTS)],
        "evaluation_interval": "30s",  # scrapes every minute: rules also run between
        "tests": [{"interval": "1m", "input_series": input_series, "alert_rule_test": checks}],
    }
    return promtool_test(tmp_path, test)
