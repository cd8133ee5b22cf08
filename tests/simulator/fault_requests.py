"""Plain chat requests to a simulator with a fault injected, over one raw httpx client.

Shared by the fault tests (`test_simulator_faults.py`, `test_simulator_stream_faults.py`):
httpx and no SDK, so no retry of the SDK's hides what the simulator did.
"""

from __future__ import annotations

from typing import Any

import httpx

from router.simulator import SimThread

MODEL = "tiny"


def body(stream: bool = False, model: str = MODEL, text: str = "Tell me a story") -> dict[str, Any]:
    out: dict[str, Any] = {"model": model, "messages": [{"role": "user", "content": text}]}
    return out | ({"stream": True} if stream else {})


HTTP = httpx.Client(trust_env=False)  # one client: building an SSL context per call is slow


def post(
    sim: SimThread, fault: str | None = None, timeout: float = 10, **kw: Any
) -> httpx.Response:
    headers = {"x-sim-fault": fault} if fault else {}
    return HTTP.post(
        sim.url + "/v1/chat/completions", json=body(**kw), headers=headers, timeout=timeout
    )
