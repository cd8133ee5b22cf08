"""The stdout of `smf-router` and `python -m evals`: output that cannot be written is the
command's error, in one line.

With stdout on a full disk every command died in a traceback (ENOSPC), and with stdout
closed (`>&-`, `sys.stdout` is None) `report` did while the others printed nothing and
exited 0 (found in review). `watch` puts a stream over file descriptor 1 in `sys.stdout`
that keeps the error a write got, so `run` can tell it from any other `OSError` (those stay
the tracebacks of the bugs they are). It lives in `evals`, which never imports the router,
so that `python -m evals` gets the same (it printed a traceback on a full disk, found in
review); the router imports it from here.
"""

from __future__ import annotations

import asyncio
import codecs
import errno
import io
import os
import select
import sys
from collections.abc import Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import typer

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

T = TypeVar("T")

POLL_S = 0.2
"""How often `unless_unwritable` asks whether stdout can still take output."""


class Stdout(io.RawIOBase):
    """File descriptor 1, or none (`is_open` False: the process started with it closed,
    and a write fails as a write to a closed descriptor does), keeping the first error a
    write got. `drop` makes later writes vanish: the error was said, and the flush at exit
    must not fail on it again."""

    def __init__(self, is_open: bool) -> None:
        super().__init__()
        self.is_open = is_open
        self.error: OSError | None = None
        self.dropping = False
        self.failed = 0  # a status the command declared before printing (`failing`)

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        if not self.is_open:
            raise io.UnsupportedOperation("stdout is closed")
        return 1

    def isatty(self) -> bool:
        return self.is_open and os.isatty(1)

    def write(self, data: ReadableBuffer) -> int | None:
        view = memoryview(data)
        if self.dropping:
            return view.nbytes
        try:
            if not self.is_open:  # never fd 1 itself: a file opened since may have taken it
                raise OSError(errno.EBADF, os.strerror(errno.EBADF))
            return os.write(1, view)
        except BlockingIOError:  # a non-blocking stdout that is full: as io.FileIO does
            return None
        except OSError as exc:
            self.error = self.error or exc
            raise

    def drop(self) -> None:
        self.dropping = True


_watched: list[Stdout] = []  # the process's one, once `watch` ran


def failing(status: int) -> None:
    """Declare, before printing, that the command ends with `status`: a reader gone before
    the output (`| head`) makes click or rich exit 1, read as "the reader took what it
    wanted", 0; `ledger compact` failing then exited 0 in silence (found in re-review)."""
    for stdout in _watched:
        stdout.failed = status


def write_failed() -> bool:
    """Whether a write to the watched stdout failed: its error is said when the command
    ends, and one that goes on after it (`eval run`'s run) must not be stopped by it."""
    return any(stdout.error is not None for stdout in _watched)


class Unwritable(Exception):
    """Stdout can take no more output (`unwritable`): the work `unless_unwritable` ran was
    stopped for it."""


def unwritable() -> bool:
    """Whether the watched stdout can take no more output: a write to it failed (`| true`,
    a full disk), it was closed when the process started (`>&-`), or it is a pipe whose
    reader has gone (`| head -1` once it has its line) or a socket its peer closed. No
    write says the last two until the next one, which a long command may make only at its
    end; poll says them without writing (POLLERR, POLLHUP). False when stdout is not
    watched (a `CliRunner`'s, a test's): fd 1 is not the command's own then."""
    if write_failed():
        return True
    if not _watched:
        return False
    if not _watched[0].is_open:  # fd 1 may be a file opened since: never polled
        return True
    probe = select.poll()
    probe.register(1, 0)  # no event asked: only those always said (an error, a hangup)
    return any(mask & (select.POLLERR | select.POLLHUP) for _, mask in probe.poll(0))


async def unless_unwritable(work: Coroutine[Any, Any, T]) -> T:
    """`work`, cancelled once stdout can take no more output (`unwritable`, asked before it
    starts and every `POLL_S`), which then raises `Unwritable`. For a command whose stdout
    is all it has to say (`eval run` without `--out`): piped into `head -1`, it asked every
    case of a suite, minutes with a real backend, for output no one would read (found in
    review)."""
    task = asyncio.ensure_future(work)
    try:
        while not unwritable():
            done, _ = await asyncio.wait({task}, timeout=POLL_S)
            if done:
                return task.result()
        task.cancel()
        await asyncio.wait({task})  # its own cleanup (a client closed) before the stop goes up
    finally:
        task.cancel()  # this one cancelled (Ctrl-C): `asyncio.run` awaits the work's end
    raise Unwritable("stdout can take no more output")


def asks_help(args: Sequence[str]) -> bool:
    """Whether a command line asks only for help (`-h`, `--help` before any `--`): a server
    (`serve`, `simulate`) that runs with stdout unwatched must still say that its help could
    not be written, not end in a traceback (`>/dev/full`) or in silence (`>&-`, found in
    re-review)."""
    options = args[: args.index("--")] if "--" in args else args
    return any(arg in ("-h", "--help") for arg in options)


def watch() -> Stdout:
    """Replace `sys.stdout` with a stream over a `Stdout`, buffered as the one it replaces
    (`PYTHONUNBUFFERED`, as the Docker image sets, leaves no buffer), and return that."""
    old = sys.stdout
    raw = Stdout(old is not None)
    _watched[:] = [raw]
    if old is None:
        sys.stdout = io.TextIOWrapper(io.BufferedWriter(raw), encoding="utf-8")
        return raw
    unbuffered = isinstance(getattr(old, "buffer", None), io.RawIOBase)
    sys.stdout = io.TextIOWrapper(
        raw if unbuffered else io.BufferedWriter(raw),
        encoding=old.encoding,
        errors=lossy(old.encoding, old.errors),
        line_buffering=bool(old.line_buffering),
        write_through=unbuffered or getattr(old, "write_through", False),
    )
    return raw


def writes_unicode(encoding: str) -> bool:
    """Whether text in `encoding` can hold any character (the UTF codecs)."""
    return codecs.lookup(encoding).name.startswith("utf")


def lossy(encoding: str, errors: str | None) -> str:
    """The error handler for a stdout in `encoding`: "replace" where a character it cannot
    hold would raise. Tables, arrows and `≥` in a stdout of ASCII (`PYTHONIOENCODING=ascii`)
    or Latin-1 (such a locale) ended `report` and others in a UnicodeEncodeError (found in
    review); a `?` for each is what Python itself does for stderr (a `\\u2192` there)."""
    errors = errors or "strict"
    if writes_unicode(encoding) or errors not in ("strict", "surrogateescape"):
        return errors
    return "replace"


def run(command: Callable[[], object]) -> None:
    """Run a click command (`smf-router`'s, `python -m evals`'s) with stdout watched: a
    write that failed is one `error:` line and exit 1, or 0 for a reader that went away."""
    stdout = watch()
    try:
        try:
            command()
        finally:  # what is still buffered: its error is this command's too, not the exit's
            sys.stdout.flush()
    except KeyboardInterrupt:
        sys.exit(130)
    except (OSError, SystemExit) as exc:
        error = stdout.error
        if error is None:  # an OSError not stdout's is the traceback of a bug
            raise
        stdout.drop()
        # click and rich answer a write that failed with exit 1, like a command's own 1: a
        # command whose status is known before it prints declares it (`failing`)
        code = exc.code if isinstance(exc, SystemExit) else 1
        own = stdout.failed or (code if code not in (None, 0, 1) else 0)  # a failure of its own
        if isinstance(error, BrokenPipeError):  # the reader took what it wanted (`| head`)
            sys.exit(own)
        # said even when the command's own status stands: a full disk (`>/dev/full`) was
        # exit 3, 130 or 143 in silence, as if the output had been written (found in review)
        typer.echo(f"error: cannot write to stdout: {error.strerror or error}", err=True)
        sys.exit(own or 1)
