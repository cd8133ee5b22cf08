"""`serve` and `simulate` refuse bad ports, faults and addresses with one line, no traceback."""

from __future__ import annotations

import json
import socket
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.harness import VENV_BIN
from tests.processes import smf_router


@contextmanager
def taken_port() -> Iterator[int]:
    """A port something else is listening on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)
        yield int(sock.getsockname()[1])


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--fault", "bogus"], "unknown fault 'bogus'"),
        (["--fault", "stall:abc"], "fault argument must be a number, not 'abc'"),
        (["--port", "69553"], "--port"),
        (["--host", "nosuchhost.invalid", "--port", "0"], "error: cannot listen on nosuchhost"),
        (
            ["--host", "not..a..host", "--port", "0"],
            "error: cannot listen on not..a..host:0: not a host name: label empty or too long",
        ),
        (["--he"], "smf-router simulate: error: unrecognized arguments: --he"),
    ],
)
def test_simulate_refuses_bad_options_with_a_message(args: list[str], says: str) -> None:
    """A bad fault and a host that does not resolve were tracebacks, a port past 65535
    wrapped around (69553 listened on 4017) (found in review). `--he` was `--help`, an
    abbreviation the check for help missed: unwatched, exit 0 in silence at `>/dev/full`
    (found in a later review). A name IDNA cannot encode (`a..b`) raised a UnicodeError,
    no OSError: an 82-line traceback (found in review)."""
    done = smf_router("simulate", *args)
    assert done.returncode == 2, done.stdout + done.stderr
    assert says in done.stderr and "Traceback" not in done.stderr


def test_python_dash_m_router_simulator_names_itself_in_its_usage() -> None:
    """Its usage said `smf-router simulate`, a command it was not started as (found in
    review); an abbreviation is no option of its either."""
    done = subprocess.run(
        [str(VENV_BIN / "python"), "-m", "router.simulator", "--he"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2, done.stdout
    assert done.stderr.startswith("usage: python -m router.simulator [-h]")
    assert "python -m router.simulator: error: unrecognized arguments: --he" in done.stderr


def test_simulate_on_a_port_in_use_says_so() -> None:
    with taken_port() as port:
        done = smf_router("simulate", "--port", str(port))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"error: cannot listen on 127.0.0.1:{port}:")
    assert "address already in use" in done.stderr and len(done.stderr.splitlines()) == 1


def test_serve_refuses_a_port_past_65535() -> None:
    done = smf_router("serve", "--port", "69553")
    assert done.returncode == 2 and "--port" in done.stderr


def test_serve_on_a_port_in_use_says_so_and_never_that_it_listens(tmp_path: Path) -> None:
    """`serve` logged "listening on" before binding, then the bind error (found in review)."""
    config = tmp_path / "router.yaml"
    config.write_text(
        "backends:\n"
        "  - {name: local, tier: local, base_url: 'http://127.0.0.1:9/v1', model: m}\n"
        "  - {name: cloud, tier: cloud, base_url: 'http://127.0.0.1:9/v1', model: m}\n"
        f"ledger: {{path: '{tmp_path / 'ledger'}'}}\n"
        "resilience: {enabled: false}\n"
    )
    with taken_port() as port:
        done = smf_router("serve", "--config", str(config), "--port", str(port))
    output = done.stdout + done.stderr
    assert done.returncode == 3, output
    assert "listening on" not in output and "Traceback" not in output
    (line,) = output.splitlines()  # nor the config's warnings first (its unpriced cloud)
    assert "address already in use" in line


def test_demo_mode_on_a_port_in_use_says_only_that(tmp_path: Path) -> None:
    """With no config, `serve` started its simulators and logged the whole DEMO MODE banner,
    then failed on the port (found by a new user): the address is tried first now, and its
    error, uvicorn's as before, is all it says; nothing was started (no demo ledger)."""
    with taken_port() as port:
        done = smf_router("serve", "--port", str(port), cwd=tmp_path)
    assert done.returncode == 3, done.stderr
    assert done.stdout == "" and "DEMO MODE" not in done.stderr
    (line,) = [json.loads(line) for line in done.stderr.splitlines()]
    assert line["level"] == "error" and line["logger"] == "uvicorn.error"
    assert line["msg"] == (
        f"[Errno 98] error while attempting to bind on address ('127.0.0.1', {port}):"
        " address already in use"
    )
    assert list(tmp_path.iterdir()) == []


def test_serve_on_a_name_no_host_has_says_so_in_one_line(tmp_path: Path) -> None:
    """`not..a..host` is no name IDNA can encode: a UnicodeError, no OSError, passed the
    bind check as an 82-line traceback, exit 1 (found in review). A failed bind now: one
    line, exit 3, nothing started (no demo ledger)."""
    done = smf_router("serve", "--host", "not..a..host", "--port", "45999", cwd=tmp_path)
    assert done.returncode == 3, done.stderr
    assert done.stdout == "" and "Traceback" not in done.stderr
    (line,) = [json.loads(line) for line in done.stderr.splitlines()]
    assert line["level"] == "error" and line["logger"] == "uvicorn.error"
    assert line["msg"] == (
        "cannot listen on not..a..host:45999: not a host name: label empty or too long"
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", ["serve", "simulate"])
def test_an_empty_host_is_a_usage_error(tmp_path: Path, command: str) -> None:
    """`--host ""` listened on every interface without a word (found in review). Asked on a
    port taken on 127.0.0.1, so that a command that tried it fails to bind (and never
    listens everywhere) rather than pass."""
    with taken_port() as port:
        done = smf_router(
            command, "--host", "", "--port", str(port), cwd=tmp_path, env={"COLUMNS": "300"}
        )
    assert done.returncode == 2, done.stderr
    assert "Invalid value for '--host': an empty address listens on every interface" in (
        done.stderr
    )
    assert list(tmp_path.iterdir()) == []


def test_python_dash_m_router_simulator_refuses_an_empty_host() -> None:
    with taken_port() as port:
        done = subprocess.run(
            [str(VENV_BIN / "python"), "-m", "router.simulator", "--host", "", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert done.returncode == 2, done.stderr
    assert "python -m router.simulator: error: argument --host: an empty address" in done.stderr
