"""The cost dashboard (`smf-cost`): what routing spends and what it saves, by route.

Spend by route with the unpriced requests by backend beside it (their dollars are missing
from every dollar panel), the counterfactual all-cloud cost and offloaded dollars by route,
spend per hour by tier, tokens per route and the local share of tokens; it spans a day
rather than six hours.
"""

from __future__ import annotations

from typing import Any

from panels import RATE, B, I, dashboard, panel, share

# Beside the spend, because an unpriced backend's spend reads $0 there, as if it were free.
UNPRICED = (
    "Requests whose price is unknown, in the range: their dollars are missing from the "
    "spend, counterfactual and offload panels (the report counts them as unpriced_requests). "
    "A backend the config leaves unpriced is listed from the router's start, at 0 until it "
    "serves one; a priced one is not (nor one a reload priced, once the range has passed its "
    "last). A cloud backend here has no price: litellm's map does not know its model, so set "
    "`price` (input_per_mtok, output_per_mtok) on it in the config. A local backend here "
    "serves routes whose cloud backend, which its offload is measured against, has none: "
    "price that one. 0 when no backend is unpriced."
)

# Rounded: `increase()` extrapolates to the range's ends, so a count read 1.3 requests.
UNPRICED_QUERY = (
    f"round(sum by (backend) (increase(smf_router_unpriced_requests_total{{{I},{B}}}[$__range])))"
)


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
                description="What requests cost. A request with no known price adds nothing "
                "(not $0 of spend, but unknown): see Unpriced requests by backend.",
            ),
            panel(
                "Unpriced requests by backend (range)",
                [(UNPRICED_QUERY, "{{backend}}")],
                kind="bargauge",
                description=UNPRICED,
                no_value="0",
                decimals=0,
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
