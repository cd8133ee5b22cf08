"""A real router in front of two simulators, and the traffic the dashboard test sends it.

Faults are real: one backend points at a closed port (unreachable), one asks the cloud
simulator for a 500 by model suffix (`model+server_error`), and one route has only the
broken backend, so some requests fail outright.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import yaml

from classifier.intent import INTENTS
from tests.ports import served

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
SMF_ROUTER = str(BIN / "smf-router")
APP_MODULE = ROOT / "router" / "app.py"

PROMPTS = {
    "coding": "Write a Python function that parses an ISO date and add a unit test for it.",
    "tool_calling": "What is the weather in Paris right now? Use the tool.",
    "math": "Compute the integral of x^2 from 0 to 3 and put the answer in \\boxed{}.",
    "reasoning": "If all bloops are razzies and some razzies are lazzies, are some bloops lazzies?",
    "instruction": "List three fruits, one per line, lowercase, no punctuation.",
    "prose": "Summarise the plot of Hamlet in one paragraph.",
    "writing": "Write a 1500-word short story about a lighthouse keeper.",
}
WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}


class Proc:
    """`argv(port)` on a free port, its output in `log`, up once `url` (with `{port}`)
    answers below 500."""

    def __init__(self, argv: Callable[[int], list[str]], log: Path, url: str) -> None:
        env = dict(os.environ, NO_PROXY="127.0.0.1", LITELLM_LOCAL_MODEL_COST_MAP="True")
        env.pop("SMF_ROUTER_CONFIG", None)

        def launch(port: int) -> subprocess.Popen[bytes]:
            with log.open("wb") as out:
                return subprocess.Popen(argv(port), stdout=out, stderr=subprocess.STDOUT, env=env)

        self.port, self.proc = served(launch, url, lambda _: log, ready_only=True)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)


def router_config(tmp: Path, local: int, cloud: int, dead: int) -> Path:
    fast = {"connect_s": 0.5, "first_token_s": 5, "idle_s": 5, "total_s": 20}
    backends = [
        {"name": "local", "tier": "local", "base_url": f"http://127.0.0.1:{local}/v1",
         "model": "poolside/Laguna-S-2.1-NVFP4", "max_concurrency": 32, "timeouts": fast},
        {"name": "cloud", "tier": "cloud", "base_url": f"http://127.0.0.1:{cloud}/v1",
         "model": "gpt-4o", "timeouts": fast},
        {"name": "spare", "tier": "local", "base_url": f"http://127.0.0.1:{dead}/v1",
         "model": "poolside/Laguna-S-2.1-NVFP4", "timeouts": fast},
        {"name": "flaky", "tier": "cloud", "base_url": f"http://127.0.0.1:{cloud}/v1",
         "model": "gpt-4o+server_error:500", "timeouts": fast},
    ]  # fmt: skip
    routes = {
        "coding": ["local", "cloud"],
        "tool_calling": ["local", "cloud"],
        "instruction": ["spare", "local", "cloud"],
        "math": ["flaky", "cloud", "local"],
        "reasoning": ["cloud", "local"],
        "prose": ["cloud", "local"],
        "writing": ["cloud", "local"],
        "doomed": ["spare"],
    }
    config: dict[str, Any] = {
        "backends": backends,
        "routes": routes,
        "ledger": {"path": str(tmp / "ledger"), "flush_interval_s": 0.2},
        "shadow": {
            "rates": {"math": 1.0, "writing": 1.0},
            "targets": {"math": "local", "writing": "local"},
        },
        "canary": {
            "enabled": True,
            "interval_s": 600,  # one run, at start: more would crowd a shared machine
            "sample_per_suite": 1,
            "floors": {"math": 0.8},
        },
    }
    path = tmp / "router.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def send_traffic(base_url: str) -> list[int]:
    """A bounded mix: every intent by classification and by forced route, streamed and not."""
    statuses: list[int] = []
    with httpx.Client(base_url=base_url, timeout=30, trust_env=False) as client:
        for round_ in range(2):
            for intent in INTENTS:
                for model in ("auto", intent):
                    body: dict[str, Any] = {
                        "model": model,
                        "messages": [{"role": "user", "content": PROMPTS[intent]}],
                        "max_tokens": 32,
                        "stream": round_ == 1,
                    }
                    if intent == "tool_calling":
                        body["tools"] = [WEATHER_TOOL]
                    statuses.append(_post(client, body))
            doomed = {"model": "doomed", "messages": [{"role": "user", "content": "hi"}]}
            statuses.append(_post(client, {**doomed, "stream": round_ == 1}))
            statuses.append(_post(client, {"model": "auto", "messages": []}))
            # refused off the model APIs: no record, only `rejected_requests_total{api="other"}`
            statuses.append(client.post("/v1/messages/count_tokens", json={}).status_code)
    return statuses


def _post(client: httpx.Client, body: dict[str, Any]) -> int:
    if not body.get("stream"):
        return client.post("/v1/chat/completions", json=body).status_code
    with client.stream("POST", "/v1/chat/completions", json=body) as resp:
        for _ in resp.iter_bytes():
            pass
        return resp.status_code
