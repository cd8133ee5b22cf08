"""Demo mode as a user meets it (`make run`: `smf-router serve` with nothing configured):
the simulator as both backends, said loudly, and kept apart from a real router's ledger."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import openai

from tests.harness import VENV_BIN
from tests.ports import served

DEMO_ENV = {k: v for k, v in os.environ.items() if not k.startswith("SMF_")}


@dataclass
class Demo:
    port: int
    output: bytes = b""  # all it printed, once it exited
    returncode: int | None = None


@contextmanager
def demo_serve(cwd: Path) -> Iterator[Demo]:
    """`smf-router serve` with nothing configured (demo mode) in `cwd`, stopped by SIGTERM."""

    def launch(port: int) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [str(VENV_BIN / "smf-router"), "serve", "--port", str(port)],
            cwd=cwd,
            env=DEMO_ENV,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )

    port, process = served(launch, "http://127.0.0.1:{port}/healthz")
    demo = Demo(port)
    try:
        yield demo
    finally:
        process.send_signal(signal.SIGTERM)
        demo.output, _ = process.communicate(timeout=30)
        demo.returncode = process.returncode


def test_demo_mode_serves_with_simulators_and_says_so(tmp_path: Path) -> None:
    with demo_serve(tmp_path) as demo:
        port = demo.port
        client = openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="x", max_retries=0)
        raw = client.chat.completions.with_raw_response.create(
            model="auto",
            messages=[{"role": "user", "content": "Write a Python function to sort a list."}],
        )
        assert raw.headers["x-smf-backend"] == "local"
        assert raw.parse().choices[0].message.content
    output = demo.output
    assert demo.returncode == 0
    assert b"DEMO MODE" in output and b"SIMULATOR" in output
    assert b"NO AUTH" not in output  # open, but on loopback (the default --host)
    assert f"smf-router listening on http://127.0.0.1:{port}/v1".encode() in output


def test_demo_mode_keeps_its_own_ledger_and_marks_its_answers(tmp_path: Path) -> None:
    """The demo wrote its fake cloud dollars and offload into ./var/ledger, where a real
    router on the default path later reported them as its own, and nothing in a response
    or /metrics said demo (found in review)."""
    with demo_serve(tmp_path) as demo:
        port = demo.port
        client = openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="x", max_retries=0)
        for model in ("local", "cloud"):
            raw = client.chat.completions.with_raw_response.create(
                model=model, messages=[{"role": "user", "content": "Sort a list in Python."}]
            )
            assert raw.headers["x-smf-demo"] == "true"
        refused = httpx.post(f"http://127.0.0.1:{port}/v1/chat/completions", json={})
        assert refused.status_code == 400 and refused.headers["x-smf-demo"] == "true"
        metrics = httpx.get(f"http://127.0.0.1:{port}/metrics").text
        assert "\nsmf_router_demo 1.0\n" in metrics or "\nsmf_router_demo 1\n" in metrics
    assert demo.returncode == 0
    assert b"./var/demo-ledger" in demo.output  # the DEMO MODE line names it
    assert not (tmp_path / "var" / "ledger").exists()
    assert list((tmp_path / "var" / "demo-ledger").rglob("*.parquet"))

    def report(*args: str) -> subprocess.CompletedProcess[str]:
        command = [str(VENV_BIN / "smf-router"), "report", "--format", "json", *args]
        return subprocess.run(
            command, cwd=tmp_path, env=DEMO_ENV, capture_output=True, text=True, timeout=60
        )

    plain = report()  # the real ledger's default place: none, and where the demo's is
    assert plain.returncode == 2
    assert "--ledger ./var/demo-ledger" in plain.stderr and "Traceback" not in plain.stderr
    demo = report("--ledger", "var/demo-ledger")
    assert demo.returncode == 0, demo.stderr
    totals = json.loads(demo.stdout)["totals"]
    assert (totals["requests"], totals["error_rate"]) == (3, 0.333333)  # the refusal's row too


def test_demo_mode_says_how_to_leave_it_and_its_last_line_says_what_it_wrote(
    tmp_path: Path,
) -> None:
    """A new user with `make run` was told neither the config variable that leaves demo
    mode nor, at Ctrl-C, what the run wrote and where (found in a fresh-clone review)."""
    with demo_serve(tmp_path) as demo:
        client = openai.OpenAI(
            base_url=f"http://127.0.0.1:{demo.port}/v1", api_key="x", max_retries=0
        )
        client.chat.completions.create(model="local", messages=[{"role": "user", "content": "hi"}])
    assert demo.returncode == 0
    lines = [json.loads(line) for line in demo.output.splitlines() if line.startswith(b"{")]
    (banner,) = [line["msg"] for line in lines if "DEMO MODE" in line["msg"]]
    assert "--config / SMF_ROUTER_CONFIG" in banner
    assert lines[-1]["level"] == "info"
    assert lines[-1]["msg"] == (
        "smf-router stopped; 1 record(s) written to the ledger ./var/demo-ledger"
    )
