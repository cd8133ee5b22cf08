"""Landlock: the kernel's own bar on what the sandbox may change, whatever runs inside it.

The guard lives in the program's interpreter, so a program written to get around it can.
Landlock does not: once a process has restricted itself, neither it nor anything it starts
(a shell, a compiled binary) may create, write, truncate, rename or remove files outside the
directory it kept (writing to /dev/null aside), open or accept TCP connections (ABI 4+), or
signal processes outside the sandbox (ABI 6+). Unprivileged, no namespace needed: Linux 5.13+
with Landlock among the enabled security modules. Reads and metadata (chmod, chown, utime,
xattrs) are not covered; the guard refuses the latter.
https://docs.kernel.org/userspace-api/landlock.html

`evals.sandbox` runs this file's text as the first program (``python -s -P -c <text> <argv>``):
it restricts itself to its working directory, then executes `argv`. A restriction that does
not take ends it with status 1 before `argv` starts, so the sandbox reports itself unavailable
rather than run the program unconfined.
"""

from __future__ import annotations

import ctypes
import functools
import os
import sys

# Syscall numbers, the same on every architecture (they came after the unified table).
_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_VERSION_QUERY, _PATH_BENEATH, _NO_NEW_PRIVS = 1, 1, 38
# Filesystem rights that change something, per ABI version that introduced them: write,
# remove dir/file, make char/dir/reg/sock/fifo/block/symlink (1); refer (2); truncate (3).
_FS_WRITES = ((1, 0b1_1111_1111_0010), (2, 1 << 13), (3, 1 << 14))
# What may be done to /dev/null outside the directory: write, truncate (`open(os.devnull, "w")`).
_NULL_WRITES = ((1, 1 << 1), (3, 1 << 14))
_TCP_BIND_CONNECT = (4, 0b11)
_SCOPE_SIGNAL = (6, 1 << 1)


class _Ruleset(ctypes.Structure):
    _fields_ = (
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),  # ABI 4; older kernels accept it as zero
        ("scoped", ctypes.c_uint64),  # ABI 6
    )


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = (("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32))


@functools.cache
def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def _checked(result: int, what: str) -> int:
    if result < 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"landlock: {what}: {os.strerror(errno)}")
    return result


@functools.cache
def abi() -> int:
    """The Landlock ABI version the kernel offers here; 0 when it offers none (an old
    kernel, Landlock not enabled, or a seccomp filter that hides the call)."""
    if not sys.platform.startswith("linux"):
        return 0
    try:
        version = _libc().syscall(
            ctypes.c_long(_CREATE_RULESET),
            None,
            ctypes.c_size_t(0),
            ctypes.c_long(_VERSION_QUERY),
        )
    except (OSError, AttributeError):
        return 0
    return max(int(version), 0)


def _rights(version: int, table: tuple[tuple[int, int], ...]) -> int:
    return sum(bits for since, bits in table if version >= since)


def restrict(directory: str, version: int) -> None:
    """From now on, this process and everything it starts may change files only beneath
    `directory` (and write to /dev/null), and (with the ABI for it) use no TCP and signal
    nothing outside."""
    libc = _libc()
    writes = _rights(version, _FS_WRITES)
    ruleset = _Ruleset(
        writes,
        _rights(version, (_TCP_BIND_CONNECT,)),
        _rights(version, (_SCOPE_SIGNAL,)),
    )
    size = ctypes.c_size_t(ctypes.sizeof(ruleset))
    create = libc.syscall(
        ctypes.c_long(_CREATE_RULESET), ctypes.byref(ruleset), size, ctypes.c_long(0)
    )
    fd = _checked(create, "create_ruleset")
    try:
        _allow(fd, directory, os.O_DIRECTORY, writes)
        _allow(fd, os.devnull, 0, _rights(version, _NULL_WRITES))
        _checked(libc.prctl(_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
        restricted = libc.syscall(
            ctypes.c_long(_RESTRICT_SELF), ctypes.c_long(fd), ctypes.c_long(0)
        )
        _checked(restricted, "restrict_self")
    finally:
        os.close(fd)


def _allow(ruleset: int, path: str, kind: int, rights: int) -> None:
    """Add to `ruleset` the rule: `rights` beneath `path` (a directory, or just this file)."""
    parent = os.open(path, os.O_PATH | kind | os.O_CLOEXEC)
    try:
        rule = _PathBeneath(rights, parent)
        added = _libc().syscall(
            ctypes.c_long(_ADD_RULE),
            ctypes.c_long(ruleset),
            ctypes.c_long(_PATH_BENEATH),
            ctypes.byref(rule),
            ctypes.c_long(0),
        )
        _checked(added, f"add_rule {path}")
    finally:
        os.close(parent)


def main() -> None:
    version = abi()
    if version < 1:
        sys.exit("landlock: not available here")
    try:
        restrict(os.getcwd(), version)
    except OSError as exc:
        sys.exit(str(exc))
    os.execv(sys.argv[1], sys.argv[1:])


if __name__ == "__main__":
    main()
