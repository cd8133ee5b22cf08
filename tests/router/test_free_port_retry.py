"""The test harness's ports (`tests.ports`): a child whose port was taken between its pick
and its bind starts again on another; a child failing for any other reason is an error with
what it said; a router in the test process serves on a socket bound before it starts."""

from __future__ import annotations

import socket
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
import yaml

from classifier.intent import INTENTS
from tests import ports
from tests.harness import VENV_BIN, Running, config_for, router
from tests.processes import router_process

LOCAL = {"name": "local", "tier": "local", "base_url": "http://127.0.0.1:9/v1", "model": "m"}


@contextmanager
def listener() -> Iterator[int]:
    """A port something listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield int(sock.getsockname()[1])


def picks(monkeypatch: pytest.MonkeyPatch, first: int | None = None) -> list[int]:
    """Every port `free_port` picks from now on, `first` the first (then free ones)."""
    picked: list[int] = []
    real = ports.free_port

    def pick() -> int:
        picked.append(first if first is not None and not picked else real())
        return picked[-1]

    monkeypatch.setattr(ports, "free_port", pick)
    return picked


def test_a_router_whose_port_was_taken_starts_on_another(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = {
        "backends": [LOCAL],
        "routes": {intent: ["local"] for intent in INTENTS},
        "ledger": {"path": str(tmp_path / "ledger")},
    }
    with listener() as taken:
        picked = picks(monkeypatch, taken)
        with router_process(config, tmp_path) as (proxy, process):
            assert httpx.get(f"{proxy.root}/healthz").status_code == 200
            assert picked[0] == taken and proxy.root == f"http://127.0.0.1:{picked[1]}"
            assert process.poll() is None
    # the first child's log, which said its address was in use, is gone: a test reads the
    # log of the router it got (`router-*.log`, one of them)
    assert [log.name for log in tmp_path.glob("router-*.log")] == [f"router-{picked[1]}.log"]
    assert f"port {taken} was taken before the child bound it" in capsys.readouterr().err


def test_a_router_failing_otherwise_is_an_error_with_its_output_and_not_retried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    picked = picks(monkeypatch)
    with (
        pytest.raises(RuntimeError, match="exited 2 while starting") as failed,
        router_process({"backends": "none"}, tmp_path),
    ):
        pass
    assert "backends (line 1): Input should be a valid list" in str(failed.value)
    assert len(picked) == 1


def test_a_command_stopped_by_its_port_taken_runs_again_on_another(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`ran`: a command expected to stop while starting, here on a model no provider serves,
    which `serve` finds after trying its port."""
    backend = {"name": "cloud", "tier": "cloud", "kind": "litellm", "model": "antropic/x"}
    path = tmp_path / "router.yaml"
    routes = {intent: ["cloud"] for intent in INTENTS}
    path.write_text(yaml.safe_dump({"backends": [backend], "routes": routes}))
    with listener() as taken:
        picked = picks(monkeypatch, taken)
        done = ports.ran(
            lambda port: subprocess.run(
                [VENV_BIN / "smf-router", "serve", "--config", path, "--port", str(port)],
                capture_output=True,
                text=True,
                timeout=60,
                cwd=tmp_path,
            )
        )
    assert len(picked) == 2 and picked[0] == taken
    assert done.returncode == 2 and "backends.0.model" in done.stderr, done.stderr


def test_a_router_in_this_process_on_a_port_taken_is_an_error_at_once(tmp_path: Path) -> None:
    """It bound the port only as it started, in its thread: the bind failed there, and the
    test waited the whole 90 s for a router that never came."""
    config = config_for({"local": Running("http://127.0.0.1:9/v1", "")}, tmp_path)
    with listener() as taken, pytest.raises(OSError), router(config, taken):
        pass
