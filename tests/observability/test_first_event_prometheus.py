"""A real Prometheus sees a router's first fallback, first refusal of a kind and first
failed request.

A series born with its first event starts at 1: `increase()` and `rate()` have no earlier
sample and read 0, so a dead primary's one fallback before its circuit opened never showed
on "Fallbacks by path and reason" (found in review, with Prometheus 2.42), nor did one
failed math request in `errors_total` (read 1, `increase()` 0: found in a later review).
The router now shows those series at 0 from the start (`router.metric_zeros`).
"""

from __future__ import annotations

import gzip
from pathlib import Path

import httpx
import pytest
from prometheus_server import Prometheus, require_prometheus

from tests.harness import Running, config_for, router, simulator

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
            prom.wait_ready()
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
