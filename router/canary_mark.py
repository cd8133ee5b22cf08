"""The mark a router's canary writes in the ledger's directory as a run starts, and reads
back at a restart (`router.canary_resume`, one of the two witnesses of the last start).

The mark is written whole under another name and renamed into place (`os.replace`), so a
kill mid-write leaves the old mark or the new one, never half of one. It names the servers
the run asked (`fingerprint`): like rounds of servers the config no longer has, a mark of
none it has now counts for nothing. One that does not read (a corrupt file, another shape)
or is stamped later than now by over `CLOCK_SKEW_S` (a clock that ran ahead) is ignored
with a warning, never fatal: the first run then starts as the rounds alone say.

It names its writer too (`router_name`: the host's name and the address the router listens
on), and a router honours its own mark alone. Several canary routers on one ledger each
waited out the others' runs, whose results they never see (a router reads the ledger's
rounds only at its start), their gates a whole `interval_s` behind (found in review); the
rounds in the ledger still count, as the recall judged them. They share one file, the last
writer's: a router whose mark another overwrote goes on from the rounds alone. A mark that
names no writer (of the version before) counts for none.

A router's schedule writes it through a `Marker`: off the event loop, waited for
`MARK_WAIT_S` at most, then the run goes on unmarked while the write finishes on its own
thread. Awaited without a limit, a stalled ledger volume stopped every run while the status
showed one under way (found in review). One write is in flight at a time; a run that starts
meanwhile has its start written after it, so a late write never leaves an older start over
a newer one, nor do stalled writes pile up on the worker threads.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import math
import os
import socket
import tempfile
from collections.abc import Callable, Hashable, Sequence
from pathlib import Path
from typing import Any

import orjson

from router.bug_log import kind_of
from router.canary_judge import fingerprint
from router.config import Backend as BackendSettings
from router.ledger.recent import CLOCK_SKEW_S

log = logging.getLogger("smf_router.canary")

MARK_FILE = "canary-run-started.json"  # in the ledger's directory, beside `conversation.key`
MARK_WAIT_S = 5.0  # a run waits this long at most for its mark (an fsync takes milliseconds)
SLOWNESS = frozenset({"slow", "queued"})  # what a `Marker` says of writes that land late


class Marker:
    """Writes the schedule's marks (`mark_start`) one at a time, each run's start in turn.

    What goes wrong is said once per kind (`kind_of`, and an `OSError`'s errno: a full disk
    and a read-only one are both `OSError`), as `router.bug_log` says a background job's
    bugs, and that the marks are written again once one is: warned at each run, a volume
    that refused them said so every `interval_s` for as long (found in review). A write
    that is slow (past `MARK_WAIT_S`) but lands is no failure: it is said slow once, and
    again only after a write was quick; it cleared what had been said, and on a slow
    volume each run said "slow" and then "written again" (found in review)."""

    def __init__(self, directory: Path, writer: Callable[[], str]) -> None:
        self.directory = directory
        self.writer = writer  # this router's name (`router_name`), read at each mark
        # The write in flight, until its `_written` ran: a write merely done may not have
        # started the start queued behind it yet, and a run's start written meanwhile had
        # two writes in flight, the older landing last (found in review).
        self._writing: asyncio.Future[None] | None = None
        # the start to write once it is over, and the servers of its run
        self._next: tuple[float, list[BackendSettings]] | None = None
        self._said: set[Hashable] = set()  # the kinds of trouble said, and not over since

    async def mark(self, started: float, backends: Sequence[BackendSettings]) -> None:
        """Mark a run that starts at `started` (unix time) on `backends`: waits for the
        write `MARK_WAIT_S` at most; a failure or a write that takes longer is a warning,
        the run goes on. With a write still in flight (a stalled volume), this one follows
        it, not waited for."""
        if self._writing is not None:
            self._next = (started, list(backends))
            self._say(
                "queued",
                "canary: the last run's mark in %s is still being written; each run's start "
                "is written after it",
                self.directory,
            )
            return
        writing = self._write(started, list(backends))
        try:
            async with asyncio.timeout(MARK_WAIT_S):
                await asyncio.shield(writing)
        except TimeoutError:
            self._say(
                "slow",
                "canary: the run's mark in %s is not written after %g s (a stalled volume?); "
                "the run goes on, the write finishes on its own",
                self.directory,
                MARK_WAIT_S,
            )
        except Exception:
            return  # said by `_written`, as a late one is
        else:
            self._said -= SLOWNESS  # a quick write: the next stall is news

    def _write(self, started: float, backends: list[BackendSettings]) -> asyncio.Future[None]:
        write = functools.partial(mark_start, self.directory, started, backends, self.writer())
        self._writing = asyncio.get_running_loop().run_in_executor(None, write)
        self._writing.add_done_callback(self._written)
        return self._writing

    def _written(self, writing: asyncio.Future[None]) -> None:
        """A write is over (on the loop, however late): its failure said, or that the marks
        are written again; the next begun."""
        self._writing = None
        if writing.cancelled():
            return
        exc = writing.exception()
        if exc is not None:
            self._say(
                (kind_of(exc), getattr(exc, "errno", None)),
                "canary: could not mark the run's start in %s: %s (said again only for "
                "another kind of error, or once marks were written again)",
                self.directory,
                exc,
            )
        elif self._said - SLOWNESS:  # a failure said: not merely a slow write
            self._said &= SLOWNESS
            log.warning("canary: the run's mark in %s is written again", self.directory)
        if self._next is None:
            return
        (started, backends), self._next = self._next, None
        try:
            self._write(started, backends)
        except RuntimeError as exc:  # the loop's executor is shut down (`asyncio.run` exits)
            # A write that stalled until the exit lands as the loop waits for its threads:
            # starting the next on them failed in this callback, and that start was lost
            # with no word of it but asyncio's traceback (found in review).
            log.warning(
                "canary: the last run's start (unix time %s) was not written in %s: the router is "
                "exiting (%s); a restart goes on from the mark before it and the rounds",
                started,
                self.directory,
                exc,
            )

    def _say(self, kind: Hashable, message: str, *args: Any) -> None:
        if kind not in self._said:
            self._said.add(kind)
            log.warning(message, *args)


def router_name(listen: str) -> str:
    """Who writes a router's marks: its host's name and `listen`, the address it serves on
    (`host:port`, `Components.listen`): two routers on one host differ by their port, and a
    restart keeps both (a Kubernetes pod's name is its host's, kept while its container
    restarts). Empty `listen` (a schedule run outside `serve`): the host's name alone."""
    return f"{socket.gethostname()} {listen}".rstrip()


def mark_start(
    directory: Path, started: float, backends: Sequence[BackendSettings], writer: str
) -> None:
    """Blocking: the mark of a run that starts at `started` (unix time) on `backends`, by
    `writer` (`router_name`), in place of the last one. Flushed to the disk before the
    rename: a power cut must not leave an empty file for the last mark. Raises `OSError`
    (the caller logs it)."""
    servers = {backend.name: fingerprint(backend) for backend in backends}
    data = orjson.dumps({"started": started, "servers": servers, "writer": writer})
    directory.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{MARK_FILE}.", dir=directory)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(name, directory / MARK_FILE)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name)
        raise


def marked_start(
    directory: Path, backends: Sequence[BackendSettings], now: float, writer: str
) -> float | None:
    """Blocking: the start the mark in `directory` says, if `writer` wrote it (`router_name`)
    and it names a server among `backends` (by name and `fingerprint`); None without a mark,
    or with one that does not count (logged as a warning when it is unreadable or stamped
    ahead of `now`, at info when another router wrote it)."""
    path = directory / MARK_FILE
    try:
        data = orjson.loads(path.read_bytes())
        started, servers, wrote = _read(data)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:  # orjson.JSONDecodeError is a ValueError
        log.warning("canary: ignored the run mark %s: %s", path, exc)
        return None
    if wrote != writer:
        log.info(
            "canary: ignored the run mark %s: another router wrote it (%s), not this one (%s)",
            path,
            wrote or "no writer named",
            writer,
        )
        return None
    if started > now + CLOCK_SKEW_S:
        log.warning("canary: ignored the run mark %s: it is stamped ahead of now", path)
        return None
    if not any(servers.get(b.name) == fingerprint(b) for b in backends):
        return None  # a run of servers this config does not have
    return started


def _read(data: Any) -> tuple[float, dict[str, Any], str | None]:
    """A mark's start, servers and writer (None if it names none), or `ValueError` when it
    is not a mark."""
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    started, servers, writer = data.get("started"), data.get("servers"), data.get("writer")
    if not isinstance(started, int | float) or isinstance(started, bool):
        raise ValueError("no start time")
    if not math.isfinite(started) or not isinstance(servers, dict):
        raise ValueError("no finite start time, or no servers")
    return float(started), servers, writer if isinstance(writer, str) else None
