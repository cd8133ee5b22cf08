"""The pieces every smf-router dashboard is built from: queries, panels, variables, layout.

Each dashboard's module (`overview.py`, `latency.py`, ...) composes its panels from these and
`generate.py` writes them out; keep Grafana's JSON shapes here.
"""

from __future__ import annotations

from typing import Any

DATASOURCE = {"type": "prometheus", "uid": "smf-prometheus"}
RATE = "$__rate_interval"
B = 'backend=~"$backend"'
I = 'intent=~"$intent"'  # noqa: E741 - the variable's name
# A stat panel's one colour for any number: Grafana's default thresholds (green, red from 80)
# turned a config's age red after 80 s and offloaded dollars red past $80, and showed a
# backend down (0) green. What a value means is said by its `states` (value mappings) only.
PLAIN = {"mode": "absolute", "steps": [{"color": "text", "value": None}]}


def target(expr: str, legend: str = "", ref: str = "A", table: bool = False) -> dict[str, Any]:
    """One query. A table's is an instant query in table format: each series one row, with
    its labels as columns (as a range query, Grafana showed one series at a time)."""
    out = {"datasource": DATASOURCE, "expr": expr, "legendFormat": legend, "refId": ref}
    if table:
        out |= {"instant": True, "range": False, "format": "table"}
    return out


def states(*named: tuple[str, str]) -> list[dict[str, Any]]:
    """Value mappings for a gauge of states 0, 1, …: each one's (text, colour), in order."""
    options = {
        str(i): {"text": text, "color": color, "index": i} for i, (text, color) in enumerate(named)
    }
    return [{"type": "value", "options": options}]


UP = states(("down", "red"), ("up", "green"))  # a 0/1 gauge where 1 is well
BANNER_HEIGHT = 3  # grid rows of a banner: one line of big text


def panel(
    title: str,
    queries: list[tuple[str, str]],
    kind: str = "timeseries",
    unit: str = "short",
    description: str = "",
    units: dict[str, str] | None = None,
    mappings: dict[str, list[dict[str, Any]]] | None = None,
    no_value: str | None = None,
    decimals: int | None = None,
) -> dict[str, Any]:
    """One panel; `queries` are (PromQL, legend) pairs. `units` gives some queries (by refId)
    a unit of their own: Grafana draws them on an axis of their own. `mappings` gives some
    (a 0/1 gauge's) their values' names and colours (`states`); a stat panel colours no
    other number (`PLAIN`). `no_value` is shown instead of "No data" when no series is
    there, where none means none of a thing; `decimals` fixes how many a value shows."""
    refs = "ABCDEFGH"
    table = kind == "table"
    overrides = [
        {
            "matcher": {"id": "byFrameRefID", "options": ref},
            "properties": [{"id": "unit", "value": own}],
        }
        for ref, own in (units or {}).items()
    ] + [
        {
            "matcher": {"id": "byFrameRefID", "options": ref},
            "properties": [{"id": "mappings", "value": named}],
        }
        for ref, named in (mappings or {}).items()
    ]
    defaults: dict[str, Any] = {"unit": unit}
    if no_value is not None:
        defaults["noValue"] = no_value
    if decimals is not None:
        defaults["decimals"] = decimals
    if kind == "stat":
        defaults["thresholds"] = PLAIN
    out: dict[str, Any] = {
        "type": kind,
        "title": title,
        "description": description,
        "datasource": DATASOURCE,
        "fieldConfig": {"defaults": defaults, "overrides": overrides},
        "options": {"legend": {"displayMode": "table", "placement": "bottom"}},
        "targets": [target(e, legend, refs[i], table) for i, (e, legend) in enumerate(queries)],
    }
    if table:  # an instant query's one timestamp is the same on every row: not a column
        out["transformations"] = [{"id": "organize", "options": {"excludeByName": {"Time": True}}}]
    return out


def banner(
    title: str, query: str, legend: str, named: list[dict[str, Any]], description: str
) -> dict[str, Any]:
    """A stat panel for a state nobody may miss, laid across the top of its dashboard
    (`dashboard`'s `banner`): each series' whole box takes its state's colour (`states`),
    not only its text, and is named by its legend."""
    out = panel(
        title, [(query, legend)], kind="stat", mappings={"A": named}, description=description
    )
    out["options"] |= {"colorMode": "background", "graphMode": "none", "textMode": "value_and_name"}
    return out


def quantiles(metric: str, by: str, selector: str, unit: str = "s") -> list[tuple[str, str]]:
    """p50/p95/p99 of a histogram, per `by`."""
    return [
        (
            f"histogram_quantile({q}, sum by (le, {by}) "
            f"(rate({metric}_bucket{{{selector}}}[{RATE}])))",
            f"p{int(q * 100)} {{{{{by}}}}}",
        )
        for q in (0.5, 0.95, 0.99)
    ]


def share(part: str, whole: str) -> str:
    """`part / whole` that reads 0 when `part` has no series (no local token, no stream
    yet): Prometheus divides only series that exist, and the panel showed No data. It stays
    empty when `whole` has none, as there is then nothing to share."""
    return f"({part} or on () 0 * {whole}) / {whole}"


def variable(name: str, metric: str) -> dict[str, Any]:
    query = f"label_values({metric}, {name})"
    return {
        "name": name,
        "label": name,
        "type": "query",
        "datasource": DATASOURCE,
        "definition": query,
        "query": {"query": query, "refId": "PrometheusVariableQueryEditor-VariableQuery"},
        "includeAll": True,
        "multi": True,
        "allValue": ".*",
        "current": {"selected": True, "text": ["All"], "value": ["$__all"]},
        "refresh": 2,
        "sort": 1,
    }


def dashboard(
    uid: str,
    title: str,
    panels: list[dict[str, Any]],
    hours: int = 6,
    banner: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A dashboard with panels laid out two per row and the backend/intent variables; a
    `banner` (`banner()`) goes above them, a low strip the dashboard's full width."""
    top = 0 if banner is None else BANNER_HEIGHT
    grid = [
        {"h": 8, "w": 12, "x": 12 * (i % 2), "y": top + 8 * (i // 2)} for i in range(len(panels))
    ]
    if banner is not None:
        panels = [banner, *panels]
        grid = [{"h": BANNER_HEIGHT, "w": 24, "x": 0, "y": 0}, *grid]
    for i, (p, place) in enumerate(zip(panels, grid, strict=True)):
        p["id"] = i + 1
        p["gridPos"] = place
    return {
        "uid": uid,
        "title": title,
        "tags": ["smf-router"],
        "timezone": "browser",
        "schemaVersion": 39,
        "version": 1,
        "editable": False,
        "refresh": "30s",
        "time": {"from": f"now-{hours}h", "to": "now"},
        "templating": {
            "list": [
                # Every configured backend has attempt series from the start, at 0: one
                # that never ended a request (down from the start) can still be chosen.
                variable("backend", "smf_router_attempts_total"),
                variable("intent", "smf_router_requests_total"),
            ]
        },
        "links": [
            {
                "type": "dashboards",
                "tags": ["smf-router"],
                "asDropdown": True,
                "title": "smf-router",
            }
        ],
        "panels": panels,
    }
