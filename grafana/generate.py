"""Generate the Grafana dashboards for smf-router as plain JSON files.

Run `python grafana/generate.py` after changing a panel, and commit the JSON it writes;
`--check` exits 1 when the files on disk differ from what this script would write. Every
query here is evaluated against a real Prometheus scraping a real router in
tests/observability/test_dashboards_prometheus.py.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from panels import RATE, B, I, dashboard, panel, quantiles

OUT = Path(__file__).resolve().parent / "dashboards"


def overview() -> dict[str, Any]:
    req = "smf_router_requests_total"
    return dashboard(
        "smf-overview",
        "smf-router / overview",
        [
            panel(
                "Route share by tier",
                [
                    (
                        f'sum by (tier) (rate({req}{{tier!="none",{I}}}[{RATE}])) / ignoring (tier)'
                        f' group_left sum(rate({req}{{tier!="none",{I}}}[{RATE}]))',
                        "{{tier}}",
                    )
                ],
                unit="percentunit",
            ),
            panel(
                "Requests by intent",
                [(f"sum by (intent) (rate({req}{{{I},{B}}}[{RATE}]))", "{{intent}}")],
                unit="reqps",
            ),
            panel(
                "Requests by backend (range)",
                [(f"sum by (backend) (increase({req}{{{B}}}[$__range]))", "{{backend}}")],
                kind="piechart",
            ),
            panel(
                "Offloaded dollars: range and cumulative",
                [
                    ("sum(increase(smf_router_offloaded_usd_total[$__range]))", "in range"),
                    ("sum(smf_router_offloaded_usd_total)", "since router start"),
                ],
                kind="stat",
                unit="currencyUSD",
            ),
            panel(
                "Failed requests by outcome",
                [
                    (
                        f'sum by (outcome) (rate({req}{{outcome!="ok",{I},{B}}}[{RATE}]))',
                        "{{outcome}}",
                    ),
                    (
                        f"sum by (status) (rate(smf_router_rejected_requests_total[{RATE}]))",
                        "refused by the router: {{status}}",
                    ),
                ],
                unit="reqps",
            ),
            panel(
                "Errors by kind",
                [(f"sum by (kind) (rate(smf_router_errors_total{{{I}}}[{RATE}]))", "{{kind}}")],
                unit="reqps",
            ),
            panel(
                "Classifier confidence (median) by intent",
                quantiles("smf_router_classifier_confidence", "intent", I)[:1],
                unit="percentunit",
            ),
            panel(
                "Streaming share",
                [
                    (
                        f'sum(rate({req}{{stream="true"}}[{RATE}])) / sum(rate({req}[{RATE}]))',
                        "streamed",
                    )
                ],
                kind="stat",
                unit="percentunit",
            ),
        ],
    )


def latency() -> dict[str, Any]:
    return dashboard(
        "smf-latency",
        "smf-router / latency",
        [
            panel(
                "Time to first token by backend",
                quantiles("smf_router_time_to_first_token_seconds", "backend", f"{B},{I}"),
                unit="s",
            ),
            panel(
                "Request duration by backend",
                quantiles("smf_router_request_duration_seconds", "backend", f"{B},{I}"),
                unit="s",
            ),
            panel(
                "Time per output token by backend",
                quantiles("smf_router_time_per_output_token_seconds", "backend", B),
                unit="s",
            ),
            panel(
                "Time to first token p95 by intent",
                quantiles("smf_router_time_to_first_token_seconds", "intent", f"{B},{I}")[1:2],
                unit="s",
            ),
            panel(
                "Attempt duration p95 by backend and outcome",
                [
                    (
                        "histogram_quantile(0.95, sum by (le, backend, outcome) "
                        f"(rate(smf_router_attempt_duration_seconds_bucket{{{B}}}[{RATE}])))",
                        "{{backend}} {{outcome}}",
                    )
                ],
                unit="s",
            ),
            panel(
                "Classifier latency",
                [
                    (
                        f"histogram_quantile({q}, sum by (le) "
                        f"(rate(smf_router_classifier_duration_seconds_bucket[{RATE}])))",
                        f"p{int(q * 100)}",
                    )
                    for q in (0.5, 0.99)
                ],
                unit="s",
            ),
        ],
    )


def reliability() -> dict[str, Any]:
    fb = "smf_router_fallbacks_total"
    return dashboard(
        "smf-reliability",
        "smf-router / reliability",
        [
            panel(
                "Fallbacks by path and reason",
                [
                    (
                        f"sum by (from_backend, to_backend, reason) (rate({fb}[{RATE}]))",
                        "{{from_backend}} → {{to_backend}} ({{reason}})",
                    )
                ],
                unit="reqps",
            ),
            panel(
                "Fallback ratio",
                [
                    (
                        f"sum(rate(smf_router_fallback_requests_total[{RATE}]))"
                        f" / sum(rate(smf_router_requests_total[{RATE}]))",
                        "share of requests with a fallback",
                    )
                ],
                unit="percentunit",
            ),
            panel(
                "Attempts by backend and outcome",
                [
                    (
                        "sum by (backend, outcome, error_kind) "
                        f"(rate(smf_router_attempts_total{{{B}}}[{RATE}]))",
                        "{{backend}} {{outcome}} {{error_kind}}",
                    )
                ],
                unit="reqps",
            ),
            panel(
                "Backend up",
                [(f"max by (backend, tier) (smf_router_backend_up{{{B}}})", "{{backend}}")],
                kind="stat",
            ),
            panel(
                "Circuit state",
                [
                    (
                        f"max by (backend, state) (smf_router_backend_circuit_state{{{B}}}) == 1",
                        "{{backend}}: {{state}}",
                    )
                ],
                kind="table",
            ),
            panel(
                "In-flight attempts by backend",
                [
                    (
                        f"sum by (backend) (smf_router_backend_inflight_requests{{{B}}})",
                        "{{backend}}",
                    )
                ],
            ),
            panel(
                "Backend capacity: running and waiting",
                [
                    (f"smf_router_backend_running_requests{{{B}}}", "{{backend}} running"),
                    (f"smf_router_backend_waiting_requests{{{B}}}", "{{backend}} waiting"),
                ],
            ),
            panel(
                "Backend KV-cache use",
                [(f"smf_router_backend_kv_cache_usage_ratio{{{B}}}", "{{backend}}")],
                unit="percentunit",
            ),
            panel(
                "Ledger queue and flush time",
                [
                    ("max(smf_router_ledger_queue_depth)", "queued records"),
                    ("max(smf_router_ledger_last_flush_seconds)", "last flush (s)"),
                ],
            ),
            panel(
                "Ledger records written and dropped",
                [
                    (f"sum(rate(smf_router_ledger_written_records_total[{RATE}]))", "written"),
                    (f"sum(rate(smf_router_ledger_dropped_records_total[{RATE}]))", "dropped"),
                ],
                unit="short",
                description="Dropped should stay at zero; an alert fires when it does not.",
            ),
            *process_panels(),
        ],
    )


def process_panels() -> list[dict[str, Any]]:
    """The router process itself: a slow leak, a busy core, the collector stopping the loop."""
    return [
        panel(
            "Router process: resident memory",
            [
                ("max(smf_router_process_resident_memory_bytes)", "resident"),
                ("max(smf_router_process_arrow_allocated_bytes)", "of which Arrow (ledger)"),
            ],
            unit="bytes",
        ),
        panel(
            "Router process: CPU",
            [(f"sum(rate(smf_router_process_cpu_seconds_total[{RATE}]))", "cores busy")],
            unit="short",
        ),
        panel(
            "Garbage collections per minute",
            [
                (
                    f"sum by (generation) (rate(smf_router_gc_collections_total[{RATE}])) * 60",
                    "generation {{generation}}",
                )
            ],
            description="Generation 2 is a full collection, which pauses every request; "
            "it should stay near zero once the router has started.",
        ),
    ]


def quality() -> dict[str, Any]:
    sc = "smf_router_shadow_comparisons_total"
    return dashboard(
        "smf-quality",
        "smf-router / quality",
        [
            panel(
                "Canary pass rate by backend and suite",
                [(f"smf_router_canary_pass_ratio{{{B}}}", "{{backend}} / {{suite}}")],
                unit="percentunit",
            ),
            panel(
                "Canary margin over floor (lower bound - floor; below 0 closes the gate)",
                [
                    (
                        f"smf_router_canary_pass_lower_bound_ratio{{{B}}}"
                        " - smf_router_canary_floor_ratio",
                        "{{backend}} / {{suite}}",
                    )
                ],
                kind="table",
                unit="percentunit",
                description="What the gate compares: the 95% lower bound of the pass rate over "
                "the window minus the floor, once the window holds as many results as a record "
                "of all passes needs to clear the floor (at least canary.min_samples; 6 for a "
                "floor of 0.6). Suites without a floor have no row; 'Eval gates' shows the "
                "gates themselves.",
            ),
            panel(
                "Time since last canary run",
                [
                    (
                        f"time() - smf_router_canary_last_run_timestamp_seconds{{{B}}}",
                        "{{backend}} / {{suite}}",
                    )
                ],
                kind="table",
                unit="s",
            ),
            panel(
                "Eval gates (1 = intent kept away from backend)",
                [
                    (
                        f"max by (backend, intent) (smf_router_route_gated{{{B},{I}}})",
                        "{{backend}} / {{intent}}",
                    )
                ],
                kind="table",
            ),
            panel(
                "Shadow agreement by intent",
                [
                    (
                        f'sum by (intent) (increase({sc}{{result="agreed",{I}}}[$__range]))'
                        f" / sum by (intent) "
                        f'(increase({sc}{{result=~"agreed|disagreed",{I}}}[$__range]))',
                        "{{intent}}",
                    )
                ],
                kind="bargauge",
                unit="percentunit",
            ),
            panel(
                "Shadow comparisons and drops",
                [
                    (f"sum by (result) (rate({sc}{{{I}}}[{RATE}]))", "{{result}}"),
                    (
                        f"sum by (reason) (rate(smf_router_shadow_dropped_total[{RATE}]))",
                        "dropped: {{reason}}",
                    ),
                ],
            ),
        ],
    )


def cost() -> dict[str, Any]:
    def by_route(metric: str) -> str:
        return f"sum by (route) (increase({metric}{{{I},{B}}}[$__range]))"

    return dashboard(
        "smf-cost",
        "smf-router / cost",
        [
            panel(
                "Spend by route (range)",
                [(by_route("smf_router_cost_usd_total"), "{{route}}")],
                kind="bargauge",
                unit="currencyUSD",
            ),
            panel(
                "Counterfactual cloud cost by route (range)",
                [(by_route("smf_router_counterfactual_usd_total"), "{{route}}")],
                kind="bargauge",
                unit="currencyUSD",
            ),
            panel(
                "Offloaded dollars by route (range)",
                [(by_route("smf_router_offloaded_usd_total"), "{{route}}")],
                kind="bargauge",
                unit="currencyUSD",
            ),
            panel(
                "Spend and offload per hour",
                [
                    (
                        f"sum by (tier) (rate(smf_router_cost_usd_total[{RATE}])) * 3600",
                        "spend {{tier}}",
                    ),
                    (f"sum(rate(smf_router_offloaded_usd_total[{RATE}])) * 3600", "offloaded"),
                ],
                unit="currencyUSD",
            ),
            panel(
                "Tokens per second by route",
                [
                    (
                        f"sum by (route) (rate(smf_router_prompt_tokens_total{{{B}}}[{RATE}]))",
                        "{{route}} prompt",
                    ),
                    (
                        f"sum by (route) (rate(smf_router_completion_tokens_total{{{B}}}[{RATE}]))",
                        "{{route}} completion",
                    ),
                ],
            ),
            panel(
                "Local share of tokens",
                [
                    (
                        'sum(increase(smf_router_completion_tokens_total{tier="local"}[$__range]))'
                        " / sum(increase(smf_router_completion_tokens_total[$__range]))",
                        "local",
                    )
                ],
                kind="stat",
                unit="percentunit",
            ),
        ],
        hours=24,
    )


DASHBOARDS = {
    "overview": overview,
    "latency": latency,
    "reliability": reliability,
    "quality": quality,
    "cost": cost,
}


def render() -> dict[str, str]:
    """File name -> JSON text for every dashboard."""
    return {
        f"smf-{name}.json": json.dumps(build(), indent=2, ensure_ascii=False) + "\n"
        for name, build in DASHBOARDS.items()
    }


def main(argv: list[str]) -> int:
    files = render()
    if "--check" in argv:
        stale = [n for n, text in files.items() if _read(OUT / n) != text]
        for name in stale:
            print(f"grafana/dashboards/{name} is stale: run python grafana/generate.py")
        return 1 if stale else 0
    OUT.mkdir(exist_ok=True)
    for name, text in files.items():
        (OUT / name).write_text(text)
    print(f"wrote {len(files)} dashboards to {OUT}")
    return 0


def _read(path: Path) -> str | None:
    return path.read_text() if path.exists() else None


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
