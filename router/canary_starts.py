"""The rows a router's canary writes to the ledger's `canary_starts` as a run is about to
ask its first case, and reads back at a restart (`router.canary_resume`, one of the
witnesses of the last start).

A router killed (SIGKILL, the OOM killer, a crash) before any round of its run reached the
ledger left no trace of the run, and each restart of a crash loop ran a full run at once
(found in review). So the run's start is a row per backend it asks, stamped with the run's
start and naming the server asked (`server`): like rounds, a start of none this config has
counts for nothing. They go through the ledger writer as every row does, flushed at once
(`LedgerWriter.flush_soon`) rather than at the end of its interval, and the run asks its
first case once they are written, or after `START_WAIT_S` (`router.canary_schedule`): a
stalled volume holds up no run for longer, and a failed write is said as the ledger says
any (its rows held for the next flush). A run stopped before it asks anything writes none.
Reports and gates read `canary_runs` alone.

Each row names the router that ran it (`router_name`), and a router honours its own starts
alone: several canary routers on one ledger each waited out the others' runs, whose results
they never see (a router reads the ledger's rounds only at its start), their gates a whole
`interval_s` behind (found in review). The rounds in the ledger still count for every
router, as the recall judged them.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterable, Sequence
from typing import Any

from router.canary_judge import server
from router.canary_rows import RowSink, unix
from router.config import Backend as BackendSettings
from router.server_identity import fingerprint


def router_name(listen: str) -> str:
    """Who runs a router's canary: its host's name and `listen`, the address it serves on
    (`host:port`, `Components.listen`): two routers on one host differ by their port, and a
    restart keeps both (a Kubernetes pod's name is its host's, kept while its container
    restarts). Empty `listen` (a schedule run outside `serve`): the host's name alone."""
    return f"{socket.gethostname()} {listen}".rstrip()


def write_start(
    rows: RowSink,
    run_id: str,
    started: float,
    backends: Sequence[BackendSettings],
    writer: str,
) -> threading.Event:
    """Queue the start (unix time) of run `run_id` on `backends`, run by `writer`, and have
    the ledger write it now; the event is set once it was (`LedgerWriter.flush_soon`).
    Never blocks."""
    for backend in backends:
        row = {"run_id": run_id, "ts": started, "backend": backend.name, "writer": writer}
        rows.submit_row("canary_starts", {**row, **server(backend)})
    return rows.flush_soon()


def own_start(
    rows: Iterable[dict[str, Any]], backends: Sequence[BackendSettings], writer: str
) -> float | None:
    """The latest start (unix time) among `canary_starts` rows that `writer` wrote of a
    server among `backends` (by name and `fingerprint`); None without one."""
    servers = {backend.name: fingerprint(backend) for backend in backends}
    starts = [
        unix(row["ts"])
        for row in rows
        if row["writer"] == writer and row["server"] == servers.get(row["backend"], "")
    ]
    return max(starts, default=None)
