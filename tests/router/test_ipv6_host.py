"""`serve` and `simulate` on an IPv6 address (`--host ::1`): the URL each says it listens on
is one a client can use, the address in brackets (`http://[::1]:8888`, RFC 3986), and so is
the address of an error. `simulate --host ::1` printed `http://::1:8888`, which no client
parses as that address (found in review)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
from pathlib import Path

import httpx
import openai
import pytest

from router.listen_address import authority
from tests.harness import VENV_BIN
from tests.ports import IN_USE, PortTaken, on_a_free_port
from tests.processes import smf_router
from tests.waiting import wait_for


def _loopback_v6_port() -> int:
    """A port free on ::1 now (the kernel's pick); OSError where this machine has no ::1."""
    with socket.socket(socket.AF_INET6) as sock:
        sock.bind(("::1", 0))
        return int(sock.getsockname()[1])


def _has_loopback_v6() -> bool:
    try:
        _loopback_v6_port()
    except OSError:
        return False
    return True


needs_v6 = pytest.mark.skipif(not _has_loopback_v6(), reason="no IPv6 loopback (::1) here")


@pytest.mark.parametrize(
    ("host", "written"),
    [
        ("127.0.0.1", "127.0.0.1:8001"),
        ("localhost", "localhost:8001"),
        ("::1", "[::1]:8001"),
        ("::", "[::]:8001"),
        ("fd00::2", "[fd00::2]:8001"),
    ],
)
def test_an_ipv6_address_is_written_in_brackets(host: str, written: str) -> None:
    assert authority(host, 8001) == written
    assert httpx.URL(f"http://{written}/v1").port == 8001  # a URL of that address and port


@needs_v6
def test_simulate_on_ipv6_loopback_prints_a_url_that_works() -> None:
    def attempt(port: int) -> str:
        process = subprocess.Popen(
            [str(VENV_BIN / "smf-router"), "simulate", "--host", "::1", "--port", str(port)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert process.stdout is not None
            line = process.stdout.readline().strip()  # "" once it exited without a word
            if not line:
                _, said = process.communicate(timeout=30)
                if IN_USE in said.lower():
                    raise PortTaken(said)
                raise AssertionError(f"exited {process.returncode}: {said}")
            assert line == f"simulator (vllm) listening on http://[::1]:{port}"
            url = line.rsplit(" ", 1)[1]
            models = httpx.get(f"{url}/v1/models", trust_env=False).json()
            return str(models["data"][0]["id"])
        finally:
            process.terminate()
            process.wait(timeout=10)

    assert on_a_free_port(attempt, _loopback_v6_port)


@needs_v6
def test_simulate_on_an_ipv6_port_in_use_writes_the_address_in_brackets() -> None:
    with socket.socket(socket.AF_INET6) as sock:
        sock.bind(("::1", 0))
        sock.listen(1)
        port = int(sock.getsockname()[1])
        done = smf_router("simulate", "--host", "::1", "--port", str(port))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"error: cannot listen on [::1]:{port}: ")


@needs_v6
def test_serve_on_ipv6_loopback_logs_a_url_that_works(tmp_path: Path) -> None:
    """Demo mode (nothing configured), in `tmp_path` so that its ledger is there."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SMF_")}

    def attempt(port: int) -> tuple[int, str]:
        log = tmp_path / f"serve-{port}.log"
        with log.open("wb") as out:
            process = subprocess.Popen(
                [str(VENV_BIN / "smf-router"), "serve", "--host", "::1", "--port", str(port)],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=tmp_path,
                env=env,
            )
        try:
            wait_for(f"http://[::1]:{port}/healthz", 90, process)
            client = openai.OpenAI(base_url=f"http://[::1]:{port}/v1", api_key="x", max_retries=0)
            assert "auto" in [model.id for model in client.models.list()]
        except RuntimeError:  # it exited first
            said = log.read_text(errors="replace")
            if IN_USE in said.lower():
                raise PortTaken(said[-1000:]) from None
            raise AssertionError(f"exited {process.returncode}: {said[-3000:]}") from None
        finally:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                process.wait(timeout=30)
        return port, log.read_text(errors="replace")

    port, said = on_a_free_port(attempt, _loopback_v6_port)
    assert f"smf-router listening on http://[::1]:{port}/v1" in said
