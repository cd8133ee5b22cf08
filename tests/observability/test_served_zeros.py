"""The series of requests that end well, and their tokens and dollars, exist at 0 before the
first request (`router.metric_zeros`).

Only the failures' series started at 0: `requests_total`'s `ok`, `client_error` and
`cancelled` series and every token and dollar series were born at their first request, a
step `increase()` never counts. On a fresh router with 15 s scrapes, 84 ok and 3 failed
requests read 6.4 ok requests, `SmfRequestsFailing` fired at 42% for 3.4%, and the cost
panels read a tenth of the spend (found in review, with a real Prometheus).
`test_first_event_prometheus.py` shows the same requests with a real Prometheus.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import yaml
from test_metric_zeros import series

from router import reload
from router.config import parse
from tests.harness import INTENTS, Running, Scrape, config_for, router, scrape, simulator

R = "smf_router_requests_total"
SPENT = (
    "smf_router_prompt_tokens_total",
    "smf_router_completion_tokens_total",
    "smf_router_cost_usd_total",
    "smf_router_counterfactual_usd_total",
)
OFF = "smf_router_offloaded_usd_total"
EVERY_INTENT = (*INTENTS, "unknown")
PRICE = {"input_per_mtok": 1.0, "output_per_mtok": 4.0}
TIERS = {"local": "local", "priced": "cloud", "cu": "cloud"}
ROUTES = {i: ["local", "priced"] for i in INTENTS} | {
    "math": ["cu", "local"],  # `cu` has no price: local's counterfactual is unknown here
    "reasoning": ["local", "cu"],
}


def three_backends(tmp_path: Path, sim: Running) -> dict[str, Any]:
    """`local`; `priced`, a cloud backend with a config price; `cu`, one with none."""
    servers = {name: sim for name in TIERS}
    data = config_for(servers, tmp_path, routes=ROUTES).model_dump(mode="json")
    for backend in data["backends"]:
        if backend["name"] == "priced":
            backend["price"] = PRICE
    return data


def ways(routes: dict[str, list[str]]) -> list[tuple[str, str, list[str]]]:
    """(intent, route, members) a request can take: a route named after an intent but the
    default (coding) takes that intent only; coding and a backend forced by name, any."""
    out = []
    for route, members in [*routes.items(), *((b, [b]) for b in TIERS)]:
        intents = (route,) if route in INTENTS and route != "coding" else EVERY_INTENT
        out += [(i, route, members) for i in intents]
    return out


def keyed(now: Scrape, name: str, *labels: str) -> dict[tuple[str, ...], float]:
    return {tuple(dict(k)[x] for x in labels): v for k, v in series(now, name).items()}


def where(now: Scrape, name: str) -> dict[tuple[str, ...], float]:
    return keyed(now, name, "intent", "route", "backend", "tier")


def ended(now: Scrape) -> dict[tuple[str, ...], float]:
    """`requests_total` but the failures (`test_failure_zeros.py` has those)."""
    labels = ("intent", "route", "backend", "tier", "outcome", "stream")
    return {k: v for k, v in keyed(now, R, *labels).items() if k[4] not in FAILED}


FAILED = ("upstream_error", "router_error")
CLIENTS = ("client_error", "cancelled")


def test_served_requests_tokens_and_dollars_start_at_zero_then_follow_reloads(
    tmp_path: Path,
) -> None:
    walk = ways(ROUTES)
    served = {(i, r, b, TIERS[b]) for i, r, members in walk for b in members}
    expected = (
        {
            (i, r, "none", "none", o, s)
            for i, r, _ in walk
            for o in CLIENTS
            for s in ("false", "true")
        }
        | {(*w, "ok", s) for w in served for s in ("false", "true")}
        | {(*w, o, "true") for w in served for o in CLIENTS}  # a stream after its answer began
        | {("none", "none", "none", "none", "client_error", s) for s in ("false", "true")}
    )
    # offloaded: a local member whose route's cloud backend is priced (a forced `local`'s
    # is the first configured, `priced`); not math's nor reasoning's (`cu`), nor a cloud one
    offloaded = {w for w in served if w[2] == "local" and w[1] not in ("math", "reasoning")}
    with simulator(profile="cloud", accept_any_model=True) as sim:
        data = three_backends(tmp_path, sim)
        with router(parse(data)) as proxy:
            before = scrape(proxy.root)  # no request yet
            assert ended(before) == dict.fromkeys(expected, 0)
            # a whole reply that answered has nothing left to end it but a bug
            assert ("coding", "coding", "local", "local", "cancelled", "false") not in expected
            for name in SPENT:  # every served (intent, route, backend), none unserved
                assert where(before, name) == dict.fromkeys(served, 0), name
            assert where(before, OFF) == dict.fromkeys(offloaded, 0)
            assert ("math", "math", "local", "local") in served - offloaded

            ask = {"model": "prose", "messages": [{"role": "user", "content": "hi"}]}
            reply = httpx.post(f"{proxy.url}/chat/completions", json=ask, timeout=30)
            assert reply.status_code == 200 and reply.headers["x-smf-backend"] == "local"
            after = scrape(proxy.root)
            prose = ("prose", "prose", "local", "local")
            assert ended(after)[(*prose, "ok", "false")] == 1
            assert where(after, "smf_router_prompt_tokens_total")[prose] > 0
            assert where(after, OFF)[prose] > 0  # what `priced` would have charged

            # `cu` goes, and prose with it: local only. The zeros the new config cannot
            # produce go; the counted ones stay (history); those of local alone on prose
            # stay too, as the new config produces them
            data["backends"] = [b for b in data["backends"] if b["name"] != "cu"]
            data["routes"] = {**data["routes"], "math": ["local"], "reasoning": ["local"]}
            data["routes"]["prose"] = ["local"]
            path = tmp_path / "router.yaml"
            path.write_text(yaml.safe_dump(data))
            reload.reloader_of(proxy.components).source = path
            assert httpx.post(f"{proxy.url}/router/reload").status_code == 200
            reloaded = scrape(proxy.root)
    requests = ended(reloaded)
    assert not [k for k in requests if k[2] == "cu" or k[1] == "cu"]
    assert not [k for k in requests if k[1] == "prose" and k[2] == "priced"]
    assert requests[(*prose, "ok", "false")] == 1 and requests[(*prose, "ok", "true")] == 0
    for name in SPENT:
        assert not [k for k in where(reloaded, name) if "cu" in k], name
    # math and reasoning are local's alone now, their cloud backend the first configured,
    # `priced`: their offloaded dollars can count, and start at 0
    dollars = where(reloaded, OFF)
    assert dollars[prose] > 0
    assert dollars[("math", "math", "local", "local")] == 0
    assert dollars[("reasoning", "reasoning", "local", "local")] == 0
