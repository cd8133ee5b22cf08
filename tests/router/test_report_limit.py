"""At most `MAX_REPORTS` report children at once per router (`router.maintenance`).

Each report is a child process (`router.ledger_jobs`): ~0.5 s of a core to start, tens of
MB, for up to `REPORT_TIMEOUT_S`. Nothing bounded how many ran: a dashboard refreshing or a
script in a loop started dozens beside the router on a 2-core box. A report beyond the
limit is refused at once with a 429, not queued.

The children are held, without timing, by a `sitecustomize.py` on the router's
`PYTHONPATH`, which the child keeps (`ledger_jobs.KEPT_ENV`) and imports at its start (it
runs with `-P`, not `-S` or `-I`): while a HOLD file exists it says it started (a file named
by its pid) and waits for a RELEASE file. The router starts before HOLD exists, so only
processes started afterwards are held."""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path
from typing import Any

import httpx

from classifier.intent import INTENTS
from router import maintenance
from tests.processes import router_process
from tests.router.test_ledger_jobs import job_children
from tests.slots import must_reach

HOLDING = """
import os, time
from pathlib import Path
here = Path({here!r})
if (here / "HOLD").exists():
    (here / f"held-{{os.getpid()}}").touch()
    end = time.monotonic() + 60  # a hang guard: the test releases it long before
    while not (here / "RELEASE").exists() and time.monotonic() < end:
        time.sleep(0.01)
"""
URL = "/v1/router/report?since=1d"


def held(hook: Path) -> set[int]:
    """The pids of the processes the hook has held so far."""
    return {int(path.name.removeprefix("held-")) for path in hook.glob("held-*")}


def test_a_third_report_at_once_is_refused_with_a_429_and_starts_no_child(
    tmp_path: Path,
) -> None:
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(HOLDING.format(here=str(hook)))
    path = os.pathsep.join(filter(None, [str(hook), os.environ.get("PYTHONPATH")]))
    backend = {"name": "local", "tier": "local", "base_url": "http://127.0.0.1:9/v1", "model": "m"}
    config = {
        "backends": [backend],
        "routes": {intent: ["local"] for intent in INTENTS},
        "ledger": {"path": str(tmp_path / "ledger"), "housekeeping": False},
    }
    answers: dict[str, httpx.Response] = {}
    threads: list[threading.Thread] = []
    with router_process(config, tmp_path, env={"PYTHONPATH": path}) as (proxy, process):

        def ask(name: str) -> None:
            url = f"{proxy.root}{URL}"
            answers[name] = httpx.get(url, headers={"x-request-id": name}, timeout=120)

        def asking(name: str) -> None:
            threads.append(threading.Thread(target=ask, args=(name,), daemon=True))
            threads[-1].start()

        (hook / "HOLD").touch()  # the router started: from now on its children wait
        try:
            asking("report-1")
            asking("report-2")
            must_reach(lambda: len(held(hook)) == maintenance.MAX_REPORTS, "two held children")
            # the hook ran in the reports' own children, the router's `ledger_jobs` ones
            assert held(hook) <= set(job_children(process.pid))
            asking("report-3")
            # its answer, or (old code) a third child held like the first two
            must_reach(lambda: "report-3" in answers or len(held(hook)) > 2, "the third's fate")
            assert len(held(hook)) == 2, "a third report's child started"
            threads[-1].join(30)  # a hang guard: it has its answer
            refused = answers["report-3"]
            assert refused.status_code == 429, refused.text
            assert refused.headers["x-request-id"] == "report-3"
            assert refused.json() == {
                "error": {
                    "message": "2 reports are under way (at most 2 at once):"
                    " ask again when one is done",
                    "type": "rate_limit_error",
                    "param": None,
                    "code": "reports_busy",
                }
            }
        finally:
            (hook / "RELEASE").touch()  # no child left waiting if a check above failed
            for thread in threads:
                thread.join(120)  # a hang guard
        for name in ("report-1", "report-2"):
            assert answers[name].status_code == 200, answers[name].text
            assert answers[name].json()["totals"]["requests"] == 0
        ask("report-4")  # the slots were given back
        assert answers["report-4"].status_code == 200, answers["report-4"].text


def _config(tmp_path: Path) -> dict[str, Any]:
    backend = {"name": "local", "tier": "local", "base_url": "http://127.0.0.1:9/v1", "model": "m"}
    return {
        "backends": [backend],
        "routes": {intent: ["local"] for intent in INTENTS},
        "ledger": {"path": str(tmp_path / "ledger"), "housekeeping": False},
    }


def _asked(root: str) -> socket.socket:
    """A report asked on a connection of its own, which the test closes to hang up."""
    host, port = root.removeprefix("http://").rsplit(":", 1)
    connection = socket.create_connection((host, int(port)), timeout=30)
    connection.sendall(f"GET {URL} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
    return connection


def test_a_report_whose_client_hung_up_frees_its_place_once_its_child_ended(
    tmp_path: Path,
) -> None:
    """Two `curl -m 0.3` reports kept their places for as long as their children ran, up to
    300 s: a third, half a second later, was refused with a 429, which said no Retry-After
    (found in review). A hang-up stops the child, and its place is free once it ended."""
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(HOLDING.format(here=str(hook)))
    path = os.pathsep.join(filter(None, [str(hook), os.environ.get("PYTHONPATH")]))
    with router_process(_config(tmp_path), tmp_path, env={"PYTHONPATH": path}) as (proxy, process):
        (hook / "HOLD").touch()  # the router started: from now on its children wait
        try:
            asked = [_asked(proxy.root) for _ in range(maintenance.MAX_REPORTS)]
            must_reach(lambda: len(held(hook)) == maintenance.MAX_REPORTS, "two held children")
            refused = httpx.get(f"{proxy.root}{URL}", timeout=30)
            assert refused.status_code == 429, refused.text
            assert refused.headers["retry-after"] == str(maintenance.REPORTS_RETRY_S)
            assert "x-should-retry" not in refused.headers  # a 429: the SDKs retry it anyway
            for connection in asked:
                connection.close()  # the clients hang up
            must_reach(lambda: not job_children(process.pid), "the reports' children stopped")
            (hook / "HOLD").unlink()  # children run at once from now on
            must_reach(
                lambda: httpx.get(f"{proxy.root}{URL}", timeout=30).status_code == 200,
                "a report answered: the hung-up reports' places were given back",
            )
        finally:
            (hook / "RELEASE").touch()  # no child left waiting if a check above failed
