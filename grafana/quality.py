"""The quality dashboard (`smf-quality`): whether the backends answer well enough to route to.

Canary pass rates and their margin over the gate's floor, time since the last run, the
cases asked by outcome (errors too: a canary that grades nothing), the rounds that passed a
backend by, and those never asked for a mistake in the case, the intents each gate keeps
away from a backend, and shadow agreement, results and drops.
"""

from __future__ import annotations

from typing import Any

from panels import RATE, B, I, dashboard, panel


def build() -> dict[str, Any]:
    sc = "smf_router_shadow_comparisons_total"
    return dashboard(
        "smf-quality",
        "smf-router / quality",
        [
            panel(
                "Canary pass rate by backend and suite",
                [
                    (
                        f"max by (backend, suite) (smf_router_canary_pass_ratio{{{B}}})",
                        "{{backend}} / {{suite}}",
                    )
                ],
                unit="percentunit",
            ),
            panel(
                "Canary margin over floor (lower bound - floor)",
                [
                    (
                        "max by (backend, suite) "
                        f"(smf_router_canary_pass_lower_bound_ratio{{{B}}}"
                        " - smf_router_canary_floor_ratio)",
                        "{{backend}} / {{suite}}",
                    )
                ],
                kind="table",
                unit="percentunit",
                description="The 95% lower bound of the pass rate over the window minus the "
                "floor. Below 0 closes no gate by itself: the gate compares it only once the "
                "window holds as many results as a record of all passes needs to clear the "
                "floor (at least canary.min_samples; 6 for a floor of 0.6, 16 for 0.8), so a "
                "suite with fewer reads below 0 while its gate stays open, even one that "
                "passed every case. Before that, from canary.min_samples on, a gate closes "
                "only when even the 95% upper bound is under the floor (0 of 5 for a floor "
                "of 0.6), which this table does not show. And a gate follows a verdict only "
                "once it held for half a canary.window of results in a row (or most of the "
                "last two windows' say so). Suites without a floor have no row; 'Eval "
                "gates' shows the gates themselves.",
            ),
            panel(
                "Time since the canary last graded each suite",
                [
                    (
                        "time() - max by (backend, suite) "
                        f"(smf_router_canary_last_run_timestamp_seconds{{{B}}})",
                        "{{backend}} / {{suite}}",
                    )
                ],
                kind="table",
                unit="s",
            ),
            panel(
                "Canary cases by outcome (per hour)",
                [
                    (
                        "max by (backend, status, error_kind) "
                        "(sum by (instance, backend, status, error_kind) "
                        f"(increase(smf_router_canary_cases_total{{{B}}}[1h])))",
                        "{{backend}}: {{status}} {{error_kind}}",
                    )
                ],
                description="Cases the canary asked in the hour before each point, as one "
                "replica counted them (every replica following the ledger counts each round "
                "it reads, so the "
                "max across replicas, not their sum): passed and failed ones are graded; errors"
                " (by kind) are not, and never enter a gate's window. A backend whose cases are"
                " all errors grades nothing (alert SmfCanaryBlind, per suite): its gates and "
                "the pass rates above stay as they were. transport: a refused or failed request"
                " (a 4xx, a backend down); timeout: no reply in time; sandbox: code cases "
                "cannot run on this host; case: a suite case that cannot be graded; grader, "
                "canary: a bug on the router's side.",
            ),
            panel(
                "Canary rounds passed by (per hour)",
                [
                    (
                        "max by (backend, reason) (sum by (instance, backend, reason) "
                        f"(increase(smf_router_canary_rounds_skipped_total{{{B}}}[1h])))",
                        "{{backend}}: {{reason}}",
                    )
                ],
                description="Canary rounds that passed a backend by in the hour before each "
                "point, at their start or part way, as one replica counted them (the max "
                "across replicas, as above). Such a round asks no case, or stops asking, and "
                "the cases it did not ask are in no count above. rate_limited, overloaded: a "
                "wait the backend asked for, its live traffic's, or the canary's own cases' "
                "(a 429 or 503 whose Retry-After is longer than its retry_after_max_s); "
                "saturated: a local backend too busy for its cases; circuit_open: down "
                "(alerts SmfLocalBackendDown, SmfCloudBackendDown); unsupported_kind: a "
                "backend the canary cannot reach. Rounds passed by for a wait or saturation "
                "with no case graded for an hour: alert SmfCanaryBlind, per backend.",
            ),
            panel(
                "Canary cases that never run (a mistake in the case), by suite",
                [
                    (
                        "max by (suite) (smf_router_canary_cases_not_runnable)",
                        "{{suite}}",
                    )
                ],
                decimals=0,
                description="Cases of each loaded suite that are N/A in every round for a "
                "mistake in the case (a key in a tool_call case's `expected` that the grader "
                "never reads, a tool the case does not offer, both prompt and messages): never "
                "asked, so in no count above, and a suite of only such cases grades nothing "
                "while its gate stays as it was. Should read 0; alert "
                "SmfCanaryCasesNotRunnable fires when a suite stays above 0 for 10 minutes. "
                "`smf-router config check` names each case and field in its lines that begin "
                "`not run (N/A until fixed):` (those that begin `runs as written, but check:` "
                "are cases that run, not counted here); fix the suite file and reload (the "
                "line falls back to 0). Every replica loads the "
                "same suites: the max across them, not their sum. Set at each load of the "
                "suites (start, reload); a suite that leaves the config loses its line.",
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
                description="Agreed / (agreed + disagreed) over the range: an intent whose "
                "answers all disagreed reads 0%, one with no decided comparison in it NaN.",
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
                unit="reqps",  # each one a replayed request
            ),
        ],
    )
