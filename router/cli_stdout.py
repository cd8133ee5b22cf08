"""`smf-router`'s stdout: output that cannot be written is the command's error, in one line.

With stdout on a full disk every command died in a traceback (ENOSPC), and with stdout
closed (`>&-`, `sys.stdout` is None) `report` did while the others printed nothing and
exited 0 (found in review). `watch` puts a stream over file descriptor 1 in `sys.stdout`
that keeps the error a write got, so `router.cli.main` can tell it from any other `OSError`
(those stay the tracebacks of the bugs they are).
"""

from __future__ import annotations

import errno
import io
import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer


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
        errors=old.errors,
        line_buffering=bool(old.line_buffering),
        write_through=unbuffered or getattr(old, "write_through", False),
    )
    return raw
