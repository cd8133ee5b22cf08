"""Simulators and routers for this suite, as `tests.harness` runs them, on ports 18000-18999,
a running router's reload to another config, and a canary section that gates math."""

from __future__ import annotations

import random
import socket
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import yaml

from evals.suite import SHIPPED
from router import reload
from router.config import Config
from router.simulator.runner import SimThread
from router.simulator.settings import SimSettings
from tests import harness, ports
from tests.harness import VENV_BIN, Running, RunningRouter
from tests.processes import killed_if_left_running

PORTS = range(18000, 19000)


def free_port() -> int:
    """A port of `PORTS` nothing is bound to now: a pick, for `ports.on_a_free_port` to bind
    (another process may take it before)."""
    for port in random.sample(PORTS, len(PORTS)):
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port in 18000-18999")


def _started(sim: SimThread) -> SimThread:
    """`sim` once it listens (an OSError if its port was taken)."""
    sim.start()
    return sim


@contextmanager
def simulator(**settings: Any) -> Iterator[Running]:
    """`tests.harness.simulator` on a free port of `PORTS`."""
    settings.setdefault("keep_requests", 1)
    sim = ports.on_a_free_port(
        lambda port: _started(SimThread(SimSettings(**settings), port=port)), free_port
    )
    try:
        yield Running(f"{sim.url}/v1", sim.url)
    finally:
        sim.stop()


@contextmanager
def router(config: Config) -> Iterator[RunningRouter]:
    """`tests.harness.router` on a free port of `PORTS`, bound as picked."""
    with harness.router(config, ports.on_a_free_port(ports.listening, free_port)) as running:
        yield running


@contextmanager
def served(config: Config, tmp: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`smf-router serve` on `config` (`tmp/router.yaml`) as a subprocess on a free port of
    `PORTS`, its output in `tmp/router.log`, up: its root URL and the process, for a test
    that signals it and waits for its exit (killed at the end if it still runs)."""
    path = tmp / "router.yaml"
    path.write_text(yaml.safe_dump(config.model_dump(mode="json")))

    def launch(port: int) -> subprocess.Popen[bytes]:
        command: list[str | Path] = [VENV_BIN / "smf-router", "serve", "--config", path]
        command += ["--port", str(port)]
        with open(tmp / "router.log", "wb") as log:  # the child has its own copy
            return subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)

    url = "http://127.0.0.1:{port}/healthz"
    port, process = ports.served(launch, url, lambda _: tmp / "router.log", pick=free_port)
    with killed_if_left_running(process) as serve:
        yield f"http://127.0.0.1:{port}", serve


def reloaded(proxy: RunningRouter, tmp: Path, data: dict[str, Any]) -> None:
    """Reload `proxy` to the config `data`, written to `tmp/router.yaml`; it must apply."""
    path = tmp / "router.yaml"
    path.write_text(yaml.safe_dump(data))
    reload.reloader_of(proxy.components).source = path
    answer = httpx.post(f"{proxy.url}/router/reload", timeout=30)
    assert answer.status_code == 200, answer.text


def math_gating_canary(interval_s: float, window: int, **more: Any) -> dict[str, Any]:
    """A `canary` section judging math alone: three shipped math cases a round, a gate
    decided from three results against a floor of 0.4, so a simulator's math quality of 0
    closes it within one round and 1 opens it again. The tests differ only in how often a
    round runs, how many results are kept, and `more` (any other canary setting)."""
    return {
        "enabled": True,
        "interval_s": interval_s,
        "suites": str(SHIPPED / "math"),
        "sample_per_suite": 3,
        "window": window,
        "min_samples": 3,
        "floors": {"math": 0.4},
        **more,
    }
