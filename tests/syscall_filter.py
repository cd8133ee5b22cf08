"""A command run under seccomp filters as systemd builds them for a unit's
`SystemCallFilter=` and `RestrictNamespaces=` (with `SystemCallErrorNumber=EPERM`), or as a
host that leaves the sandbox its guard alone: the real kernel refusing the real calls.

`wrapper(spec)` is the argv to put before the command; this file, run with a spec, loads
the filters through libseccomp and executes the rest of its argv. A spec holds:

- `allow`: the only calls allowed (SystemCallFilter's allow list), the rest fail with EPERM;
  absent: every call allowed;
- `deny`: calls that fail with EPERM;
- `namespaces`: the namespace types `unshare`, `clone` and `setns` may still make or join
  (RestrictNamespaces=); absent: any. `clone3`, whose flags a filter cannot read, then
  fails with ENOSYS, and the C library falls back to `clone`, as under systemd
  (src/shared/seccomp-util.c, `seccomp_restrict_namespaces`).

A spec names calls only: `calls` expands systemd's `@groups` with this machine's
`systemd-analyze syscall-filter`.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import shutil
import subprocess
import sys
from functools import cache
from typing import Any

NAMESPACE_FLAGS = {
    "cgroup": 0x02000000,
    "ipc": 0x08000000,
    "net": 0x40000000,
    "mnt": 0x00020000,
    "pid": 0x20000000,
    "user": 0x10000000,
    "uts": 0x04000000,
}
LANDLOCK = ("landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self")
GUARD_ONLY: dict[str, Any] = {"namespaces": [], "deny": list(LANDLOCK)}
"""A host with neither of the sandbox's kernel layers (the unit as it was)."""

_ALLOW, _EPERM, _ENOSYS = 0x7FFF0000, 1, 38
_MASKED_EQ = 7
_CTL_NNP = 3  # SCMP_FLTATR_CTL_NNP: set no_new_privs, so an unprivileged user may load it


def available() -> bool:
    """Whether filters can be loaded here: Linux with libseccomp."""
    return sys.platform.startswith("linux") and ctypes.util.find_library("seccomp") is not None


def wrapper(spec: dict[str, Any]) -> list[str]:
    """The argv that runs what follows it under `spec`'s filters."""
    return [sys.executable, __file__, json.dumps(spec)]


@cache
def _groups() -> dict[str, list[str]]:
    """systemd's syscall groups, each with its entries (calls and other groups)."""
    exe = shutil.which("systemd-analyze")
    assert exe is not None, "systemd-analyze expands the groups"
    listing = subprocess.run(
        [exe, "syscall-filter"], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    groups: dict[str, list[str]] = {}
    current: list[str] = []
    for line in listing.splitlines():
        entry = line.strip()
        if line.startswith("@"):
            current = groups.setdefault(entry, [])
        elif entry and not entry.startswith("#") and line[:1].isspace():
            current.append(entry)
    return groups


def calls(names: list[str]) -> set[str]:
    """`names` with each `@group` replaced by the calls in it (nested groups too)."""
    out: set[str] = set()
    for name in names:
        out |= calls(_groups()[name]) if name.startswith("@") else {name}
    return out


class _Arg(ctypes.Structure):
    _fields_ = (
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    )


def _load(lib: ctypes.CDLL, default: int, rules: list[tuple[int, str, _Arg | None]]) -> None:
    """One filter: `default` for every call but those of `rules` (action, call, condition)."""
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    ctx = ctypes.c_void_p(lib.seccomp_init(ctypes.c_uint32(default)))
    for action, name, condition in rules:
        number = lib.seccomp_syscall_resolve_name(name.encode())
        if number < 0:
            continue  # a call this libseccomp does not know: systemd skips it too
        extra = [ctypes.c_uint(1), condition] if condition is not None else [ctypes.c_uint(0)]
        rc = lib.seccomp_rule_add(ctx, ctypes.c_uint32(action), number, *extra)
        assert rc == 0, f"seccomp_rule_add({name}): {rc}"
    assert lib.seccomp_attr_set(ctx, _CTL_NNP, 1) == 0
    assert lib.seccomp_load(ctx) == 0, "seccomp_load"


def main(spec: dict[str, Any], argv: list[str]) -> None:
    lib = ctypes.CDLL(ctypes.util.find_library("seccomp"))
    errno = lambda number: 0x00050000 | number  # noqa: E731 - SCMP_ACT_ERRNO
    if spec.get("namespaces") is not None:  # systemd's own filter, beside the call filter
        rules: list[tuple[int, str, _Arg | None]] = [(errno(_ENOSYS), "clone3", None)]
        for kind, flag in NAMESPACE_FLAGS.items():
            if kind not in spec["namespaces"]:
                for call, at in (("unshare", 0), ("clone", 0), ("setns", 1)):
                    rules.append((errno(_EPERM), call, _Arg(at, _MASKED_EQ, flag, flag)))
        _load(lib, _ALLOW, rules)
    if spec.get("deny"):
        _load(lib, _ALLOW, [(errno(_EPERM), name, None) for name in spec["deny"]])
    if spec.get("allow") is not None:
        _load(lib, errno(_EPERM), [(_ALLOW, name, None) for name in spec["allow"]])
    os.execvp(argv[0], argv)


if __name__ == "__main__":
    main(json.loads(sys.argv[1]), sys.argv[2:])
