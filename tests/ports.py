"""Ports for the servers tests start. A server in the test process serves on a socket bound
first (`listening`). A child process binds its own port, once its imports ran, seconds after
it was picked free (`free_port`): meanwhile another process (a test's other child, an outgoing
connection's ephemeral port) can take it, and the child exits saying its address is in use,
a test failing for no fault of the product. That exit alone is tried again on another port
(`served`, `ran`); any other is an error with what the child said.
"""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from tests.waiting import wait_for

T = TypeVar("T")
TRIES = 3  # a port taken between pick and bind is rare: three in a row is something else
IN_USE = "address already in use"  # errno 98, as uvicorn, the simulator and Prometheus say it
Process = subprocess.Popen[Any]


def free_port() -> int:
    """A port nothing is bound to now (the kernel's pick, as for a port 0)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def listening(port: int) -> socket.socket:
    """A socket listening on 127.0.0.1:`port` (0: any free one), for a server in this process
    to serve on: no race, as a port picked free and bound only as the server starts has. Set
    SO_REUSEADDR as uvicorn sets it: a port a stopped server left in TIME_WAIT serves again."""
    sock = socket.socket()
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
        sock.listen()  # held from now: with SO_REUSEADDR, another socket could bind it too
    except OSError:
        sock.close()
        raise
    return sock


class PortTaken(Exception):
    """The child said the port picked for it was taken before it could bind it."""


def on_a_free_port(attempt: Callable[[int], T], pick: Callable[[], int] | None = None) -> T:
    """`attempt(port)` on a port free when picked (by `pick`, else `free_port`), and on a new
    one while it raises PortTaken, TRIES times at most."""
    said = ""
    for _ in range(TRIES):
        port = (pick or free_port)()
        try:
            return attempt(port)
        except PortTaken as taken:
            said = str(taken)
            print(f"port {port} was taken before the child bound it: another", file=sys.stderr)
    raise RuntimeError(f"{TRIES} ports in a row taken before the child bound them: {said}")


def served(
    launch: Callable[[int], Process],
    url: str,
    log: Callable[[int], Path] | None = None,
    pick: Callable[[], int] | None = None,
    ready_only: bool = False,
) -> tuple[int, Process]:
    """`launch(port)`, a server started as a child, once `url` (with `{port}`) answers (with
    `ready_only`, below 500): its port and process. Exited first: what it said (`log(port)`,
    its output, else its pipes) saying the address is in use, the same on another port (that
    log removed: the test reads its server's); else a RuntimeError with it. Not up within
    90 s: killed, and TimeoutError."""

    def attempt(port: int) -> tuple[int, Process]:
        process = launch(port)
        try:
            wait_for(url.format(port=port), 90, process, ready_only=ready_only)
        except RuntimeError:  # it exited first
            said = _output(process, log(port) if log else None)
            if IN_USE not in said.lower():
                raise RuntimeError(
                    f"{process.args!r} exited {process.returncode} while starting: {said[-3000:]}"
                ) from None
            if log:
                log(port).unlink()
            raise PortTaken(said[-1000:]) from None
        except BaseException:
            process.kill()
            process.wait(timeout=10)
            raise
        return port, process

    return on_a_free_port(attempt, pick)


def ran(run: Callable[[int], subprocess.CompletedProcess[str]]) -> subprocess.CompletedProcess[str]:
    """`run(port)`, a server command expected to stop while starting (a refused config,
    found after its port was tried), on another port when it stopped on that port taken."""

    def attempt(port: int) -> subprocess.CompletedProcess[str]:
        done = run(port)
        said = f"{done.stdout or ''}{done.stderr or ''}"
        if done.returncode != 0 and IN_USE in said.lower():
            raise PortTaken(said[-1000:])
        return done

    return on_a_free_port(attempt)


def _output(process: Process, log: Path | None) -> str:
    """What an exited child wrote: its log, else whatever of its output went to pipes."""
    if log is not None:
        return log.read_text(errors="replace")
    parts = process.communicate(timeout=10)
    return "".join(p.decode(errors="replace") if isinstance(p, bytes) else p or "" for p in parts)
