"""A real Prometheus sees a router's first fallback, first refusal of a kind and first
failed request.

A series born with its first event starts at 1: `increase()` and `rate()` have no earlier
sample and read 0, so a dead primary's one fallback before its circuit opened never showed
on "Fallbacks by path and reason" (found in review, with Prometheus 2.42), nor did one
failed math request in `errors_total` (read 1, `increase()` 0: found in a later review).
The router now shows those series at 0 from the start (`router.metric_zeros`). Then the
same for the requests that end well and their tokens and dollars: 84 ok and 3 failed
requests on a fresh router read 6.4 ok ones, `SmfRequestsFailing` fired at 42% for 3.4%,
and the cost panels read $0.00095 for $0.00929 (found in review, with Prometheus 2.42).
"""

from __future__ import annotations

import gzip
from pathlib import Path

import httpx
import pytest
import yaml
from dashboard_queries import ALERTS
from prometheus_server import Prometheus, require_prometheus

from router.config import parse
from tests.harness import INTENTS, Running, config_for, router, scrape, simulator

pytestmark = pytest.mark.slow

MOVE = 'smf_router_fallbacks_total{from_backend="local",to_backend="cloud",reason="unreachable"}'
REFUSED = 'smf_router_rejected_requests_total{api="chat",status="415"}'
KIND = 'smf_router_errors_total{intent="none",kind="unsupported_content_encoding"}'
# a math request: the cloud answered 500, then the dead local backend refused the connection
MATH = 'intent="math",route="math",backend="none",tier="none"'
FAILED = 'smf_router_errors_total{intent="math",outcome="upstream_error",kind="server_error"}'
FAILED_REQUEST = f'smf_router_requests_total{{{MATH},outcome="upstream_error",stream="false"}}'
MOVED_REQUEST = f"smf_router_fallback_requests_total{{{MATH}}}"


def test_increase_counts_the_first_fallback_refusal_and_failed_request(
    tmp_path: Path, dead_port: int
) -> None:
    require_prometheus()
    dead = Running(f"http://127.0.0.1:{dead_port}/v1", f"http://127.0.0.1:{dead_port}")
    with (
        simulator(profile="cloud", model="cloud-model") as cloud,
        router(config_for({"local": dead, "cloud": cloud}, tmp_path)) as proxy,
    ):
        host = proxy.root.removeprefix("http://")
        prom = Prometheus(tmp_path, {"smf-router": [host]}, rule_file=None)
        try:
            prom.wait_for(f'count_over_time(up{{instance="{host}"}}[5m])', 2)  # two scrapes
            ask = {"model": "coding", "messages": [{"role": "user", "content": "hi"}]}
            served = httpx.post(f"{proxy.url}/chat/completions", json=ask, timeout=30)
            assert served.status_code == 200  # local refused the connection: cloud served
            packed = gzip.compress(b'{"model": "coding", "messages": []}')
            encoded = {"content-encoding": "gzip", "content-type": "application/json"}
            refused = httpx.post(
                f"{proxy.url}/chat/completions", content=packed, headers=encoded, timeout=10
            )
            assert refused.status_code == 415
            cloud.control("faults", {"fault": "server_error:500"})
            math = {"model": "math", "messages": [{"role": "user", "content": "2+2?"}]}
            failed = httpx.post(f"{proxy.url}/chat/completions", json=math, timeout=30)
            assert failed.status_code == 502  # the cloud said 500; local refused the connection
            for counter in (MOVE, REFUSED, KIND, FAILED, FAILED_REQUEST, MOVED_REQUEST):
                prom.wait_for(f"max_over_time({counter}[5m])", 1)  # scraped once it moved
                prom.wait_for(f"count_over_time({counter}[5m])", 2)  # born at 1: a 2nd sample
                increase = prom.series(f"sum(increase({counter}[5m]))")
                assert increase and float(increase[0]["value"][1]) > 0, counter
        finally:
            prom.stop()


OK = 'smf_router_requests_total{outcome="ok"}'
FAILING = 'smf_router_requests_total{outcome=~"upstream_error|router_error"}'
DOLLARS = ("cost_usd", "counterfactual_usd", "offloaded_usd", "prompt_tokens")


def failing_share() -> str:
    """`SmfRequestsFailing`'s share of failed requests, without its threshold."""
    rules = yaml.safe_load(ALERTS.read_text())["groups"][0]["rules"]
    (rule,) = [r for r in rules if r["alert"] == "SmfRequestsFailing"]
    share, _, _ = rule["expr"].partition(" > 0.05")
    return str(share)


def test_increase_counts_a_fresh_routers_first_requests_and_dollars(
    tmp_path: Path, dead_port: int
) -> None:
    """The review's case, smaller: a burst of served requests on a fresh router, after
    Prometheus's first scrapes, and one failure (a backend forced by name that is down)."""
    require_prometheus()
    dead = Running(f"http://127.0.0.1:{dead_port}/v1", f"http://127.0.0.1:{dead_port}")
    routes = {i: ["local", "cloud"] for i in INTENTS} | {"math": ["cloud", "local"]}
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        servers = {"local": local, "cloud": cloud, "spare": dead}
        data = config_for(servers, tmp_path, routes=routes).model_dump(mode="json")
        for backend in data["backends"]:
            if backend["name"] == "cloud":  # so that local's requests offload dollars
                backend["price"] = {"input_per_mtok": 2.5, "output_per_mtok": 10.0}
        with router(parse(data)) as proxy:
            host = proxy.root.removeprefix("http://")
            prom = Prometheus(tmp_path, {"smf-router": [host]}, rule_file=None)
            try:
                prom.wait_for(f'count_over_time(up{{instance="{host}"}}[5m])', 2)  # two scrapes
                sent = {"coding": 12, "math": 12}  # local serves coding, the cloud math
                for route, n in sent.items():
                    ask = {"model": route, "messages": [{"role": "user", "content": "hi"}]}
                    for _ in range(n):
                        reply = httpx.post(f"{proxy.url}/chat/completions", json=ask, timeout=30)
                        assert reply.status_code == 200, reply.text
                ask = {"model": "spare", "messages": [{"role": "user", "content": "hi"}]}
                assert httpx.post(f"{proxy.url}/chat/completions", json=ask).status_code == 502
                served = sum(sent.values())
                prom.wait_for(f"sum({OK})", served)  # scraped once the last one counted
                prom.wait_for(f"sum({FAILING})", 1)
                now = scrape(proxy.root)
                counted = {
                    name: sum(
                        v for (n, _), v in now.samples.items() if n == f"smf_router_{name}_total"
                    )
                    for name in DOLLARS
                }
                scraped = prom.series(f'count_over_time(up{{instance="{host}"}}[5m])')
                prom.wait_for(  # a few samples more, for each series, at its last value
                    f'count_over_time(up{{instance="{host}"}}[5m])',
                    float(scraped[0]["value"][1]) + 3,
                )
                increase = {
                    name: prom.series(f"sum(increase(smf_router_{name}_total[5m]))")
                    for name in ("requests", *DOLLARS)
                }
                ok = prom.series(f"sum(increase({OK}[5m]))")
                share = prom.series(failing_share())
                first = prom.series(f"min(min_over_time({OK}[5m]))")
            finally:
                prom.stop()
    # the whole burst: the series were at 0 before it (increase() never reads less)
    assert ok and float(ok[0]["value"][1]) >= served, ok
    assert float(increase["requests"][0]["value"][1]) >= served + 1, increase
    for name, value in counted.items():
        assert value > 0, name
        assert float(increase[name][0]["value"][1]) >= value * 0.999, (name, increase, counted)
    # 1 failure in 25 requests: 4%, under the alert's 5% (it read 100% when every ok
    # series was born with the burst)
    assert share and float(share[0]["value"][1]) < 0.05, share
    assert float(first[0]["value"][1]) == 0  # each ok series was seen at 0 before the burst
