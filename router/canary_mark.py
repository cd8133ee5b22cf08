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
a newer one, nor do stalled writes pile up on the worker threads. A run stopped while its
mark was written asks nothing: its mark is taken back (`Marker.unmark`), the file put back
as that write found it, in turn with the other writes, if it still holds that mark: put
back over another router's newer mark, that router's restart went on from an older start
than its last (found in review).
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
from typing import Any, Final, Literal

import orjson

from router.bug_log import kind_of
from router.canary_judge import fingerprint
from router.config import Backend as BackendSettings
from router.ledger.recent import CLOCK_SKEW_S

log = logging.getLogger("smf_router.canary")

MARK_FILE = "canary-run-started.json"  # in the ledger's directory, beside `conversation.key`
MARK_WAIT_S = 5.0  # a run waits this long at most for its mark (an fsync takes milliseconds)
SLOWNESS = frozenset({"slow", "queued"})  # what a `Marker` says of writes that land late

Start = tuple[float, list[BackendSettings]]  # a run's start (unix time) and its servers
Swap = tuple[bytes | None, bytes]  # the mark file a start's write found (None: none), and wrote
RESTORE: Final = "restore"  # put the mark file back as the last start's write found it
Job = Start | Literal["restore"]  # a `Marker`'s write


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
        self._writing: asyncio.Future[Any] | None = None
        self._next: Job | None = None  # the write to begin once the one in flight is over
        # The last run's start (`mark`), while `unmark` may take it back, and the write it
        # took the place of in `_next` (None: none).
        self._last: Start | None = None
        self._replaced: Job | None = None
        # The mark file as the last start's write found it and left it, once that write
        # landed (`swap_mark`); None when there is nothing to put back.
        self._found: Swap | None = None
        self._said: set[Hashable] = set()  # the kinds of trouble said, and not over since

    async def mark(self, started: float, backends: Sequence[BackendSettings]) -> None:
        """Mark a run that starts at `started` (unix time) on `backends`: waits for the
        write `MARK_WAIT_S` at most; a failure or a write that takes longer is a warning,
        the run goes on. With a write still in flight (a stalled volume), this one follows
        it, not waited for."""
        start = (started, list(backends))
        self._last, self._replaced = start, self._next
        await self._begin(start)

    async def unmark(self) -> None:
        """The run last marked asks nothing after all (stopped while its mark was written,
        `Schedule._once`): the mark file goes back as that mark's write found it (removed if
        there was none), after the write in flight, waited for as a mark is; a start still
        queued is dropped, and the one it took the place of queued again. Left, it marked a
        run that never asked, and the restart waited a whole `interval_s` (found in review)."""
        last, self._last = self._last, None
        if last is None:
            return
        if self._next is last:
            self._next = self._replaced
            return
        await self._begin(RESTORE)

    async def _begin(self, job: Job) -> None:
        """Write `job` now, waited for `MARK_WAIT_S` at most, or after the write in flight."""
        if self._writing is not None:
            self._next = job
            self._say(
                "queued",
                "canary: the last run's mark in %s is still being written; each run's start "
                "is written after it",
                self.directory,
            )
            return
        writing = self._write(job)
        if writing is None:
            return
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

    def _write(self, job: Job) -> asyncio.Future[Any] | None:
        """`job`'s write begun on a worker thread; None for a mark to put back whose own
        write failed (the file is as it found it)."""
        write: Callable[[], Swap | None]
        if isinstance(job, tuple):
            started, backends = job
            write = functools.partial(swap_mark, self.directory, started, backends, self.writer())
        elif self._found is None:
            return None
        else:
            swap, self._found = self._found, None
            write = functools.partial(restore_mark, self.directory, swap)
        self._writing = asyncio.get_running_loop().run_in_executor(None, write)
        self._writing.add_done_callback(functools.partial(self._written, job))
        return self._writing

    def _written(self, job: Job, writing: asyncio.Future[Any]) -> None:
        """A write is over (on the loop, however late): its failure said, or that the marks
        are written again; the next begun."""
        self._writing = None
        if writing.cancelled():
            return
        exc = writing.exception()
        if isinstance(job, tuple):
            self._found = None if exc is not None else writing.result()
        if exc is not None:
            self._say(
                (kind_of(exc), getattr(exc, "errno", None)),
                "canary: could not %s in %s: %s (said again only for another kind of error, "
                "or once marks were written again)",
                "mark the run's start" if isinstance(job, tuple) else "put the run's mark back",
                self.directory,
                exc,
            )
        elif self._said - SLOWNESS:  # a failure said: not merely a slow write
            self._said &= SLOWNESS
            log.warning("canary: the run's mark in %s is written again", self.directory)
        if self._next is not None:
            job, self._next = self._next, None
            self._begin_at_exit(job)

    def _begin_at_exit(self, job: Job) -> None:
        """Begin the queued `job`, but for at exit, where it is said not written: a write
        that stalled until then lands as `asyncio.run` waits for the executor's threads, and
        beginning the next on them failed in `_written` ("Executor shutdown has been
        called"), that start lost with no word of it but asyncio's traceback (found in
        review)."""
        try:
            self._write(job)
        except RuntimeError as exc:  # the loop's executor is shut down: the router exits
            if isinstance(job, tuple):
                what = f"the last run's start (unix time {job[0]}) was not written"
                then = "a restart goes on from the mark before it and the rounds"
            else:
                what = "the mark of a run that asked nothing was not put back"
                then = "a restart waits out that run's interval"
            log.warning(
                "canary: %s in %s: the router is exiting (%s); %s", what, self.directory, exc, then
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
) -> bytes:
    """Blocking: the mark of a run that starts at `started` (unix time) on `backends`, by
    `writer` (`router_name`), in place of the last one; returns the bytes written. Flushed
    to the disk before the rename: a power cut must not leave an empty file for the last
    mark. Raises `OSError` (the caller logs it)."""
    servers = {backend.name: fingerprint(backend) for backend in backends}
    data = orjson.dumps({"started": started, "servers": servers, "writer": writer})
    _put(directory, data)
    return data


def swap_mark(
    directory: Path, started: float, backends: Sequence[BackendSettings], writer: str
) -> Swap:
    """Blocking: `mark_start`, the mark file it replaced (its bytes, or None when there was
    none, or one that did not read, which a restart counts as none, `marked_start`) and the
    bytes it wrote."""
    try:
        found = (directory / MARK_FILE).read_bytes()
    except OSError:
        found = None
    return found, mark_start(directory, started, backends, writer)


def restore_mark(directory: Path, swap: Swap) -> None:
    """Blocking: the mark file back as `swap_mark` found it (`swap`), written as a mark is,
    removed when there was none; only if it still holds exactly what that `swap_mark` wrote.
    Another router on the ledger may have marked its own run since: put back over it, the
    older mark had that router's restart go on from an older start than its last (found in
    review); a file gone or changed is left as it is. Compared, then replaced: a write of
    another router's between the two is lost, a window of a read's length; closing it would
    take a lock that holds across the machines sharing the volume. Raises `OSError`."""
    found, wrote = swap
    path = directory / MARK_FILE
    try:
        now = path.read_bytes()
    except FileNotFoundError:
        now = None
    if now != wrote:
        log.info("canary: left the run mark %s as it is: another router marked a run since", path)
        return
    if found is None:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
    else:
        _put(directory, found)


def _put(directory: Path, data: bytes) -> None:
    """Blocking: `data` as the mark file, whole or not at all (written under another name,
    flushed to the disk, renamed into place)."""
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
