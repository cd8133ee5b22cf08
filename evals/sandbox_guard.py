"""What the sandbox's interpreter runs first: the guard, then the program, then the nonce.

`evals.sandbox` runs this file's text with ``python -s -P -c <text> <fd>``; importing it runs
nothing. It reports that it started on the pipe `<fd>`, closed before the program runs so the
program cannot fake or erase it (without the report the sandbox itself failed: not the
program's fault), reads a one-time nonce from stdin (so no text the program prints can contain
it by accident), puts /dev/null in stdin's place (the program reads empty input, never the
nonce), installs the guard, runs ``program.py`` as ``__main__``, then writes the nonce to a
copy of fd 1 (the program may rebind ``sys.stdout``). Exit status 0 without the
nonce means the program exited early (e.g. sys.exit(0) before the assertions ran). That
guards against mistakes, not malice: the program shares this interpreter and could find the
nonce in memory (review finding).

The guard is a PEP 578 audit hook, plus wrappers where CPython raises no usable event. It
refuses sockets, new processes, native code, and writes or metadata changes outside the
working directory. What the hook decides with is bound when it is installed, so patching
`os.path` or `builtins` does not change its answers; and what it keeps is immutable (tuples,
frozensets), since a refusal's traceback hands the program the hook's frames and their locals
(a mutable dict of checks could be emptied, in review). It stays in-process defence in depth,
not a security boundary: a program written to defeat it can (a traceback hands out a wrapper's
frame, and with it the original call; a function's `__code__` can be replaced; a rename can
race a check). Where the kernel offers them, Landlock (`evals.landlock`) and the
namespaces are the boundary (docs/evals.md).
"""

from __future__ import annotations

import _imp
import os
import sys
from collections.abc import Callable
from contextlib import suppress
from types import SimpleNamespace
from typing import Any

STARTED = "SMF-SANDBOX-STARTED"
MARKER = "SMF-SANDBOX-DONE"

DENIED_EVENTS = frozenset(
    {
        "socket.connect",
        "socket.bind",
        "socket.sendto",
        "socket.sendmsg",
        "socket.getaddrinfo",
        "os.fork",
        "os.forkpty",
        "os.posix_spawn",
        "os.spawn",
        "os.exec",
        "os.system",
        "os.kill",
        "os.killpg",
        "os.setuid",
        "subprocess.Popen",
        "pty.spawn",
        "ctypes.dlopen",
        "ctypes.dlsym",
        "ctypes.cdata",
        "cpython.PyInterpreterState_New",  # a subinterpreter starts without this hook
        "gc.get_objects",  # these three would hand out the originals the wrappers hide
        "gc.get_referrers",
        "gc.get_referents",
    }
)
# By the last part of the name (`x._posixsubprocess` loads the same library).
DENIED_MODULES = frozenset(
    {
        "_posixsubprocess",  # another copy: fork_exec starts processes without an event
        "_ctypes",
        "_xxsubinterpreters",
        "_posixshmem",  # shm_open creates files under /dev/shm
        "_testcapi",
        "_testinternalcapi",
        "posix",  # a second copy would come without the wrappers below
        "_imp",  # and a second _imp with the unwrapped create_builtin
        "_signal",  # and with the unwrapped pidfd_send_signal
    }
)
# Event -> (positions of its paths, positions of its dir_fd: -1 or None when not given).
PATH_EVENTS: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = {
    "os.mkdir": ((0,), (2,)),
    "os.rmdir": ((0,), (1,)),
    "os.remove": ((0,), (1,)),
    "os.rename": ((0, 1), (2, 3)),
    "os.link": ((0, 1), (2, 3)),
    "os.symlink": ((1,), (2,)),  # the link; its target is judged from the link's directory
    "os.chmod": ((0,), (2,)),
    "os.chown": ((0,), (3,)),
    "os.utime": ((0,), (3,)),
    "os.truncate": ((0,), ()),
    "os.setxattr": ((0,), ()),
    "os.removexattr": ((0,), ()),
    "shutil.rmtree": ((0,), (1,)),
}
_WRITE = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
_LINK, _TYPE = 0o120000, 0o170000


def _refused(*_: object, **__: object) -> Any:
    """In place of calls that raise no audit event: os.mknod, os.mkfifo, os.pidfd_open,
    signal.pidfd_send_signal and _posixsubprocess.fork_exec."""
    raise PermissionError("sandbox: this call is not allowed")


def _open(
    path: Any,
    flags: int,
    mode: int = 0o777,
    *,
    dir_fd: int | None = None,
    _original: Callable[..., int] = os.open,
) -> int:
    """os.open without dir_fd: its `open` audit event carries the relative name only, which
    the hook could judge only against the working directory (a review found the escape)."""
    if dir_fd is not None:
        raise PermissionError("sandbox: os.open with dir_fd is not allowed")
    return _original(path, flags, mode)


def _create_builtin(
    spec: Any,
    *,
    _original: Callable[[Any], Any] = _imp.create_builtin,
    _denied: frozenset[str] = DENIED_MODULES,
    _named: type[SimpleNamespace] = SimpleNamespace,
    _kind: type[type] = type,
    _exact: type[str] = str,
    _missing: type[ImportError] = ImportError,
) -> Any:
    """`_imp.create_builtin` raises no audit event: without this, a builtin copy of `posix`
    or `_posixsubprocess` (as Debian builds it) would bypass the hook. What it uses is bound
    in its defaults, which the hook does not let a program read."""
    name = spec.name
    if _kind(name) is not _exact or name.rpartition(".")[2] in _denied:
        raise _missing(f"sandbox: importing {name!r} is not allowed")
    return _original(_named(name=name))  # a copy whose name cannot change after the check


def _wrap() -> frozenset[int]:
    """Swap the wrappers in, wherever the originals were published; return their ids."""
    # Loaded now and disarmed: `subprocess` (so asyncio) imports it, and any later load of
    # another copy is refused as an import.
    import _posixsubprocess

    _posixsubprocess.fork_exec = _refused
    originals = {os.open, os.mknod, os.mkfifo}
    os.open = _open  # os re-exports posix: both modules are patched
    os.mknod = os.mkfifo = _refused
    posix = sys.modules["posix"]
    posix.open = _open  # type: ignore[attr-defined]
    posix.mknod = posix.mkfifo = _refused  # type: ignore[attr-defined]
    # os.kill raises an event; signalling through a pidfd does not (found in review). Loaded
    # now, like _posixsubprocess: a second `_signal` is refused as an import.
    import signal

    for module, name in ((os, "pidfd_open"), (posix, "pidfd_open")):
        if hasattr(module, name):
            setattr(module, name, _refused)
    for module in (signal, sys.modules["_signal"]):
        if hasattr(module, "pidfd_send_signal"):
            module.pidfd_send_signal = _refused
    _imp.create_builtin = _create_builtin
    # `shutil` then takes the path-based rmtree (its fd-based one needs os.open's dir_fd).
    for published in (
        os.supports_dir_fd,
        os.supports_fd,
        os.supports_follow_symlinks,
        os.supports_effective_ids,
    ):
        published -= originals
    return frozenset({id(_open), id(_create_builtin)})


Check = Callable[[str, tuple[Any, ...]], None]


def install(root: str) -> None:
    """Install the guard for a program whose working directory is `root` (a resolved path)."""
    wrapped = _wrap()
    checks = _file_checks(_judge(root), _discards())
    checked = frozenset(name for name, _ in checks)
    denied_events, denied_modules = DENIED_EVENTS, DENIED_MODULES
    # Builtins bound now: a program that replaces them in `builtins` changes nothing here.
    refuse, text, ident = PermissionError, str.__add__, id
    # A denied module is one this Python lacks: libraries fall back (numpy without ctypes).
    missing = ImportError

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event in denied_events:
            raise refuse(f"sandbox: {event} is not allowed")
        if event == "import" and text("", args[0]).rpartition(".")[2] in denied_modules:
            raise missing(f"sandbox: importing {args[0]} is not allowed")
        if event == "object.__getattr__" and ident(args[0]) in wrapped:
            raise refuse("sandbox: the guard's wrappers are not open to inspection")
        if event in checked:
            for name, check in checks:
                if name == event:
                    check(event, args)

    sys.addaudithook(hook)


def _file_checks(
    inside: Callable[..., bool], discards: Callable[[Any], bool]
) -> tuple[tuple[str, Check], ...]:
    """Per event, what refuses a write or a metadata change outside the directory."""
    # Bound now, like everything the hook uses: module globals and `builtins` can be patched.
    write = _WRITE
    refuse, text, kind, is_a, exact = PermissionError, str.__add__, type, isinstance, str
    fd_or_none, number, some, every = int | None, int, any, all

    def opened(event: str, args: tuple[Any, ...]) -> None:
        path, flags = args[0], args[2]
        writes = kind(flags) is number and flags & write
        if writes and not is_a(path, fd_or_none) and not inside(path) and not discards(path):
            raise refuse("sandbox: writing outside the working directory")

    def database(event: str, args: tuple[Any, ...]) -> None:  # SQLite opens files itself
        name = text("", args[0]) if is_a(args[0], exact) else args[0]
        if name != ":memory:" and (kind(name) is not exact or name.startswith("file:")):
            raise refuse("sandbox: only plain database paths are allowed")
        if name != ":memory:" and not inside(name):
            raise refuse("sandbox: a database outside the working directory")

    def changed_at(paths: tuple[int, ...], dir_fds: tuple[int, ...]) -> Check:
        def changed(event: str, args: tuple[Any, ...]) -> None:
            if some(args[i] is not None and args[i] != -1 for i in dir_fds):
                raise refuse(f"sandbox: {event} with dir_fd is not allowed")
            if not every(inside(args[i]) for i in paths):
                raise refuse("sandbox: changing files outside the working directory")
            if event == "os.symlink" and not inside(args[0], link=args[1]):
                raise refuse("sandbox: a link pointing outside the working directory")

        return changed

    changes = tuple((event, changed_at(*where)) for event, where in PATH_EVENTS.items())
    return (("open", opened), ("sqlite3.connect", database), *changes)


def _judge(root: str) -> Callable[..., bool]:
    """`inside(path, link=None)`: whether `path` (or a symlink at `link` pointing to `path`)
    stays in `root`, judged from both the entry itself and where it leads (renaming a link in
    /etc that points here must not pass as a change inside)."""
    name_of, resolve, getcwd, prefix = _namer(), _resolver(), os.getcwd, root + "/"

    def inside(path: Any, link: Any = None) -> bool:
        name = name_of(path)
        if name is None:
            return False
        base = getcwd()
        if link is not None:  # a symlink's target is relative to the link's directory
            place = name_of(link)
            if place is None:
                return False
            base = resolve(place, base, False).rpartition("/")[0] or "/"
        entry, target = resolve(name, base, False), resolve(name, base, True)
        # `root` itself too: an O_TMPFILE open (tempfile) names the directory
        return (entry + "/").startswith(prefix) and (target + "/").startswith(prefix)

    return inside


def _discards() -> Callable[[Any], bool]:
    """`discards(path)`: whether `path` leads to /dev/null, the one file outside the directory
    a program may open for writing (`open(os.devnull, "w")` to silence output)."""
    name_of, resolve, getcwd = _namer(), _resolver(), os.getcwd

    def discards(path: Any) -> bool:
        name = name_of(path)
        return name is not None and resolve(name, getcwd(), True) == "/dev/null"

    return discards


def _namer() -> Callable[[Any], str | None]:
    """A path argument as an exact str: what C converted, not what a subclass's methods say;
    an fd as the file it refers to; None for an fd that is not a file (a pipe, a socket)."""
    readlink, fspath, is_a, number, raw = os.readlink, os.fspath, isinstance, int, bytes
    as_int, text, decode, plain = int.__int__, str.__add__, bytes.decode, str | bytes

    def name_of(path: Any) -> str | None:
        if is_a(path, number):
            path = readlink(f"/proc/self/fd/{as_int(path)}")
            return path if path.startswith("/") else None
        if not is_a(path, plain):
            path = fspath(path)  # a path object: the one value this guard cannot pin down
        if is_a(path, raw):
            return decode(path, "utf-8", "surrogateescape")
        return text("", path)

    return name_of


def _resolver() -> Callable[[str, str, bool], str]:
    """`resolve(path, base, follow_last)`: where the kernel would take `path` from `base`,
    following symlinks; from the first missing component on, the rest is taken literally."""
    lstat, readlink, failed, kind, link = os.lstat, os.readlink, OSError, _TYPE, _LINK

    def resolve(path: str, base: str, follow_last: bool) -> str:
        done, hops = "", 0
        todo = [*([] if path.startswith("/") else base.split("/")), *path.split("/")][::-1]
        while todo:
            part = todo.pop()
            if part in ("", "."):
                continue
            if part == "..":
                done = done[: done.rfind("/")]
                continue
            step = done + "/" + part
            try:
                is_link = lstat(step).st_mode & kind == link
            except failed:
                is_link = False
            if not is_link or (not todo and not follow_last):
                done = step
                continue
            hops += 1
            if hops > 40:
                return ""  # a loop: never inside
            target = readlink(step)
            done = "" if target.startswith("/") else done
            todo.extend(target.split("/")[::-1])
        return done or "/"

    return resolve


def main() -> None:
    ready = int(sys.argv.pop(1))  # the program sees the argv it always had: ["-c"]
    os.write(ready, STARTED.encode())
    os.close(ready)
    nonce = sys.stdin.readline().strip()
    _empty_stdin()
    import runpy

    # The nonce goes to a copy of fd 1, not through sys.stdout: a correct program may rebind
    # that (`sys.stdout = io.StringIO()`), and then its end looked like an early exit.
    out, stdout = os.dup(1), sys.stdout
    original = _identity(out)
    install(os.path.realpath(os.getcwd()))
    runpy.run_path("program.py", run_name="__main__")
    for stream in (stdout, sys.stdout):  # what the program printed comes before the nonce
        with suppress(Exception):  # a stream it closed or replaced (None) holds nothing more
            stream.flush()
    # The copy is fd 3, the first free one: a program that closes fds (os.closerange(3, 64))
    # closed it, and may have opened another file there since. fd 1 then, as before the copy.
    # The same file opened read-only there still fails to take the write: fd 1 then too.
    line = ("\n" + MARKER + " " + nonce + "\n").encode()
    try:
        os.write(out if _identity(out) == original else 1, line)
    except OSError:
        os.write(1, line)


def _empty_stdin() -> None:
    """From here on stdin is /dev/null: the program cannot read the nonce's pipe again, and
    a correct program that reads its input (`sys.stdin.read()`, `for line in sys.stdin`, as
    competitive programmers write `main()`) reads none and ends, where a closed `sys.stdin`
    raised "I/O operation on closed file". fd 0 itself is replaced, for `os.read(0, ...)`."""
    encoding, errors = sys.stdin.encoding, sys.stdin.errors
    sys.stdin.close()  # with whatever it buffered; fd 0 stays open (closefd=False) until dup2
    null = os.open(os.devnull, os.O_RDONLY)
    if null != 0:
        os.dup2(null, 0)
        os.close(null)
    # stdin for the rest of the process's life, as Python's own is: no `with` to close it
    stdin = open(0, encoding=encoding, errors=errors, closefd=False)  # noqa: SIM115
    sys.stdin = stdin
    sys.__stdin__ = stdin  # type: ignore[misc]  # the closed one is no use to the program


def _identity(fd: int) -> tuple[int, int] | None:
    """The file `fd` refers to (device, inode), or None when it is closed."""
    try:
        found = os.fstat(fd)
    except OSError:
        return None
    return found.st_dev, found.st_ino


if __name__ == "__main__":
    main()
