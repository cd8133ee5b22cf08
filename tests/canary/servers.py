"""Simulators and routers for this suite, as `tests.harness` runs them, on ports 18000-18999,
and a running router's reload to another config."""

from __future__ import annotations

import random
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import yaml

from router import reload
from router.config import Config
from router.simulator.runner import SimThread
from router.simulator.settings import SimSettings
from tests import harness
from tests.harness import Running, RunningRouter

PORTS = range(18000, 19000)


def free_port() -> int:
    """A port of `PORTS` nothing listens on now."""
    for port in random.sample(PORTS, len(PORTS)):
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port in 18000-18999")


@contextmanager
def simulator(**settings: Any) -> Iterator[Running]:
    """`tests.harness.simulator` on a free port of `PORTS`."""
    settings.setdefault("keep_requests", 1)
    for port in random.sample(PORTS, len(PORTS)):
        sim = SimThread(SimSettings(**settings), port=port)
        try:
            root = sim.start()
        except OSError:
            continue
        try:
            yield Running(f"{root}/v1", root)
        finally:
            sim.stop()
        return
    raise RuntimeError("no free port in 18000-18999")


@contextmanager
def router(config: Config) -> Iterator[RunningRouter]:
    """`tests.harness.router` on a free port of `PORTS`."""
    with harness.router(config, free_port()) as running:
        yield running


def reloaded(proxy: RunningRouter, tmp: Path, data: dict[str, Any]) -> None:
    """Reload `proxy` to the config `data`, written to `tmp/router.yaml`; it must apply."""
    path = tmp / "router.yaml"
    path.write_text(yaml.safe_dump(data))
    reload.reloader_of(proxy.components).source = path
    answer = httpx.post(f"{proxy.url}/router/reload", timeout=30)
    assert answer.status_code == 200, answer.text
