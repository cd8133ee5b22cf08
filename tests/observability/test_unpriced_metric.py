"""Requests with no known price are counted on /metrics, as the ledger and the report count
them (`smf_router_unpriced_requests_total`).

An unpriced cloud backend's cost is stored as unknown (NULL) and the report counts its
requests, but Prometheus added nothing to the cost counter for them: the cost dashboard
showed its spend as $0, which reads as "free" (found in review).
"""

from __future__ import annotations

from pathlib import Path

import httpx

from router import report
from router.config import parse
from tests.harness import INTENTS, config_for, router, scrape, simulator

U = "smf_router_unpriced_requests_total"
PRICE = {"input_per_mtok": 1.0, "output_per_mtok": 4.0}


def test_unpriced_requests_are_counted_per_backend_as_the_report_counts_them(
    tmp_path: Path,
) -> None:
    # `cloud` serves `cloud-model`, in no price map and with no `price`: unpriced; `priced`
    # has a price in the config. reasoning's counterfactual is the unpriced backend, coding's
    # the priced one.
    routes = {i: ["local", "priced"] for i in INTENTS} | {
        "math": ["cloud", "local"],
        "prose": ["priced", "local"],
        "reasoning": ["local", "cloud"],
    }
    with simulator(profile="cloud", accept_any_model=True) as sim:
        servers = {"local": sim, "cloud": sim, "priced": sim}
        data = config_for(servers, tmp_path, routes=routes).model_dump(mode="json")
        for backend in data["backends"]:
            if backend["name"] == "priced":
                backend["price"] = PRICE
        with router(parse(data)) as proxy:
            sent = {"math": 2, "prose": 2, "reasoning": 1, "coding": 1}
            for route, n in sent.items():
                for _ in range(n):
                    ask = {"model": route, "messages": [{"role": "user", "content": "hi"}]}
                    reply = httpx.post(f"{proxy.url}/chat/completions", json=ask, timeout=30)
                    assert reply.status_code == 200, reply.text
                    assert reply.headers["x-smf-backend"] == routes[route][0]
            now = scrape(proxy.root)

    def unpriced(route: str, backend: str, tier: str) -> float | None:
        return now.get(U, intent=route, route=route, backend=backend, tier=tier)

    assert unpriced("math", "cloud", "cloud") == 2  # its own cost is unknown
    assert unpriced("reasoning", "local", "local") == 1  # what the cloud would have charged
    assert unpriced("prose", "priced", "cloud") == 0  # priced: counted 0, the series is there
    assert unpriced("coding", "local", "local") == 0
    # the dollars leave them out: the cost counter holds the priced backend's alone
    cost = "smf_router_cost_usd_total"
    assert now.get(cost, intent="math", route="math", backend="cloud", tier="cloud") == 0
    assert (now.get(cost, intent="prose", route="prose", backend="priced", tier="cloud") or 0) > 0

    # the same decision as the ledger's: the report of these requests counts as many
    counted = sum(v for (name, _), v in now.samples.items() if name == U)
    totals = report.build(tmp_path / "ledger")["totals"]
    assert totals["requests"] == sum(sent.values())
    assert totals["unpriced_requests"] == counted == 3
