"""Every PromQL expression the dashboards and alert rules hold, ready to send to Prometheus."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
DASHBOARDS = ROOT / "grafana" / "dashboards"
ALERTS = ROOT / "deploy" / "prometheus" / "alerts.yml"
PROMETHEUS_EXAMPLE = ROOT / "deploy" / "prometheus" / "prometheus.yml"

# Grafana macros and template variables, replaced by real values (as Grafana would).
MACROS = {
    "$__rate_interval": "15s",
    "$__interval": "2s",
    "$__range": "1h",
    "$backend": ".*",
    "$intent": ".*",
}
_METRIC = re.compile(r"\b(smf_router_[a-z0-9_]+|vllm[:_][a-z0-9_:]+)\b")
_LABEL_VALUES = re.compile(r"^label_values\(\s*([a-zA-Z_:][\w:]*)\s*,\s*(\w+)\s*\)$")


@dataclass(frozen=True)
class Query:
    where: str  # "overview / Requests by intent [A]", "alert SmfLocalBackendDown"
    expr: str  # as sent to Prometheus, macros replaced

    @property
    def metrics(self) -> set[str]:
        return set(_METRIC.findall(self.expr))


def expand(expr: str) -> str:
    for macro in sorted(MACROS, key=len, reverse=True):
        expr = expr.replace(macro, MACROS[macro])
    if "$" in expr.replace("$labels", "").replace("$value", ""):
        raise ValueError(f"unreplaced Grafana variable in {expr!r}")
    return expr


def dashboard_files() -> list[Path]:
    return sorted(DASHBOARDS.glob("*.json"))


def panel_queries() -> list[Query]:
    out: list[Query] = []
    for path in dashboard_files():
        dash = json.loads(path.read_text())
        for panel in dash["panels"]:
            for t in panel["targets"]:
                where = f"{dash['uid']} / {panel['title']} [{t['refId']}]"
                out.append(Query(where, expand(t["expr"])))
    return out


def variable_queries() -> list[Query]:
    """Template variables as `label_values(m, l)`, turned into an instant query."""
    out: list[Query] = []
    for path in dashboard_files():
        dash = json.loads(path.read_text())
        for var in dash["templating"]["list"]:
            match = _LABEL_VALUES.match(var["query"]["query"])
            assert match, f"{path.name}: unsupported variable query {var['query']}"
            metric, label = match.groups()
            out.append(Query(f"{dash['uid']} / ${var['name']}", f"count by ({label}) ({metric})"))
    return out


def alert_queries() -> list[Query]:
    rules = yaml.safe_load(ALERTS.read_text())
    return [
        Query(f"alert {rule['alert']}", " ".join(rule["expr"].split()))
        for group in rules["groups"]
        for rule in group["rules"]
    ]


def all_queries() -> list[Query]:
    return panel_queries() + variable_queries() + alert_queries()
