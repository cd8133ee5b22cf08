"""Which of the sandbox's layers hold on this host, said at start; and a router process
whose environment the programs it runs cannot read.

The sandbox (`evals.sandbox`) runs model-written code: the canary's code cases and, with
`shadow.run_request_tests`, the tests clients send. Its kernel layers, namespaces
(`unshare -rnp`) and Landlock, exist only where the host allows them; without them only the
in-process guard is left, which a program written to get around it gets around
(docs/evals.md). The shipped systemd unit once took both away without a word
(`RestrictNamespaces=yes`, a `SystemCallFilter` without the Landlock calls), and a program
run that way, as the router's user, read the cloud keys from the router's
`/proc/<pid>/environ` (found in review). So:

- `undumpable`, called as `serve` and `canary run` start, makes the process non-dumpable:
  the kernel then refuses its `/proc/<pid>/environ` and memory to the other processes of
  its user (root's with capabilities aside), whatever layers the sandbox has. The price:
  no core dumps, and a debugger or py-spy must run as root.
- `report` says which layers hold, where code-running features are on, and warns when one
  is missing while secrets are in the environment (their names, never their values).
  `serve` says it at start and a reload again (`say`), for the features that run code
  under the config now running (`running`): a reload that turned
  `shadow.run_request_tests` on ran clients' code with no word of the layers, and its
  reply's warnings said nothing (found in review). `canary run`, which has no log, says
  the same on stderr (`say`'s `write`).
"""

from __future__ import annotations

import ctypes
import dataclasses
import logging
import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from evals import landlock, sandbox
from evals.graders import evaluator_of
from evals.suite import Case

if TYPE_CHECKING:
    from router.config import Config

log = logging.getLogger("smf_router.sandbox")

CANARY = "canary code cases"
SHADOW = "shadow.run_request_tests"
"""The features that run model-written code, as `report` names them."""

_PR_GET_DUMPABLE, _PR_SET_DUMPABLE = 3, 4
# Name parts of a variable that holds a secret: OPENAI_API_KEY, HF_TOKEN, AWS_SECRET_ACCESS_KEY
_SECRET_PARTS = frozenset({"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIALS"})


def _prctl(option: int, value: int = 0) -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    return int(libc.prctl(option, value, 0, 0, 0))


def undumpable() -> bool:
    """Make this process non-dumpable; whether it now is (never off Linux). Children start
    dumpable again once they execute a program (the sandbox's own included), so nothing
    else changes for them."""
    if not sys.platform.startswith("linux"):
        return False
    return _prctl(_PR_SET_DUMPABLE, 0) == 0 and not dumpable()


def dumpable() -> bool:
    """Whether processes of this user may read this one's environment and memory (off
    Linux: taken as yes)."""
    return not sys.platform.startswith("linux") or _prctl(_PR_GET_DUMPABLE) != 0


def runs_code(cases: Iterable[Case]) -> bool:
    """Whether grading `cases` runs programs in the sandbox (unit-test cases)."""
    return any(evaluator_of(case) == "unit_test" for case in cases)


@dataclass(frozen=True)
class Layers:
    """The kernel's part of the sandbox here, and whether this process hides its own."""

    namespaces: bool
    landlock_abi: int  # 0: none
    undumpable: bool
    root: bool = False  # root with capabilities: its programs may read a non-dumpable process
    # No namespaces, and AppArmor restricts unprivileged user namespaces (Ubuntu 24.04's
    # default): the likely cause, which the unit's RestrictNamespaces= cannot undo.
    userns_apparmor: bool = False

    def summary(self) -> str:
        yes = {True: "yes", False: "no"}
        abi = f"ABI {self.landlock_abi}" if self.landlock_abi > 0 else "none"
        said = f"namespaces {yes[self.namespaces]}, Landlock {abi}"
        said += f", non-dumpable {yes[self.undumpable]}"
        return f"{said}, user root" if self.root else said

    def missing(self) -> list[str]:
        """The layers that do not hold, as the warning names them."""
        gone = []
        if not self.namespaces:
            gone.append("namespaces")
        if self.landlock_abi < 1:
            gone.append("Landlock")
        if not self.undumpable:
            gone.append("non-dumpable")
        elif self.root and not (self.namespaces or self.landlock_abi > 0):
            gone.append("a user other than root")  # its programs keep its capabilities
        return gone


def probe() -> Layers:
    """The layers as the sandbox will find them (`unshare` is run once, then cached)."""
    namespaces = sandbox.namespaces_available()
    return Layers(
        namespaces=namespaces,
        landlock_abi=landlock.abi(),
        undumpable=not dumpable(),
        root=_privileged_root(),
        userns_apparmor=not namespaces and sandbox.userns_restricted(sandbox.USERNS_SYSCTL),
    )


def _privileged_root() -> bool:
    """Whether this is root with capabilities its programs would keep: they read even a
    non-dumpable process of root's (seen without CAP_SYS_PTRACE too, on Linux 6.18)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return False
    try:
        with open("/proc/self/status", "rb") as status:
            bounding = next(line for line in status if line.startswith(b"CapBnd:"))
    except (OSError, StopIteration):
        return True
    return int(bounding.split()[1], 16) != 0


def secret_names(environ: Mapping[str, str], key_variables: Iterable[str] = ()) -> list[str]:
    """The variables of `environ` that hold a secret: the backends' `api_key_env` and any
    set variable whose name has a part such as KEY or TOKEN. Names only."""
    named = set(key_variables)
    return sorted(
        name
        for name, value in environ.items()
        if value and (name in named or _SECRET_PARTS & set(name.upper().split("_")))
    )


def report(
    features: Sequence[str],
    environ: Mapping[str, str],
    key_variables: Iterable[str] = (),
    layers: Layers | None = None,
) -> tuple[Layers, str, str | None] | None:
    """What to say at start when `features` run model-written code (None when none does):
    the layers, the line that names them, and a warning when one is missing while secrets
    are in `environ`."""
    if not features:
        return None
    layers = layers or probe()
    line = f"sandbox for {', '.join(features)}: {layers.summary()}"
    missing, secrets = layers.missing(), secret_names(environ, key_variables)
    if not (missing and secrets):
        return layers, line, None
    kernel = layers.namespaces or layers.landlock_abi > 0  # either hides the environment
    risks = []
    if layers.landlock_abi < 1:
        risks.append("write wherever this user can")
    if not layers.namespaces and layers.landlock_abi < 4:  # Landlock 4+ refuses TCP
        risks.append("reach the network")
    if not kernel and {"non-dumpable", "a user other than root"} & set(missing):
        risks.append("read this process's environment (/proc/<pid>/environ)")
    could = f" A program written to get around the guard could {' and '.join(risks)}."
    verb = "is" if len(secrets) == 1 else "are"
    warning = (
        f"SANDBOX: {', '.join(features)} run model-written code without "
        f"{', '.join(missing)}, while {', '.join(secrets)} {verb} in the environment."
        f"{could if risks else ''} {remedy(layers, sandbox.unshare_program())}"
    )
    return layers, line, warning


def remedy(layers: Layers, unshare: str | None) -> str:
    """What to do about the missing layers. Where AppArmor refuses the user namespace
    (`Layers.userns_apparmor`), the unit already allows it: the advice to allow it there
    left nothing to try (found in review, on Ubuntu 24.04). `unshare`: the program the
    sandbox executes, the one an AppArmor profile must name."""
    if not layers.userns_apparmor:
        return (
            "Allow the layers (systemd: RestrictNamespaces=user net pid and the landlock_* "
            "calls in SystemCallFilter; deploy/README.md), or turn those features off."
        )
    landlock_too = (
        " For Landlock, allow the landlock_* calls in the unit's SystemCallFilter."
        if layers.landlock_abi < 1
        else ""
    )
    return (
        "AppArmor refuses unprivileged user namespaces here "
        "(kernel.apparmor_restrict_unprivileged_userns=1), whatever the unit allows: load "
        f"an AppArmor profile that grants `userns` to {unshare or '/usr/bin/unshare'}, or set "
        "that sysctl to 0 (for every program on the host); deploy/README.md, "
        f'"Eval sandbox".{landlock_too} Or turn those features off.'
    )


def running(features: Mapping[str, Callable[[], bool]]) -> list[str]:
    """The features that run model-written code now: `Components.runs_code` names each
    installed one with what says whether the running config has it run code."""
    return [name for name, runs in features.items() if runs()]


Write = Callable[[int, str, dict[str, Any]], None]
"""Where `say` puts a line: its level (`logging`'s), its text, and the fields a log keeps."""


def to_log(level: int, text: str, fields: dict[str, Any]) -> None:
    """`say`'s lines in the router's log (`smf_router.sandbox`), with their fields."""
    log.log(level, "%s", text, extra={"fields": fields})


def say(
    config: Config,
    features: Sequence[str],
    environ: Mapping[str, str] = os.environ,
    write: Write = to_log,
) -> list[str]:
    """Say `report`'s line (info) and its warning (warning), in the log as `serve` starts
    and as a reload applies (`write`: on stderr as `canary run` starts); the warnings said,
    for the reload's reply (`[]` when none is, or no feature runs code). Probes the kernel:
    off the event loop once it runs."""
    keys = [b.api_key_env for b in config.backends if b.api_key_env]
    said = report(features, environ, keys)
    if said is None:
        return []
    layers, line, warning = said
    fields = {"event": "sandbox_layers", "features": list(features), **dataclasses.asdict(layers)}
    write(logging.INFO, line, fields)
    if warning is None:
        return []
    write(logging.WARNING, warning, {**fields, "missing": layers.missing()})
    return [warning]
