"""A reload asked of a router that has no config file to re-read says so in the log."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

import httpx

from tests.harness import VENV_BIN
from tests.ports import served
from tests.resilience.conftest import until


def test_a_sighup_without_a_config_file_is_a_logged_warning(tmp_path: Path) -> None:
    """`kill -HUP` on a router started without --config (here the demo) was dropped without
    a word: the operator took the edit they meant to apply for applied (found in review)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SMF_")}
    log = tmp_path / "router.log"

    def launch(port: int) -> subprocess.Popen[bytes]:
        with log.open("wb") as out:
            return subprocess.Popen(
                [str(VENV_BIN / "smf-router"), "serve", "--port", str(port)],
                cwd=tmp_path,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )

    port, process = served(launch, "http://127.0.0.1:{port}/healthz", lambda _: log)
    try:
        process.send_signal(signal.SIGHUP)
        until(lambda: b"config reload ignored" in log.read_bytes(), what="the warning")
        assert process.poll() is None  # still serving
        assert httpx.get(f"http://127.0.0.1:{port}/healthz").status_code == 200
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    (line,) = [line for line in lines if "config reload ignored" in line["msg"]]
    assert line["level"] == "warning"
    assert "--config" in line["msg"] and "SMF_ROUTER_CONFIG" in line["msg"]
