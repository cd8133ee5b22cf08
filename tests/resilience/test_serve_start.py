"""`serve` while it starts, as systemd sees it: a reload asked for then must not end it."""

from __future__ import annotations

import socket
import subprocess
from pathlib import Path

from tests.harness import VENV_BIN, config_for, simulator
from tests.processes import router_process


def test_serve_holds_sighup_before_it_imports_the_command_line() -> None:
    """The hold came in `main()`, after typer and the CLI module loaded (a fifth of a
    second): a `systemctl reload` right after `start` ended the router with SIGHUP, which
    `Restart=on-failure` takes for a clean exit (found in review)."""
    code = (
        "import signal, sys\n"
        "sys.argv = ['smf-router', 'serve']\n"
        "import router.cli\n"
        "print(signal.getsignal(signal.SIGHUP) is signal.SIG_DFL)\n"
    )
    out = subprocess.run(
        [str(VENV_BIN / "python"), "-c", code], capture_output=True, text=True, timeout=60
    )
    assert out.stdout.strip() == "False", out.stderr[-2000:]


def test_serve_tells_systemd_once_it_listens(tmp_path: Path) -> None:
    """With `Type=notify` systemd holds `systemctl start` (and queues a reload) until
    READY=1, which `serve` sends once it listens."""
    address = str(tmp_path / "notify")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(address)
        sock.settimeout(30)
        with simulator(profile="vllm", model="local-model") as local:
            config = config_for({"local": local}, tmp_path).model_dump(mode="json")
            with router_process(config, tmp_path, env={"NOTIFY_SOCKET": address}):
                assert sock.recv(64) == b"READY=1"
