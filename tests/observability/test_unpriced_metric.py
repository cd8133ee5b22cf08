"""Requests with no known price are counted on /metrics, as the ledger and the report count
them (`smf_router_unpriced_requests_total`).

An unpriced cloud backend's cost is stored as unknown (NULL) and the report counts its
requests, but Prometheus added nothing to the cost counter for them: the cost dashboard
showed its spend as $0, which reads as "free" (found in review). Then each unpriced series
was born at its first request, a step `increase()` never counts: the dashboard's count read
0 for every backend of a fresh router (found in review, with a real Prometheus). They now
exist at 0 from the config (`router.metric_zeros`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from dashboard_queries import panel_queries
from prometheus_server import Prometheus, require_prometheus

from router import metric_zeros, pricing, reload, report
from router.config import parse
from tests.harness import INTENTS, Running, config_for, router, scrape, simulator

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
    assert unpriced("prose", "priced", "cloud") is None  # priced: no series, none can count
    assert unpriced("coding", "local", "local") is None
    # the dollars leave them out: the cost counter holds the priced backend's alone
    cost = "smf_router_cost_usd_total"
    assert now.get(cost, intent="math", route="math", backend="cloud", tier="cloud") == 0
    assert (now.get(cost, intent="prose", route="prose", backend="priced", tier="cloud") or 0) > 0

    # the same decision as the ledger's: the report of these requests counts as many
    counted = sum(v for (name, _), v in now.samples.items() if name == U)
    totals = report.build(tmp_path / "ledger")["totals"]
    assert totals["requests"] == sum(sent.values())
    assert totals["unpriced_requests"] == counted == 3


def four_backends(tmp_path: Path, sim: Running, dead_port: int) -> dict[str, Any]:
    """`cu`: a cloud backend with no price anywhere; `priced`: one with a config price;
    `local`; `spare`: a local one that refuses connections. writing falls back from `spare`
    to `cu`, math goes to `cu`, reasoning and the default route (coding) stay local with
    `cu` as their cloud backend, prose goes to `priced`."""
    dead = Running(f"http://127.0.0.1:{dead_port}/v1", f"http://127.0.0.1:{dead_port}")
    routes = {i: ["local", "priced"] for i in INTENTS} | {
        "writing": ["spare", "cu"],
        "math": ["cu", "local"],
        "reasoning": ["local", "cu"],
        "coding": ["local", "cu"],
        "prose": ["priced", "local"],
    }
    servers = {"local": sim, "spare": dead, "cu": sim, "priced": sim}
    data = config_for(servers, tmp_path, routes=routes).model_dump(mode="json")
    for backend in data["backends"]:
        if backend["name"] == "priced":
            backend["price"] = PRICE
        if backend["name"] == "spare":
            backend["tier"] = "local"
    return data


def ask(url: str, route: str, backend: str) -> None:
    body = {"model": route, "messages": [{"role": "user", "content": "hi"}]}
    reply = httpx.post(f"{url}/chat/completions", json=body, timeout=30)
    assert reply.status_code == 200, reply.text
    assert reply.headers["x-smf-backend"] == backend


def unpriced_series(root: str) -> dict[tuple[str, str, str, str], float]:
    return {
        (d["intent"], d["route"], d["backend"], d["tier"]): value
        for (name, labels), value in scrape(root).samples.items()
        if name == U
        for d in [dict(labels)]
    }


@pytest.mark.slow
def test_the_cost_panel_counts_a_fresh_routers_first_unpriced_requests(
    tmp_path: Path, dead_port: int
) -> None:
    """The review's case: 1 writing request falling back to the unpriced `cu`, 3 reasoning
    requests served locally with `cu` as their cloud backend, 1 math to `cu`. /metrics said
    1, 3, 1 and the panel 0 for each backend ("priced", per its description)."""
    require_prometheus()
    (query,) = [q.expr for q in panel_queries() if "/ Unpriced requests by backend" in q.where]
    with (
        simulator(profile="cloud", accept_any_model=True) as sim,
        router(parse(four_backends(tmp_path, sim, dead_port))) as proxy,
    ):
        host = proxy.root.removeprefix("http://")
        prom = Prometheus(tmp_path, {"smf-router": [host]}, rule_file=None)
        try:
            prom.wait_for(f'count_over_time(up{{instance="{host}"}}[5m])', 2)  # two scrapes
            ask(proxy.url, "writing", "cu")
            for _ in range(3):
                ask(proxy.url, "reasoning", "local")
            ask(proxy.url, "math", "cu")
            ask(proxy.url, "prose", "priced")
            sent = {"cu": 2, "local": 3}
            for backend, n in sent.items():  # scraped once they moved
                prom.wait_for(f'max_over_time(sum({U}{{backend="{backend}"}})[5m:1s])', n)
            # each counted series has two samples (born at its first, it had one then)
            prom.wait_for(f'min(count_over_time({U}{{backend=~"cu|local"}}[5m]))', 2)
            read = {s["metric"]["backend"]: float(s["value"][1]) for s in prom.series(query)}
        finally:
            prom.stop()
    # each at least its count: a series born at 0 is not extrapolated back before it
    assert set(sent) <= set(read) and all(read[b] >= n for b, n in sent.items()), read
    assert "priced" not in read, read  # a priced backend is not listed
    assert all(value.is_integer() for value in read.values()), read  # rounded: a count


def test_unpriced_series_exist_at_0_from_the_start_and_follow_a_reload_of_prices(
    tmp_path: Path, dead_port: int
) -> None:
    every = (*INTENTS, "unknown")
    local, spare, cu = ("local", "local"), ("spare", "local"), ("cu", "cloud")
    # the routes' members left unpriced by `cu`, with the intent a route is named for, any
    # on the default route (coding); and each backend forced by name (its route), whose
    # cloud backend is then the first configured, `cu`
    members = {"coding": [local, cu], "writing": [spare, cu], "math": [cu, local]}
    members |= {"reasoning": [local, cu]}
    expected = {
        (i, route, *backend)
        for route, served in members.items()
        for backend in served
        for i in (every if route == "coding" else (route,))
    } | {(i, b[0], *b) for b in (local, spare, cu) for i in every}
    with simulator(profile="cloud", accept_any_model=True) as sim:
        data = four_backends(tmp_path, sim, dead_port)
        with router(parse(data)) as proxy:
            before = unpriced_series(proxy.root)
            assert set(before) == expected  # none for `priced`, nor prose's and the others'
            assert set(before.values()) == {0}
            ask(proxy.url, "math", "cu")
            assert unpriced_series(proxy.root)[("math", "math", "cu", "cloud")] == 1

            # `cu` gets a price, `priced` loses its own: cu's count stays (history) and stops
            # growing, the zeros of its routes go; those of `priced`'s are created at 0
            for backend in data["backends"]:
                if backend["name"] == "cu":
                    backend["price"] = PRICE
                if backend["name"] == "priced":
                    backend.pop("price")
            path = tmp_path / "router.yaml"
            path.write_text(yaml.safe_dump(data))
            reload.reloader_of(proxy.components).source = path
            assert httpx.post(f"{proxy.url}/router/reload").status_code == 200
            ask(proxy.url, "math", "cu")
            after = unpriced_series(proxy.root)
            assert after.pop(("math", "math", "cu", "cloud")) == 1
            assert set(after.values()) == {0}
            priced = ("priced", "cloud")
            routes = ("instruction", "tool_calling", "prose")  # local then `priced`, or reverse
            assert set(after) == {(r, r, *b) for r in routes for b in (local, priced)} | {
                (i, "priced", *priced) for i in every
            }


def test_the_zero_series_walk_asks_the_pricer_and_says_nothing(
    tmp_path: Path, dead_port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`router.metric_zeros` prices a request on each (route, backend) with a `Pricer`: the
    decision is the pricer's own, and its "no price" line is serve's to log, not the walk's
    (at start and on every reload)."""
    said: list[tuple[Any, ...]] = []
    monkeypatch.setattr(pricing.log, "warning", lambda *args: said.append(args))
    dead = Running(f"http://127.0.0.1:{dead_port}/v1", f"http://127.0.0.1:{dead_port}")
    series = metric_zeros.unpriced_series(parse(four_backends(tmp_path, dead, dead_port)))
    assert ("math", "math", "cu", "cloud") in series
    assert ("reasoning", "reasoning", "local", "local") in series  # its counterfactual, `cu`
    assert not [s for s in series if s[2] == "priced" or s[1] == "prose"]
    assert said == []
