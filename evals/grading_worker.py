"""The grading process: grades one answer at a time for ``evals.grading.Grader``.

Run as ``python -P -m evals.grading_worker FD PARENT_PID MEMORY_BYTES``, ``FD`` its end of
a socket pair. It says it is ready once its imports are done (so that they never count against an
answer's time limit), then answers each request with a reply, until the socket closes.
Each message is a 4-byte big-endian length and a pickle: a request is ``(case, answer)``;
a reply is ``("grade", Grade)``, ``("case", message)`` for a ``CaseProblem`` or
``("bug", type name, traceback)``. Pickle is fine here: both ends are this code, and the
socket is no one else's.

It makes itself non-dumpable (Linux): it holds its parent's environment, keys included,
and the sandbox's programs may run beside it as the same user.
Its life is its parent's: it dies with it (``PR_SET_PDEATHSIG`` on Linux, so that even
a regex that never ends does not outlive a router killed with SIGKILL), it leaves when
the socket closes, and it ignores SIGINT and SIGTERM, which a terminal's Ctrl-C or a
service manager send to the whole group: the parent kills it when it is done with it.
Its address space is limited (``MEMORY_BYTES``, the sandbox's: ``evals.sandbox.Limits``): a
pattern that backtracks while it allocates ends as a ``MemoryError``, a bug reply, not as
the host's memory.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import pickle
import resource
import signal
import socket
import struct
import sys
import traceback
from typing import Any

HEADER = struct.Struct("!I")
"""The length before each message."""

READY = "ready"
"""The first message: the imports are done."""

_PR_SET_PDEATHSIG, _PR_SET_DUMPABLE = 1, 4


def frame(message: Any) -> bytes:
    """``message`` as sent: its length, then its pickle."""
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return HEADER.pack(len(data)) + data


def _read(stream: Any, size: int) -> bytes | None:
    """Exactly ``size`` bytes, or None at the end of the stream."""
    data = stream.read(size)
    return data if data is not None and len(data) == size else None


def _hide_environment() -> None:
    """Non-dumpable, as `serve` and `canary run` make the router (`router.sandbox_layers`):
    it holds the router's environment, cloud keys included, and the sandbox's programs run
    as its user beside it (found in review: with the sandbox's kernel layers off, they could
    read a dumpable process's /proc/<pid>/environ)."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)


def _die_with(parent: int) -> None:
    """Be killed when the parent dies, and leave now if it already has."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # it died before the line above
        sys.exit(0)


def serve(fd: int, parent: int, memory_bytes: int) -> None:
    """Grade requests from the socket ``fd`` until it closes, in ``memory_bytes`` of address
    space."""
    _hide_environment()
    _die_with(parent)
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, signal.SIG_IGN)
    with contextlib.suppress(ValueError, OSError):  # macOS refuses it: unlimited there
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    from evals.graders import CaseProblem, grade  # after the limits: counted in them

    with socket.socket(fileno=fd) as sock, sock.makefile("rb") as reading:
        sock.sendall(frame(READY))
        while (header := _read(reading, HEADER.size)) is not None:
            body = _read(reading, HEADER.unpack(header)[0])
            if body is None:
                return
            reply: tuple[Any, ...]
            try:
                case, answer = pickle.loads(body)
                reply = ("grade", grade(case, answer))
            except CaseProblem as exc:
                reply = ("case", str(exc))
            except Exception as exc:  # a grader bug, a MemoryError: this answer's alone
                reply = ("bug", type(exc).__name__, traceback.format_exc())
            sock.sendall(frame(reply))


if __name__ == "__main__":
    serve(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))
