"""smf-router and a simulated cloud as real subprocesses, started with the documented CLI.

`smf-router serve --config FILE --port P` with vLLM as `local` and
`smf-router simulate --profile cloud --port P` as `cloud`: the same commands an operator
runs, so the suite proves the shipped entry points, not an in-process shortcut.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import yaml
from vllm_process import MODEL_NAME, free_port

from router.ledger.query import Ledger
from tests.harness import wait_for

BIN = Path(sys.executable).parent
SMF_ROUTER = str(BIN / "smf-router")
CLOUD_MODEL = "gpt-4o"
INTENTS = ("coding", "tool_calling", "instruction", "math", "reasoning", "prose", "writing")


def stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM by PID (the router drains and flushes its ledger), SIGKILL if it hangs."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def router_config(vllm_url: str, cloud_url: str, ledger: Path) -> dict[str, Any]:
    """`local` = the real vLLM (no configured window: its own 400 must drive the fallback),
    `cloud` = the simulator; every intent tries local first."""
    timeouts = {"connect_s": 2, "first_token_s": 60, "idle_s": 60, "total_s": 120}
    return {
        "backends": [
            {"name": "local", "tier": "local", "base_url": f"{vllm_url}/v1",
             "model": MODEL_NAME, "timeouts": timeouts,
             # vLLM 0.32 serves both agent APIs itself: native pass-through, no translation
             "apis": ["chat", "completions", "responses", "messages"]},
            {"name": "cloud", "tier": "cloud", "base_url": f"{cloud_url}/v1",
             "model": CLOUD_MODEL, "timeouts": timeouts},
        ],
        "routes": {intent: ["local", "cloud"] for intent in INTENTS},
        "ledger": {"path": str(ledger), "flush_interval_s": 0.2},
        "server": {"log_level": "warning"},
        # any queue vLLM reports overflows: the saturation test needs no service-time history
        "resilience": {"max_queue_wait_s": 0},
    }  # fmt: skip


@dataclass
class Stack:
    """The router (`url` ends in /v1) in front of vLLM and the simulated cloud."""

    url: str
    root: str
    vllm_url: str
    cloud_root: str
    ledger: Path
    router: subprocess.Popen[bytes]
    cloud: subprocess.Popen[bytes]

    def close(self) -> None:
        stop(self.router)
        stop(self.cloud)


def start_stack(vllm_url: str, work: Path) -> Stack:
    env = dict(os.environ, LITELLM_LOCAL_MODEL_COST_MAP="True")
    cloud_port, router_port = free_port(), free_port()
    cloud_root = f"http://127.0.0.1:{cloud_port}"
    cloud = subprocess.Popen(
        [SMF_ROUTER, "simulate", "--profile", "cloud", "--port", str(cloud_port),
         "--model", CLOUD_MODEL],
        stdout=(work / "cloud.log").open("wb"), stderr=subprocess.STDOUT, env=env,
    )  # fmt: skip
    wait_for(f"{cloud_root}/v1/models", 60, cloud, work / "cloud.log", ready_only=True)
    config = work / "router.yaml"
    config.write_text(yaml.safe_dump(router_config(vllm_url, cloud_root, work / "ledger")))
    router = subprocess.Popen(
        [SMF_ROUTER, "serve", "--config", str(config), "--port", str(router_port)],
        stdout=(work / "router.log").open("wb"), stderr=subprocess.STDOUT, env=env,
    )  # fmt: skip
    root = f"http://127.0.0.1:{router_port}"
    try:
        wait_for(f"{root}/readyz", 60, router, ready_only=True)  # its log: below
    except (RuntimeError, TimeoutError):
        stop(cloud)
        stop(router)
        raise RuntimeError((work / "router.log").read_text()[-3000:]) from None
    return Stack(f"{root}/v1", root, vllm_url, cloud_root, work / "ledger", router, cloud)


def vllm_counters(vllm_url: str) -> tuple[float, float]:
    """(vllm:prompt_tokens_total, vllm:generation_tokens_total) right now."""
    values = {"vllm:prompt_tokens_total": 0.0, "vllm:generation_tokens_total": 0.0}
    for line in httpx.get(f"{vllm_url}/metrics", timeout=10).text.splitlines():
        name = line.split("{", 1)[0]
        if name in values:
            values[name] += float(line.rsplit(" ", 1)[1])
    return values["vllm:prompt_tokens_total"], values["vllm:generation_tokens_total"]


def backend_status(stack: Stack, name: str) -> dict[str, Any]:
    """One backend's entry in `GET /v1/router/status` (circuit, running, context_window...)."""
    body = httpx.get(f"{stack.root}/v1/router/status", timeout=10).json()
    found = _find_backends(body)
    return dict(found.get(name, {})) if found else {}


def _find_backends(value: Any) -> dict[str, Any] | None:
    if isinstance(value, dict):
        backends = value.get("backends")
        entries = list(backends.values()) if isinstance(backends, dict) else []
        if entries and all(isinstance(v, dict) and "circuit" in v for v in entries):
            return backends
        for item in value.values():
            found = _find_backends(item)
            if found is not None:
                return found
    return None


def wait_for_status(stack: Stack, name: str, key: str, want: Any, tries: int = 50) -> Any:
    """Poll (bounded: tries x 0.2 s) until the backend's status[key] == want (or, when `want`
    is callable, want(status[key]) is true); return the last value seen."""
    seen = None
    for _ in range(tries):
        seen = backend_status(stack, name).get(key)
        if want(seen) if callable(want) else seen == want:
            break
        time.sleep(0.2)
    return seen


def ledger_row(ledger: Path, request_id: str) -> dict[str, Any]:
    """The record of one request, once its segment is on disk (bounded wait)."""
    columns = "backend, status, prompt_tokens, completion_tokens, tokens_estimated, attempts"
    for _ in range(100):
        if ledger.exists():
            with Ledger(ledger) as view:
                rows = view.sql(f"SELECT {columns} FROM records WHERE request_id = ?", [request_id])
            if rows:
                return dict(zip([c.strip() for c in columns.split(",")], rows[0], strict=True))
        time.sleep(0.1)
    raise AssertionError(f"request {request_id} never reached the ledger")
