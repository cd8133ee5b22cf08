"""A router's report and housekeeping, each in a short-lived child process.

A process cannot unload a library. A report (`GET /v1/router/report`) and housekeeping's
rollup of a closed day ran DuckDB in the router itself: its library's pages and
allocations (~50 MB) stayed resident for good, and a router at ~160 MB after traffic read
~210 MB after one report, against the 150 MB target (docs/benchmarks.md). Run here, in
`python -m router.ledger_jobs`, they leave nothing behind in the router: neither DuckDB nor
a merge's peak. The child costs a start (~0.5 s: Python, the ledger's modules, DuckDB),
against a report's own seconds and an hourly pass; nothing of it is on the request path.

The job goes in as JSON on stdin, the result comes back as JSON on stdout, with the log
records the job made (the router logs them again, through its own handlers). The child
reads the ledger and, for housekeeping, merges and drops days as the router's own thread
did. Its environment is the few variables Python and the libraries need: `serve` is
non-dumpable so that programs of its user cannot read its environment (the cloud keys,
`router.sandbox_layers`), and a child that executed a program is dumpable again.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

POLL_S = 0.1  # how soon a stop told to the parent reaches the child
# What the child keeps of the router's environment: where Python and its packages are, the
# locale, temporary files, the allocator settings `serve` made (`ARROW_DEFAULT_...`), and
# the libraries a Python built as a shared library needs to start at all.
KEPT_ENV = ("PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "VIRTUAL_ENV",
            "PYTHONPATH", "PYTHONHOME", "ARROW_DEFAULT_MEMORY_POOL",
            "LD_LIBRARY_PATH")  # fmt: skip
ROOT = str(Path(__file__).resolve().parents[1])  # the router's own code, for the child
DETAIL_CHARS = 4000  # of a failed child's stderr, for the log


class JobFailed(Exception):
    """The child gave no result: it died, was killed, took too long, or failed (its
    message says which, in one line; `detail`: the end of its stderr, a traceback's, for
    the log)."""

    def __init__(self, message: str, detail: str = "") -> None:
        super().__init__(message)
        self.detail = detail


class JobError(Exception):
    """The job itself failed as it may (a report that cannot add up the ledger): `kind`
    names it, the message is the job's."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def run(job: dict[str, Any], timeout_s: float, stop: threading.Event | None = None) -> Any:
    """Run `job` in a child; its result. Blocks (call it off the event loop). Once `stop` is
    set the child gets a SIGTERM, which it takes as housekeeping takes its stop: the day
    under way is finished, no other begun. After `timeout_s` the child is killed.

    Raises `JobError` for a failure the job reports, `JobFailed` for a child that gave no
    result; either way the log records it made are logged here first. None: a child told
    to stop before it began the job (the SIGTERM ended it)."""
    argv = [sys.executable, "-P", "-m", "router.ledger_jobs"]  # -P: not the cwd's `router`
    try:
        child = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=environment(),
        )
    except OSError as exc:  # no memory, no process or file slot left
        raise JobFailed(f"could not start: {exc.strerror or exc}") from None
    payload: bytes | None = json.dumps(job).encode()
    deadline = time.monotonic() + timeout_s
    told = False
    while True:
        try:
            out, err = child.communicate(payload, timeout=POLL_S)
            break
        except subprocess.TimeoutExpired:
            payload = None  # written already: `communicate` goes on where it was
            if stop is not None and stop.is_set() and not told:
                child.terminate()
                told = True
            if time.monotonic() > deadline:
                child.kill()
                child.communicate()
                raise JobFailed(f"took longer than {timeout_s:g} s; stopped") from None
    if told and child.returncode == -signal.SIGTERM:  # stopped before it could take the stop
        return None
    return _result(child.returncode, out, err)


def environment() -> dict[str, str]:
    """The child's environment: `KEPT_ENV` of this one, the router's code first on its path."""
    env = {name: os.environ[name] for name in KEPT_ENV if name in os.environ}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (ROOT, env.get("PYTHONPATH"))))
    return env


def _result(status: int, out: bytes, err: bytes) -> Any:
    """What the child's output says, its log records logged here first."""
    try:
        said: dict[str, Any] = json.loads(out)
    except ValueError:
        text = err.decode("utf-8", "replace").strip()[-DETAIL_CHARS:]
        why = f"exit status {status}" if status >= 0 else f"killed by signal {-status}"
        last = f": {text.splitlines()[-1]}" if text else ""
        raise JobFailed(f"ended without a result ({why}){last}", text) from None
    for name, level, message in said.get("logs", []):
        logging.getLogger(name).log(level, "%s", message)
    if "error" in said:
        raise JobError(said["kind"], said["error"])
    return said["result"]


class _Kept(logging.Handler):
    """The child's log records, for the parent to log."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.records: list[tuple[str, int, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if record.exc_info:
            message += "\n" + logging.Formatter().formatException(record.exc_info)
        self.records.append((record.name, record.levelno, message))


def _report(job: dict[str, Any], stop: threading.Event) -> Any:
    """`report.build` as the endpoint asks it; of the config, the backends' `local_cost`
    (all the report reads of it: the break-even), not their keys or addresses."""
    from datetime import datetime

    from router import report
    from router.config import Config
    from router.config_backend import Backend, LocalCost

    def when(text: str | None) -> datetime | None:
        return datetime.fromisoformat(text) if text else None

    costs = [
        Backend.model_construct(
            name=b["name"],
            tier=b["tier"],
            model=b["model"],
            local_cost=LocalCost.model_validate(b["local_cost"]),
        )
        for b in job["local_costs"]
    ]
    config = Config.model_construct(backends=costs)  # trusted: the running config's values
    since, until, now = when(job["since"]), when(job["until"]), when(job["now"])
    try:
        return report.build(Path(job["ledger"]), since, until, job["by"], config, now)
    except report.Unsummable as exc:
        raise JobError("unsummable", str(exc)) from None


def _housekeep(job: dict[str, Any], stop: threading.Event) -> Any:
    """One housekeeping pass (`maintenance.housekeep_ledger`), stopped by a SIGTERM (the
    router's, as it stops; or a service manager's sent to every process of the service,
    which the systemd unit's `KillMode=mixed` no longer does): the day under way is
    finished. A report's child has no handler: a SIGTERM ends it (the router sends it when
    the drain ends with the report under way)."""
    from router.config_sections import LedgerSettings
    from router.maintenance import housekeep_ledger

    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    housekeep_ledger(LedgerSettings.model_validate(job["ledger"]), stop)
    return None


JOBS: dict[str, Callable[[dict[str, Any], threading.Event], Any]] = {
    "report": _report,
    "housekeep": _housekeep,
}


def main() -> None:
    """The child: one job from stdin, its result on stdout (see the module's docstring). A
    job's unexpected failure leaves its traceback on stderr and exits 1."""
    stop = threading.Event()
    kept = _Kept()
    logger = logging.getLogger("smf_router")
    logger.addHandler(kept)
    logger.setLevel(logging.INFO)
    logger.propagate = False  # nothing on stderr but a crash's traceback
    job = json.loads(sys.stdin.buffer.read())
    answer: dict[str, Any]
    try:
        answer = {"result": JOBS[job["job"]](job, stop)}
    except JobError as exc:
        answer = {"error": str(exc), "kind": exc.kind}
    answer["logs"] = kept.records
    sys.stdout.write(json.dumps(answer, default=str))  # as `smf-router report --format json`


if __name__ == "__main__":
    main()
