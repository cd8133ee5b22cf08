"""Eval-gated routing end to end: real router, two simulators, the shipped math suite.

The cloud simulator's math quality is dropped to 0 on purpose; the canary notices, the gate
closes, auto-routed math moves to local, a forced route still reaches cloud, and the gate
opens again when quality returns.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from router.ledger import Ledger
from tests.canary.servers import math_gating_canary
from tests.harness import RunningRouter, config_for, router, simulator

MATH = "Compute the sum of 1234 and 4321."


def _canary(tmp: Path, sims: dict[str, Any]) -> Any:
    return config_for(sims, tmp, canary=math_gating_canary(0.2, window=6, concurrency=2))


def _status(r: RunningRouter) -> dict[str, Any]:
    body: dict[str, Any] = httpx.get(f"{r.root}/v1/router/status", timeout=5).json()
    return body


def _until(check: Callable[[], bool], seconds: float = 30.0) -> None:
    end = time.monotonic() + seconds
    for _ in range(3000):
        if check() or time.monotonic() > end:
            break
        time.sleep(0.05)
    assert check(), "condition not reached"


def _ask(r: RunningRouter, model: str = "auto", n: int = 0) -> httpx.Response:
    """A math question; a different `n` is a different conversation (no stickiness)."""
    content = MATH.replace("1234", str(1234 + n))
    body = {"model": model, "messages": [{"role": "user", "content": content}]}
    response = httpx.post(f"{r.url}/chat/completions", json=body, timeout=10)
    response.raise_for_status()
    return response


def _gated(r: RunningRouter) -> dict[str, list[str]]:
    gated: dict[str, list[str]] = _status(r)["extra"]["canary"]["gated"]
    return gated


def test_gate_closes_moves_math_to_local_and_recovers(tmp_path: Path) -> None:
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        config = _canary(tmp_path, {"local": local, "cloud": cloud})
        with router(config) as r:
            _until(lambda: _status(r)["extra"]["canary"]["runs"] >= 2)
            assert _gated(r) == {}
            first = _ask(r)
            assert first.headers["x-smf-intent"] == "math"
            assert first.headers["x-smf-backend"] == "cloud"

            cloud.control("quality", {"math": 0.0})
            _until(lambda: "math" in _gated(r).get("cloud", []))
            moved = _ask(r, n=1)
            assert moved.headers["x-smf-backend"] == "local"
            backends = {b["name"]: b for b in _status(r)["backends"]}
            assert backends["cloud"]["gated_intents"] == ["math"]
            forced = _ask(r, model="cloud", n=2)
            assert forced.headers["x-smf-backend"] == "cloud"
            explain = httpx.post(
                f"{r.root}/v1/router/explain",
                json={"model": "auto", "messages": [{"role": "user", "content": MATH}]},
                timeout=5,
            ).json()
            assert {"backend": "cloud", "reason": "quality_gate"} in explain["skipped"]
            metrics = httpx.get(f"{r.root}/metrics", timeout=5).text
            assert 'smf_router_route_gated{backend="cloud",intent="math"} 1.0' in metrics

            cloud.control("quality", {"math": 1.0})
            _until(lambda: _gated(r) == {})
            assert _ask(r, n=3).headers["x-smf-backend"] == "cloud"
            metrics = httpx.get(f"{r.root}/metrics", timeout=5).text
            assert 'smf_router_route_gated{backend="cloud",intent="math"} 0.0' in metrics
    with Ledger(tmp_path / "ledger") as ledger:
        statuses = dict(
            ledger.sql("SELECT backend || '/' || status, count(*) FROM canary_results GROUP BY 1")
        )
        runs = ledger.sql("SELECT count(DISTINCT run_id), sum(cases) FROM canary_runs")[0]
    assert statuses.get("cloud/fail", 0) >= 3
    assert statuses.get("local/pass", 0) >= 6
    assert "local/fail" not in statuses
    assert runs[0] >= 4 and runs[1] >= 24
