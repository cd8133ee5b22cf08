"""Ledger housekeeping inside a running router, and the report it serves to admins.

A minute after start and then once an hour (off the event loop) partitions past their
retention are dropped and closed days compacted, and what the ledger warns of (a stray
directory, a merge that failed) is logged, unless `ledger.housekeeping` is off (one job
does it for all replicas, as `smf-router ledger compact --config`); `GET /v1/router/report`
answers with the same JSON as `smf-router report --format json`. Both use the `ledger`
settings the router started with, like the ledger writer: a reload that changes them is
reported as needing a restart, and until then the report read a directory nobody wrote and
retention applied at once. Both run in a short-lived child process (`router.ledger_jobs`):
in the router, the DuckDB they load stayed resident for good. At most `MAX_REPORTS` reports'
children run at once; another report is refused (`ReportsBusy`). A client that hangs up
stops its report's child, and the slot is free once the child ended.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request

from router import ledger_jobs
from router.api.headers import request_headers
from router.config import Config
from router.config_sections import LedgerSettings
from router.errors import BadRequest, ClientClosed, RouterError
from router.ledger.writer import TABLES

log = logging.getLogger("smf_router")

INTERVAL_S = 3600.0
# The first pass, a minute after start: it came an hour after, and a router restarted more
# often (a laptop, a crash loop, redeploys) never applied retention, prompt texts' included.
FIRST_S = 60.0
# How long a shutdown waits for a pass told to stop: the day being merged finishes (a
# merge is kill-safe, but stops sooner than a service manager's stop timeout). Counted from
# the stop, told as the requests' drain starts: within the canary's 12 s, not after them.
STOP_WAIT_S = 5.0
# A report's child is killed after this: a client waits for it (a year's ledger reads in
# seconds: docs/benchmarks.md). A pass's after an interval: the next one is due.
REPORT_TIMEOUT_S = 300.0
PASS_TIMEOUT_S = INTERVAL_S
# Reports' children at once, per router: each is ~0.5 s of a core to start and tens of MB
# (DuckDB), for up to REPORT_TIMEOUT_S. Unbounded, a dashboard refreshing or a script in a
# loop started dozens of them on a 2-core box, beside the requests the router serves.
MAX_REPORTS = 2
# The wait a refused report is told (`Retry-After`): a report takes seconds (a year's ledger
# reads in a few), so a slot is likely free again by then; the SDKs sleep it out themselves.
REPORTS_RETRY_S = 5


class ReportFailed(RouterError):
    """The report's process gave no report (killed, out of memory, too slow): the ledger
    may be fine, and asking again may answer."""

    status = 503
    type = "service_unavailable"
    code = "report_failed"


class ReportsBusy(RouterError):
    """`MAX_REPORTS` reports run already: refused at once, not queued (a queue of waiting
    threads piles up as the children did, and its clients wait as long). A 429, which the
    SDKs retry on their own after a backoff."""

    status = 429
    type = "rate_limit_error"
    code = "reports_busy"
    retry_after = REPORTS_RETRY_S  # as `router.api.errors.error_headers` tells every wait


class ReportSlots:
    """The reports under way in one router, each a child until its `ledger_jobs.run`
    returns. Touched only on the event loop: no lock."""

    def __init__(self) -> None:
        self.running = 0

    @contextmanager
    def held(self) -> Iterator[None]:
        """One of `MAX_REPORTS` slots for the block, or `ReportsBusy`. A report cancelled
        (the drain ended) gives its slot back at once: its child has its SIGTERM, and the
        router takes no new request then. One whose client hung up gives it back once its
        child ended (`_run_report`): the router takes new reports then."""
        if self.running >= MAX_REPORTS:
            raise ReportsBusy(
                f"{self.running} reports are under way (at most {MAX_REPORTS} at once):"
                " ask again when one is done"
            )
        self.running += 1
        try:
            yield
        finally:
            self.running -= 1


def housekeep(config: Config, stop: threading.Event | None = None) -> None:
    """`housekeep_ledger` of the config's ledger settings."""
    housekeep_ledger(config.ledger, stop)


def housekeep_ledger(ledger: LedgerSettings, stop: threading.Event | None = None) -> None:
    """Apply retention, then compact closed days; safe beside other writers and compactors.
    In a router it runs in a child (`_pass`), which takes a SIGTERM for `stop`.

    A pass runs in a thread, which a SIGTERM does not interrupt, and the interpreter waits
    for it at exit: a restart during a pass over a large backlog waited for all of it, past
    systemd's stop timeout. Once `stop` is set it begins no further table or day."""
    directory = Path(ledger.path)
    if not directory.exists() or not _holds_days(directory):
        return
    # PyArrow loads here, in the pass's child in a router, not at start (see router.ledger).
    from router.ledger.compaction import give_back_memory

    try:
        _housekeep(ledger, directory, stop)
    finally:
        give_back_memory()  # a closed day's merge peaks at one input and a row group


def _housekeep(ledger: LedgerSettings, directory: Path, stop: threading.Event | None) -> None:
    from router.ledger.compaction import apply_retentions, compact

    # Retention first, as `smf-router ledger compact` does: on a full disk a merge fails,
    # and dropping old days is then what must still happen (it frees the space).
    kept: list[str] = []  # partitions past retention that could not be deleted
    dropped = apply_retentions(
        directory, ledger.retention_days, ledger.text_retention_days, warnings=kept, stop=stop
    )
    result = compact(directory, stop=stop)
    for warning in kept + result.warnings:  # no one else shows them (the CLI prints its own)
        log.warning("ledger housekeeping: %s", warning)
    if result.days or dropped:
        log.info(
            "ledger housekeeping: %d day(s) compacted, %d partition(s) dropped",
            result.days,
            len(dropped),
        )
    if stop is not None and stop.is_set():
        log.info("ledger housekeeping: stopped for shutdown; the rest waits for the next pass")


def _holds_days(directory: Path) -> bool:
    """Whether a table of the ledger (or its rollups) holds a `day=` directory: without one
    there is nothing to drop or merge, and the pass would only load PyArrow (~40 MB) into a
    router that has written no row yet. Yes too for what the pass has to say something of:
    a symlink (or a file) where a table's directory goes (`texts/`), or a directory it
    cannot look in."""
    try:
        with os.scandir(directory) as tables:
            for table in tables:
                if table.is_symlink() or (table.name in TABLES and not table.is_dir()):
                    return True
                if table.is_dir():
                    with os.scandir(table.path) as days:
                        if any(day.name.startswith("day=") for day in days):
                            return True
    except OSError:
        return True
    return False


def _pass(config: Config, stop: threading.Event) -> None:
    """One housekeeping pass, in a child the job's thread waits for: told `stop` as a
    SIGTERM. It logs its own failure, as a shutdown may no longer be waiting for it. No
    child for a ledger with no day (`_holds_days`): it would do nothing."""
    directory = Path(config.ledger.path)
    if not directory.exists() or not _holds_days(directory):
        return
    job = {"job": "housekeep", "ledger": config.ledger.model_dump(mode="json")}
    try:
        ledger_jobs.run(job, PASS_TIMEOUT_S, stop)
    except ledger_jobs.JobFailed as exc:
        log.error("ledger housekeeping failed: %s", exc, extra=_detail(exc))
    except Exception:  # a bug here: the job goes on to the next pass
        log.exception("ledger housekeeping failed")


def _detail(exc: ledger_jobs.JobFailed) -> dict[str, Any]:
    """A failed child's stderr (a traceback's end) as the log line's `detail` field."""
    return {"fields": {"detail": exc.detail}} if exc.detail else {}


REPORT_PARAMETERS = ("since", "until", "by")


async def _report(
    request: Request,
    ledger: LedgerSettings,
    slots: ReportSlots,
    since: str | None,
    until: str | None,
    by: str,
) -> dict[str, Any]:
    """The offload report as JSON (admin key): computed in a child process (DuckDB), which
    a thread waits for, never the loop. A slot is taken only after the key and the query
    are checked: a caller who may not read the report is not told how many run."""
    from router import report_window

    request.app.state.auth.admin(request_headers(request.scope))
    config: Config = request.app.state.gateway.config  # names and prices: the running ones
    unknown = sorted(set(request.query_params) - set(REPORT_PARAMETERS))
    if unknown:  # a misspelt `until` answered every record since `since`
        raise BadRequest(
            f"unknown query parameter {unknown[0]!r}: the report takes "
            + ", ".join(REPORT_PARAMETERS),
            param=unknown[0],
        )
    names = [name for name, _ in request.query_params.multi_items()]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:  # `since=1d&since=2026-12-01` answered for the last one, without a word
        raise BadRequest(
            f"query parameter {repeated[0]!r} is given {names.count(repeated[0])} times:"
            " give it once",
            param=repeated[0],
        )
    now = report_window.now()  # one now: `since=7d`, the window's check and its end
    start = _report_time(since, "since", now) if since else None  # `since=`: the default
    end = _report_time(until, "until", now) if until else None  # `until=`: none
    start = start or report_window.default_since(end, now)  # 30 days before `until`
    try:
        report_window.check_window(start, end, at=now, defaulted=not since)
    except report_window.EmptyWindow as exc:  # an `until` not after `since`, or a `since`
        raise BadRequest(str(exc), param=exc.name) from None  # from now on: the one to fix
    if by not in ("route", "intent", "backend", "caller", "day"):
        raise BadRequest("'by' must be one of route, intent, backend, caller, day", param="by")
    job = {
        "job": "report",
        "ledger": ledger.path,
        "since": start.isoformat(),
        "until": end.isoformat() if end else None,
        "by": by,  # checked against the closed set just above
        "now": now.isoformat(),
        "local_costs": [  # what the break-even reads of the config: no keys nor addresses
            {
                **b.model_dump(include={"name", "tier", "model"}),
                "local_cost": b.local_cost.model_dump(),
            }
            for b in config.backends
            if b.local_cost
        ],
    }
    stop = threading.Event()
    with slots.held():
        data = await _run_report(job, stop, request)
    for warning in data["warnings"]:  # for the operator, who may not read the reply
        log.warning("ledger report: %s", warning)
    return data


async def _run_report(
    job: dict[str, Any], stop: threading.Event, request: Request
) -> dict[str, Any]:
    """The report `job`'s result, from its child, or the RouterError that says why none.

    A client that hangs up meanwhile stops the child (a SIGTERM, within `POLL_S`), which is
    waited for: `ClientClosed`, its slot given back as the child ends. Unwatched, a `curl
    -m 0.3` held its slot for as long as its report ran, up to `REPORT_TIMEOUT_S`, and two
    of them refused every report after (found in review)."""
    work = asyncio.ensure_future(asyncio.to_thread(ledger_jobs.run, job, REPORT_TIMEOUT_S, stop))
    gone = asyncio.create_task(_hung_up(request))
    try:
        await asyncio.wait({work, gone}, return_when=asyncio.FIRST_COMPLETED)
        if not work.done():
            stop.set()
            await asyncio.wait({work})  # whatever it ends with, nobody is left to read it
            if not work.cancelled():
                work.exception()  # retrieved: a stopped child's failure is no failure
            raise ClientClosed("the client hung up before its report was done")
        data: dict[str, Any] = work.result()
    except asyncio.CancelledError:
        # The drain ended with the report under way: its child is told to stop (a SIGTERM,
        # which ends it). Left running, it kept the thread, and with it the router's exit,
        # for up to REPORT_TIMEOUT_S: past a service manager's stop timeout, and with
        # `KillMode=mixed` no SIGTERM reaches the child but this one (found in review).
        stop.set()
        raise
    except ledger_jobs.JobError as exc:  # the ledger cannot be added up: as the CLI says it
        log.warning("report: %s", exc)
        raise RouterError(str(exc)) from None
    except ledger_jobs.JobFailed as exc:
        log.error("report failed: %s", exc, extra=_detail(exc))
        raise ReportFailed(f"the report's process {exc}") from None
    finally:
        gone.cancel()
    return data


async def _hung_up(request: Request) -> None:
    """Returns once the client hung up: uvicorn says so only to a waiting `receive()`
    (`router.api.hangup`), which a GET's empty body leaves free for this."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


def _report_time(text: str, param: str, now: datetime) -> datetime:
    """`since` or `until` as `smf-router report` reads `--since` and `--until`."""
    from router import report_window

    try:
        return report_window.parse_since(text, now)
    except ValueError as exc:
        # `?since=2026-12-03T00:00+02:00` arrives with a space for the `+`
        hint = " (a '+' in a URL query is a space: write it as %2B)" if " " in text else ""
        raise BadRequest(f"{exc}{hint}", param=param) from None


def install(components: Any) -> None:
    """FEATURES installer: the housekeeping job, a minute after start then hourly (unless
    `ledger.housekeeping` is off), and the report endpoint.

    The pass under way is told to stop as the shutdown begins (`shutdown_hooks`, with the
    requests' drain), and waited for `STOP_WAIT_S` from then: told only when the job was
    cancelled, after the drain, a SIGTERM took up to 5 s more than `drain_s` (found in
    re-review)."""
    started: Config = components.config  # installed while the router is built: at start
    stop = threading.Event()
    stop_began: list[float] = []  # loop time of the shutdown's stop

    def stopping() -> None:
        if not stop.is_set():
            stop_began.append(asyncio.get_running_loop().time())
            stop.set()

    async def job() -> None:
        delay = FIRST_S  # not at once: a start's backlog of days must not slow its warm-up
        while not stop.is_set():
            await asyncio.sleep(delay)
            delay = INTERVAL_S
            task = asyncio.create_task(asyncio.to_thread(_pass, started, stop))
            try:
                await asyncio.shield(task)  # a cancel would not reach its thread
            except asyncio.CancelledError:  # shutdown (`Components.stop`): end the pass
                stopping()  # if no hook told it (the thread test harness before)
                left = stop_began[0] + STOP_WAIT_S - asyncio.get_running_loop().time()
                await asyncio.wait({task}, timeout=max(0.0, left))  # the day being merged
                raise

    endpoints = APIRouter()
    slots = ReportSlots()  # this router's: each replica bounds its own children

    @endpoints.get("/v1/router/report")
    async def report_endpoint(
        request: Request, since: str | None = None, until: str | None = None, by: str = "route"
    ) -> dict[str, Any]:
        return await _report(request, started.ledger, slots, since, until, by)

    if started.ledger.housekeeping:
        components.background.append(job)
        components.shutdown_hooks.append(stopping)
    components.extra_endpoints.append(endpoints)
