"""The reliability dashboard (`smf-reliability`): fallbacks, backend health and the router itself.

Fallbacks and attempts, the backends passed by and why (with a 429's and a 503's wait
left), backend up, circuit state, in-flight, running/waiting and KV-cache use, the ledger's
queue, flushes (one stuck in a write too) and drops, the spans tracing lost, and the router
process's memory, CPU and garbage collections (a slow leak or a full collection shows here
first), whether its last config reload applied or left settings waiting for a restart, and
how many it refused.
"""

from __future__ import annotations

from typing import Any

from panels import RATE, UP, B, dashboard, panel, states


def build() -> dict[str, Any]:
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
                        f' / sum(rate(smf_router_requests_total{{route!="none"}}[{RATE}]))',
                        "share of requests with a fallback",
                    )
                ],
                unit="percentunit",
                description=(
                    "Of the requests the router planned: those it refused before a plan"
                    " (route none: a bad body or model) had no backend to fall back"
                    " from, and a flood of them would hide the fallbacks."
                ),
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
                "Backends passed by, by reason",
                [
                    (
                        "sum by (backend, reason) "
                        f"(rate(smf_router_backend_skips_total{{{B}}}[{RATE}]))",
                        "{{backend}} {{reason}}",
                    ),
                    (
                        f"max by (backend) (smf_router_backend_rate_limited_seconds{{{B}}})",
                        "{{backend}}: 429 wait left",
                    ),
                    (
                        f"max by (backend) (smf_router_backend_overloaded_seconds{{{B}}})",
                        "{{backend}}: 503 wait left",
                    ),
                ],
                unit="reqps",
                units={"B": "s", "C": "s"},  # requests passed by, and seconds: one axis each
                description="Requests that passed each backend by without calling it, by the "
                "plan's reason: circuit_open, rate_limited (a 429 asked for a wait longer "
                "than its retry_after_max_s), overloaded (a 503 or 529 did), quality_gate, "
                "and those of the request itself "
                "(private, context_window, api_unsupported, ...; context_too_long: past "
                "another backend's refusal of the prompt). None of these is an attempt: "
                "'Attempts by backend and outcome' reads 0/s for them, as for no traffic, "
                "and a rate-limited backend's circuit stays closed and its up 1. A "
                "saturated backend put last is not passed by: it is still tried. 429 wait "
                "left is the seconds until a rate-limited backend is tried again (alert "
                "SmfBackendRateLimited once one has run 5 minutes), 503 wait left an "
                "overloaded one's (alert SmfBackendOverloaded).",
            ),
            panel(
                "Backend up",
                [(f"max by (backend, tier) (smf_router_backend_up{{{B}}})", "{{backend}}")],
                kind="stat",
                mappings={"A": UP},
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
                    (
                        f"max by (backend) (smf_router_backend_running_requests{{{B}}})",
                        "{{backend}} running",
                    ),
                    (
                        f"max by (backend) (smf_router_backend_waiting_requests{{{B}}})",
                        "{{backend}} waiting",
                    ),
                ],
                description="As the backend reports them (vLLM's /metrics), which every "
                "replica polls alike: the max across replicas, one line each.",
            ),
            panel(
                "Backend KV-cache use",
                [
                    (
                        f"max by (backend) (smf_router_backend_kv_cache_usage_ratio{{{B}}})",
                        "{{backend}}",
                    )
                ],
                unit="percentunit",
            ),
            panel(
                "Ledger queue and flush time",
                [
                    ("max(smf_router_ledger_queue_depth)", "queued records"),
                    ("max(smf_router_ledger_last_flush_seconds)", "last flush"),
                    ("max(smf_router_ledger_pending_records)", "held after failed writes"),
                    ("max(smf_router_ledger_flush_running_seconds)", "flush under way"),
                ],
                units={"B": "s", "D": "s"},  # counts and seconds: one axis each
                description="Held after failed writes should stay at zero: those rows are in "
                "memory only, and an alert fires when they stay. Flush under way is how long "
                "the flush now running has taken, 0 between flushes: a write that hangs (a "
                "stalled volume) fails nothing, so nothing is held and the last flush keeps "
                "its old time while this line climbs and the queue grows behind it; an alert "
                "fires when it stays over a minute.",
            ),
            panel(
                "Ledger records written and dropped",
                [
                    (f"sum(rate(smf_router_ledger_written_records_total[{RATE}]))", "written"),
                    (f"sum(rate(smf_router_ledger_dropped_records_total[{RATE}]))", "dropped"),
                ],
                unit="reqps",  # one record per request (Grafana's `rps` is reads/s)
                description="Dropped should stay at zero; an alert fires when it does not.",
            ),
            panel(
                "Tracing: spans lost (per 10 minutes)",
                [
                    (
                        "sum by (instance, reason) "
                        "(increase(smf_router_tracing_dropped_spans_total[10m]))",
                        "{{instance}}: {{reason}}",
                    )
                ],
                description="Spans each replica lost in the 10 minutes before each point, as "
                "alert SmfTracingDroppingSpans reads them (it fires when a line stays above "
                "zero for 10 minutes); 0 while tracing is off. export_failed: the OTLP "
                "collector (OTEL_EXPORTER_OTLP_ENDPOINT) is down, refusing or too slow; "
                "queue_full: spans arrive faster than it takes them (OTEL_BSP_MAX_QUEUE_SIZE "
                "bounds the queue). Requests are served as usual: only their traces are "
                "missing. increase() extrapolates to the window's ends: 3 spans can read 3.25.",
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
        panel(
            "Router config: last reload, restart needed, age, refused reloads",
            [
                (
                    "min by (instance) (smf_router_config_last_reload_successful)",
                    "{{instance}}: last reload applied",
                ),
                (
                    "time() - max by (instance) "
                    "(smf_router_config_last_reload_success_timestamp_seconds)",
                    "{{instance}}: running config loaded",
                ),
                (
                    "max by (instance) (smf_router_config_restart_needed)",
                    "{{instance}}: restart needed",
                ),
                (
                    # rounded: `increase()` extrapolates to the range's ends (1.3 reloads)
                    "round(sum by (instance) (increase(smf_router_config_reloads_total"
                    '{outcome="rejected"}[$__range])))',
                    "{{instance}}: reloads refused in range",
                ),
            ],
            kind="stat",
            units={"B": "s"},  # two 0/1 flags and an age: a unit each
            mappings={
                "A": states(("refused", "red"), ("applied", "green")),
                "C": states(("no", "green"), ("yes", "orange")),
            },
            description="Last reload applied reads 0 while the router runs an older config "
            "than its file, which it refused (alert SmfRouterConfigReloadFailed); restart "
            "needed reads 1 while a reload that applied left settings only a restart applies "
            "(ledger, server, ...: the reload's restart_needed), so the file and what runs "
            "differ until then; the age counts from start, or from the last reload that "
            "applied. Reloads refused counts those over the dashboard's range, one fixed "
            "since too (last reload applied then reads applied again): each was an edit "
            "that did not apply when it was meant to. It is meant for ranges of an hour or "
            "more: over a few scrape intervals increase() extrapolates to the range's ends, "
            "and can overstate it (one refusal in a 1-minute range can read 2).",
        ),
    ]
