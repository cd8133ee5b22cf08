"""A real Prometheus sees a router's first fallback and first refusal of a kind.

A series born with its first event starts at 1: `increase()` and `rate()` have no earlier
sample and read 0, so a dead primary's one fallback before its circuit opened never showed
on "Fallbacks by path and reason" (found in review, with Prometheus 2.42). The router now
shows those series at 0 from the start (`router.metric_zeros`).
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


def test_increase_counts_the_first_fallback_and_the_first_refusal(
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
            for counter in (MOVE, REFUSED, KIND):
                prom.wait_for(f"max_over_time({counter}[5m])", 1)  # scraped once it moved
                prom.wait_for(f"count_over_time({counter}[5m])", 2)  # born at 1: a 2nd sample
                increase = prom.series(f"sum(increase({counter}[5m]))")
                assert increase and float(increase[0]["value"][1]) > 0, counter
        finally:
            prom.stop()
