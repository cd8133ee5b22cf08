"""The test harness's ports (`tests.ports`): a child whose port was taken between its pick
and its bind starts again on another, as does one whose start-up probe another server on its
port answered; a child failing for any other reason is an error with what it said; a server
in the test process serves on a socket bound before it starts, on another port when the one
picked for it (of a fixed range: `tests.canary.servers`) was taken before its bind."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from types import ModuleType

import httpx
import pytest
import yaml

from classifier.intent import INTENTS
from tests import ports
from tests.canary import servers
from tests.harness import VENV_BIN, Running, config_for, router, send_json, upstream
from tests.processes import killed_if_left_running, router_process

LOCAL = {"name": "local", "tier": "local", "base_url": "http://127.0.0.1:9/v1", "model": "m"}


@contextmanager
def listener() -> Iterator[int]:
    """A port something listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield int(sock.getsockname()[1])


def picks(
    monkeypatch: pytest.MonkeyPatch, first: int | None = None, where: ModuleType = ports
) -> list[int]:
    """Every port `where.free_port` picks from now on, `first` the first (then free ones):
    `first` taken stands for a port taken between its pick and its bind."""
    picked: list[int] = []
    real = where.free_port

    def pick() -> int:
        picked.append(first if first is not None and not picked else real())
        return picked[-1]

    monkeypatch.setattr(where, "free_port", pick)
    return picked


@contextmanager
def stranger(asked: Path) -> Iterator[int]:
    """Another HTTP server on a port: it answers any GET, and `asked` exists once it did."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            asked.touch()
            send_json(self, 200, b"{}")

        def log_message(self, *args: object) -> None:
            pass

    with upstream(Handler) as server:
        yield int(server.root.rsplit(":", 1)[1])


# A server binding its port (argv[1]) only once the file argv[2] exists: a child still
# starting (a router importing litellm) when another server on its port is asked.
LATE_SERVER = """
import pathlib, sys, time
from http.server import BaseHTTPRequestHandler, HTTPServer
for _ in range(6000):  # a hang guard: the test is over long before
    if pathlib.Path(sys.argv[2]).exists():
        break
    time.sleep(0.01)
HTTPServer(("127.0.0.1", int(sys.argv[1])), BaseHTTPRequestHandler).serve_forever()
"""


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


def test_a_server_in_this_process_whose_port_was_taken_binds_another(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A port picked free and bound moments later, taken in between: the bind found it taken
    (EADDRINUSE), and the test failed with it; now the next pick is bound."""
    with listener() as taken:
        picked = picks(monkeypatch, taken)
        with ports.on_a_free_port(ports.listening) as sock:
            assert picked == [taken, sock.getsockname()[1]]
    assert f"port {taken} was taken before this process bound it" in capsys.readouterr().err


def test_a_canary_router_whose_picked_port_was_taken_serves_on_another(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`tests.canary.servers.router` picked a port of 18000-18999 free, and the router bound
    it only as it started: taken in between, the router failed with EADDRINUSE."""
    config = config_for({"local": Running("http://127.0.0.1:9/v1", "")}, tmp_path)
    with listener() as taken:
        picked = picks(monkeypatch, taken, where=servers)
        with servers.router(config) as proxy:
            assert httpx.get(f"{proxy.root}/healthz").status_code == 200
            assert picked[0] == taken and proxy.root == f"http://127.0.0.1:{picked[1]}"


def test_another_server_answering_a_childs_probe_is_not_taken_for_the_child(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The port picked for a child taken by another HTTP server before the child bound it:
    that server answered the start-up probe while the child still started, and the test got
    a port the child would never serve (it exits saying the address is in use). Now the
    child is tried again on another port, and the port it gets is the child's."""
    asked = tmp_path / "asked"
    with stranger(asked) as taken:
        picked = picks(monkeypatch, taken)
        port, process = ports.served(
            lambda port: subprocess.Popen(
                [sys.executable, "-c", LATE_SERVER, str(port), str(asked)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            ),
            "http://127.0.0.1:{port}/",
        )
        with killed_if_left_running(process):
            assert asked.exists() and picked == [taken, port]
            assert httpx.get(f"http://127.0.0.1:{port}/").status_code == 501  # the child's
            assert process.poll() is None
    assert f"port {taken} was taken before the child bound it" in capsys.readouterr().err
