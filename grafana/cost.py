"""The cost dashboard (`smf-cost`): what routing spends and what it saves, by route.

Spend, the counterfactual all-cloud cost and offloaded dollars by route, spend per hour by
tier, tokens per route and the local share of tokens; it spans a day rather than six hours.
"""

from __future__ import annotations

from typing import Any

from panels import RATE, B, I, dashboard, panel, share


def build() -> dict[str, Any]:
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
                        share(
                            'sum(increase(smf_router_completion_tokens_total{tier="local"}'
                            "[$__range]))",
                            "sum(increase(smf_router_completion_tokens_total[$__range]))",
                        ),
                        "local",
                    )
                ],
                kind="stat",
                unit="percentunit",
                description="Output tokens served by local backends over the range; 0% when "
                "none were.",
            ),
        ],
        hours=24,
    )
