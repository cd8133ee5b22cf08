"""The overview dashboard (`smf-overview`): where traffic goes and what that saves, at a glance.

Above it all, whether a router runs in demo mode (every answer then simulated); route share
by tier, requests by intent and backend, offloaded dollars, failures and errors, classifier
confidence and the streaming share; the other four dashboards go into detail.
"""

from __future__ import annotations

from typing import Any

from panels import RATE, B, I, banner, dashboard, panel, quantiles, share, states


def build() -> dict[str, Any]:
    req = "smf_router_requests_total"
    rejected = "smf_router_rejected_requests_total"
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
                    (  # what was routed, and router bugs met before routing; refusals
                        # come from their own counter, below
                        "sum by (outcome) (rate("
                        f'{req}{{outcome!="ok",route!="none",{I},{B}}}[{RATE}]) or rate('
                        f'{req}{{outcome="router_error",route="none",{I},{B}}}[{RATE}]))',
                        "{{outcome}}",
                    ),
                    (
                        f"sum by (api, status) (rate({rejected}[{RATE}]))",
                        "refused: {{api}} {{status}}",
                    ),
                ],
                unit="reqps",
                description=(
                    "Requests the router routed that did not end ok, by outcome (with the"
                    " router's own bugs met before routing, under router_error); and every"
                    " request it refused itself before routing (a bad key, body or model, a"
                    " web page's, a compressed body; on every path), by API and status. A"
                    " refusal with a record is also a client_error of route none in"
                    " requests_total: left out above, so none is counted twice."
                ),
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
                        share(  # of what was routed: a refusal's `stream` is the body's
                            f'sum(rate({req}{{stream="true",route!="none"}}[{RATE}]))',
                            f'sum(rate({req}{{route!="none"}}[{RATE}]))',
                        ),
                        "streamed",
                    )
                ],
                kind="stat",
                unit="percentunit",
            ),
        ],
        banner=demo_banner(),
    )


def demo_banner() -> dict[str, Any]:
    """In demo mode the simulator answers every request, and every panel below charts its
    fake traffic as if it were real: a strip atop the overview says so, per replica, as
    loudly as a dashboard can (alert SmfRouterDemo, after 2 minutes)."""
    return banner(
        "Demo mode (the built-in simulator answers every request)",
        "max by (instance) (smf_router_demo)",
        "{{instance}}",
        states(("live backends", "green"), ("DEMO: answers are simulated", "red")),
        description="DEMO on a replica means no backend is configured there: both backends "
        "are the built-in simulator, every answer it gives is fake (marked x-smf-demo: true) "
        "and its traffic is recorded in ./var/demo-ledger only, yet counted on every panel "
        "of these dashboards. A router started without its config file or SMF_* variables "
        "falls into demo mode: restore them and restart (alert SmfRouterDemo).",
    )
