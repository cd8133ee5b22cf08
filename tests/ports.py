"""Ports for the servers tests start. A port picked free (`free_port`, or a pick of a fixed
range) and bound later can be taken meanwhile by another process (a test's other child, another
test run's server, an outgoing connection's ephemeral port): a test failing for no fault of the
product. One mechanism answers it, `on_a_free_port`: the bind is tried on the pick, and a port
found taken is given up for another pick. A server in the test process binds its socket first
and serves on it (`on_a_free_port(listening, pick)`, or its own bind as the attempt): its
EADDRINUSE is the sign. A child process binds its own port, once its imports ran, seconds after
the pick: its exit saying its address is in use is the sign (`served`, `ran`), and so is
another server answering its start-up probe (`served`); any other exit is an error with what
the child said.
"""

from __future__ import annotations

import errno
import os
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
    one while the port was taken since: the attempt raised PortTaken (a child said so), or
    an OSError EADDRINUSE (its bind in this process), TRIES times at most."""
    said = ""
    for _ in range(TRIES):
        port = (pick or free_port)()
        try:
            return attempt(port)
        except PortTaken as taken:
            said = str(taken)
            print(f"port {port} was taken before the child bound it: another", file=sys.stderr)
        except OSError as error:
            if error.errno != errno.EADDRINUSE:
                raise
            said = str(error)
            print(f"port {port} was taken before this process bound it: another", file=sys.stderr)
    raise RuntimeError(f"{TRIES} ports in a row taken before they were bound: {said}")


def served(
    launch: Callable[[int], Process],
    url: str,
    log: Callable[[int], Path] | None = None,
    pick: Callable[[], int] | None = None,
    ready_only: bool = False,
) -> tuple[int, Process]:
    """`launch(port)`, a server started as a child, once `url` (with `{port}`) answers (with
    `ready_only`, below 500) from the child: its port and process. Exited first: what it said
    (`log(port)`, its output, else its pipes) saying the address is in use, the same on
    another port (that log removed: the test reads its server's); else a RuntimeError with
    it. Answered by another server, which held the port before the child could bind it (the
    child would exit saying so, maybe only after its imports): the child killed, the same on
    another port. Not up within 90 s: killed, and TimeoutError."""

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
        if not _listens(process.pid, port):
            process.kill()
            process.wait(timeout=10)
            if log:
                log(port).unlink(missing_ok=True)
            raise PortTaken(f"another server answered {url.format(port=port)}")
        return port, process

    return on_a_free_port(attempt, pick)


def ran(
    run: Callable[[int], subprocess.CompletedProcess[str]], pick: Callable[[], int] | None = None
) -> subprocess.CompletedProcess[str]:
    """`run(port)`, a server command expected to stop while starting (a refused config,
    found after its port was tried), on another port (by `pick`, else `free_port`) when it
    stopped on that port taken."""

    def attempt(port: int) -> subprocess.CompletedProcess[str]:
        done = run(port)
        said = f"{done.stdout or ''}{done.stderr or ''}"
        if done.returncode != 0 and IN_USE in said.lower():
            raise PortTaken(said[-1000:])
        return done

    return on_a_free_port(attempt, pick)


def _output(process: Process, log: Path | None) -> str:
    """What an exited child wrote: its log, else whatever of its output went to pipes."""
    if log is not None:
        return log.read_text(errors="replace")
    parts = process.communicate(timeout=10)
    return "".join(p.decode(errors="replace") if isinstance(p, bytes) else p or "" for p in parts)


# A listening socket's local address in /proc/net/tcp{,6} that takes a connection to
# 127.0.0.1 (the address every probe asks): 127.0.0.1, 0.0.0.0, ::ffff:127.0.0.1, ::.
_LOOPBACK = {"0100007F", "00000000", "0000000000000000FFFF00000100007F", "0" * 32}
_LISTEN = "0A"


def _listens(pid: int, port: int) -> bool:
    """Whether what listens on 127.0.0.1:`port` is process `pid` or a process it started, and
    nothing else: not another server that held the port first and answered the probe in its
    place. Linux's /proc tells (the listeners' socket inodes among the process's open files);
    where there is none, it is taken to be."""
    tables = [Path("/proc/net/tcp"), Path("/proc/net/tcp6")]
    if not tables[0].exists():
        return True
    listeners: set[str] = set()
    for table in (t for t in tables if t.exists()):
        for row in table.read_text().splitlines()[1:]:
            fields = row.split()
            address, _, hex_port = fields[1].partition(":")
            if fields[3] == _LISTEN and int(hex_port, 16) == port and address in _LOOPBACK:
                listeners.add(fields[9])
    return bool(listeners) and listeners <= _sockets([pid, *_descendants(pid)])


def _descendants(pid: int) -> list[int]:
    """The processes `pid` started, and theirs (a wrapper that runs the server as a child)."""
    parents: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            after_name = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        parents.setdefault(int(after_name[1]), []).append(int(stat.parent.name))
    found, todo = [], list(parents.get(pid, []))
    while todo:
        found.append(todo.pop())
        todo += parents.get(found[-1], [])
    return found


def _sockets(pids: list[int]) -> set[str]:
    """The inodes of the sockets these processes hold open."""
    inodes: set[str] = set()
    for pid in pids:
        try:
            fds = list(Path(f"/proc/{pid}/fd").iterdir())
        except OSError:  # gone meanwhile
            continue
        for fd in fds:
            try:
                link = os.readlink(fd)
            except OSError:  # closed meanwhile
                continue
            if link.startswith("socket:["):
                inodes.add(link[len("socket:[") : -1])
    return inodes
