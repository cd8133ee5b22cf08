"""The latency dashboard (`smf-latency`): how fast answers start, flow and finish.

Time to first token, request duration and time per output token per backend (p50/p95/p99),
TTFT by intent, attempt duration by outcome, and the classifier's own share of the wait.
"""

from __future__ import annotations

from typing import Any

from panels import RATE, B, I, dashboard, panel, quantiles


def build() -> dict[str, Any]:
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
