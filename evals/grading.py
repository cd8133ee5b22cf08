"""Grading in a process of its own, each answer within a time limit (``Grader``).

A suite's regex may backtrack for minutes: ``cat.*dog.*park.*zebra`` on a 10 KB answer took
14 s, ``(?:\\w+\\s?)+!$`` on one sentence without its ``!`` longer than anyone waits. ``re``
holds the GIL all along, so graded on the router's event loop (or on a thread: the GIL is
the same) it held every live request: ``/healthz`` took 16 s while the canary graded such
a case (found in review). Shipped suites have no such pattern; ``canary.suites`` and
smf-bench's are the user's. So answers are graded in one long-lived worker process
(``evals.grading_worker``), started when the first answer comes and one answer at a time:
the event loop only waits on a socket. An answer not graded within ``limit_s`` has its
worker killed (the next answer starts another) and is ``GradingTimedOut``: the runner's
``error`` of kind ``grader``, never a pass or a fail.

Why not the ``regex`` package's ``timeout=``: its matching differs from ``re``'s, which
smf-bench grades with and ``evals.grader_fields`` checks patterns with; it would cover
regexes alone, not the parsers the other graders run on an answer of any size; and it would
be one more dependency for what a process gives whole.

Unit-test cases are not sent here: their programs run in the sandbox, a process already.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pickle
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import evals
from evals.graders import Answer, CaseProblem, Grade
from evals.grading_worker import HEADER, READY, frame
from evals.sandbox import Limits
from evals.suite import Case

LIMIT_S = 5.0
"""Seconds to grade one answer. The shipped graders take well under a millisecond on any
answer a model sends (``docs/benchmarks.md``); a pattern that needs more backtracks."""

START_LIMIT_S = 30.0
"""Seconds for a new worker to import the graders and say it is ready (about 0.1 s; a cold
disk is slower): not counted in any answer's limit."""

REAP_S = 10.0
"""Seconds to wait for a killed worker to be gone at ``aclose``."""

_ROOT = str(Path(evals.__file__).resolve().parent.parent)  # where this `evals` is imported from


class GradingTimedOut(Exception):
    """The answer was not graded within the limit; its worker was killed."""


class GradingFailed(Exception):
    """The answer could not be graded: the grader raised (``name`` its exception's type,
    ``details`` the worker's traceback), or the worker ended or never started."""

    def __init__(self, name: str, details: str = "") -> None:
        super().__init__(name)
        self.name = name
        self.details = details


class Grader:
    """One grading worker, started on first use and shared by every answer graded here.

    Use it from one event loop at a time; ``aclose`` kills the worker (the router's canary
    closes it at shutdown, ``run_cases`` a grader it made). A worker is never left behind:
    it also leaves when its socket closes and, on Linux, is killed when its parent dies.
    """

    def __init__(self, limit_s: float | None = None) -> None:
        self.limit_s = LIMIT_S if limit_s is None else limit_s  # read now: tests shorten it
        self._process: subprocess.Popen[bytes] | None = None
        self._sock: socket.socket | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock: asyncio.Lock | None = None  # the loop's (`_locked`)
        self._dying: list[subprocess.Popen[bytes]] = []  # killed, not yet reaped

    @property
    def pid(self) -> int | None:
        """The worker's process id, None while there is none."""
        return None if self._process is None else self._process.pid

    async def __aenter__(self) -> Grader:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def grade(self, case: Case, answer: Answer) -> Grade:
        """``evals.graders.grade`` of ``case`` and ``answer``, in the worker. Raises
        ``CaseProblem`` as the grader does, ``GradingTimedOut`` past ``limit_s`` (counted
        from when the worker takes the answer, not while others' are graded) and
        ``GradingFailed`` when the grader raised anything else or the worker ended."""
        request = frame((case, answer))
        async with self._locked():
            sock = await self._ready()
            loop = asyncio.get_running_loop()
            try:
                async with asyncio.timeout(self.limit_s):
                    await loop.sock_sendall(sock, request)
                    reply = await _receive(loop, sock)
            except TimeoutError:
                self._retire()
                raise GradingTimedOut(f"grading took longer than {self.limit_s:g}s") from None
            except OSError as exc:
                self._retire()
                raise GradingFailed(f"the grading process ended ({type(exc).__name__})") from None
            except BaseException:  # cancelled while it graded: its reply would be the next's
                self._retire()
                raise
            if reply is None:  # killed (out of memory?) or crashed
                self._retire()
                raise GradingFailed("the grading process ended")
        return _verdict(reply)

    async def aclose(self) -> None:
        """Kill the worker and wait until it is gone. An answer being graded ends at once
        as ``GradingFailed``; a later ``grade`` would start another worker."""
        if self._process is not None and self._process.poll() is None:
            self._process.kill()  # an answer being graded reads the end of its socket now
        async with self._locked():
            self._retire()
        dying, self._dying = self._dying, []
        for process in dying:
            with contextlib.suppress(subprocess.TimeoutExpired):
                await asyncio.to_thread(process.wait, REAP_S)

    def _locked(self) -> asyncio.Lock:
        """The lock of the running loop: one answer at a time in the worker."""
        loop = asyncio.get_running_loop()
        if self._lock is None or self._loop is not loop:  # or kept from an earlier `asyncio.run`
            self._loop, self._lock = loop, asyncio.Lock()
        return self._lock

    async def _ready(self) -> socket.socket:
        """The worker's socket, the worker started first when there is none (or it died)."""
        self._dying = [p for p in self._dying if p.poll() is None]  # reap the killed
        if self._process is not None and self._process.poll() is not None:
            self._retire()  # it died between answers: no answer of its own should pay
        if self._sock is not None:
            return self._sock
        ours, theirs = socket.socketpair()
        command = [sys.executable, "-P", "-m", "evals.grading_worker"]
        # its address space, as the sandbox's: given here, the worker imports no sandbox
        limits = [str(theirs.fileno()), str(os.getpid()), str(Limits().memory_bytes)]
        try:
            # On the loop's thread, not `to_thread`: the worker's PR_SET_PDEATHSIG fires when
            # the thread that started it ends. A spawn (vfork, exec) takes milliseconds, once
            # per worker, where the grading it replaces held the loop for as long as it ran.
            self._process = subprocess.Popen(  # noqa: ASYNC220
                [*command, *limits],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                env=_environment(),
            )
        except OSError as exc:
            ours.close()
            raise GradingFailed(f"the grading process did not start ({exc.strerror})") from None
        finally:
            theirs.close()
        ours.setblocking(False)
        self._sock = ours
        try:
            async with asyncio.timeout(START_LIMIT_S):
                said = await _receive(asyncio.get_running_loop(), ours)
        except TimeoutError:
            said = None
        except BaseException:
            self._retire()
            raise
        if said != READY:
            self._retire()
            raise GradingFailed("the grading process did not start")
        return ours

    def _retire(self) -> None:
        """Kill the worker (reaped later: `_ready`, `aclose`); the next answer starts one."""
        process, sock = self._process, self._sock
        self._process = self._sock = None
        if sock is not None:
            sock.close()
        if process is not None:
            if process.poll() is None:
                process.kill()
            self._dying.append(process)


def _environment() -> dict[str, str]:
    """The worker's: ours, with this ``evals`` first on its path (not the current directory's,
    which ``-P`` leaves out)."""
    paths = [_ROOT, *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


async def _receive(loop: asyncio.AbstractEventLoop, sock: socket.socket) -> Any:
    """The next message, or None when the socket ended first."""
    header = await _exactly(loop, sock, HEADER.size)
    if header is None:
        return None
    body = await _exactly(loop, sock, HEADER.unpack(header)[0])
    return None if body is None else pickle.loads(body)


async def _exactly(loop: asyncio.AbstractEventLoop, sock: socket.socket, size: int) -> bytes | None:
    buffer = bytearray()
    while len(buffer) < size:  # each turn reads a byte at least, or ends
        chunk = await loop.sock_recv(sock, size - len(buffer))
        if not chunk:
            return None
        buffer += chunk
    return bytes(buffer)


def _verdict(reply: Any) -> Grade:
    """A worker's reply as the grader's own outcome."""
    if reply[0] == "grade":
        verdict: Grade = reply[1]
        return verdict
    if reply[0] == "case":
        raise CaseProblem(reply[1])
    raise GradingFailed(reply[1], reply[2])
