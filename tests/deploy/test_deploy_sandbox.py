"""The systemd unit leaves the eval sandbox its kernel layers. `RestrictNamespaces=yes`
refused the namespaces `unshare -rnp` makes, and `SystemCallFilter=@system-service` the
Landlock calls (in no group before systemd 254): canary code cases and the shadow's request
tests ran with the in-process guard alone, and a program read the cloud key from the
router's /proc/<pid>/environ (found in review)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from typing import Any

import pytest

from evals import landlock
from evals.sandbox import UNSHARE, namespaces_available
from tests import syscall_filter
from tests.deploy.manifests import DEPLOY
from tests.harness import REPO

UNIT = DEPLOY / "systemd" / "smf-router.service"
# unshare(1)'s short options, by the namespace each makes (`-r` maps root: a user namespace)
UNSHARE_FLAGS = {
    "r": "user",
    "U": "user",
    "n": "net",
    "p": "pid",
    "m": "mnt",
    "i": "ipc",
    "u": "uts",
    "C": "cgroup",
    "T": "time",
}


def settings(name: str) -> list[str]:
    return re.findall(rf"^{name}=(.*)$", UNIT.read_text(), re.M)


def sandbox_namespaces() -> set[str]:
    """The namespace types the sandbox asks `unshare` for (`evals.sandbox.UNSHARE`)."""
    flags = "".join(arg[1:] for arg in UNSHARE[1:] if re.fullmatch(r"-[A-Za-z]+", arg))
    return {UNSHARE_FLAGS[flag] for flag in flags}


def allowed_namespaces() -> set[str] | None:
    """What the unit's RestrictNamespaces= leaves (None: any)."""
    (value,) = settings("RestrictNamespaces")  # one line: merging rules not needed
    every = set(syscall_filter.NAMESPACE_FLAGS) | {"time"}
    if value in ("no", "false"):
        return None
    if value in ("yes", "true"):
        return set()
    if value.startswith("~"):
        return every - set(value[1:].split())
    return set(value.split())


def test_the_unit_allows_the_sandbox_its_namespaces_and_the_landlock_calls() -> None:
    allowed = allowed_namespaces()
    assert allowed is None or sandbox_namespaces() <= allowed, (sandbox_namespaces(), allowed)
    assert sandbox_namespaces() == {"user", "net", "pid"}  # what the unit's comment says
    filters = settings("SystemCallFilter")
    assert not filters[0].startswith("~")  # an allow list: the Landlock calls must be in it
    named = {call for value in filters if not value.startswith("~") for call in value.split()}
    # by name: @sandbox holds them from systemd 254 on, and older versions reject it
    assert set(syscall_filter.LANDLOCK) <= named
    denied = {call for value in filters if value.startswith("~") for call in value[1:].split()}
    assert not denied & {*syscall_filter.LANDLOCK, "@sandbox", "@process"}


def test_a_stop_signals_the_router_alone() -> None:
    """`KillMode=control-group` (the default) sent the stop's SIGTERM to every process of
    the unit: a program the sandbox was grading died of it, and its case counted as a
    failing answer in the canary's coding gate, where the router's own stop waits for it
    (found in review). `mixed`: SIGTERM to the router, SIGKILL to what is left after it."""
    assert settings("KillMode") == ["mixed"]
    assert settings("KillSignal") == ["SIGTERM"]


def unit_spec() -> dict[str, Any]:
    """The unit's SystemCallFilter= (an allow list first, then what `~` lines take out of
    it) and RestrictNamespaces=, as `tests.syscall_filter` loads them."""
    allowed: set[str] = set()
    for value in settings("SystemCallFilter"):
        if value.startswith("~"):
            allowed -= syscall_filter.calls(value[1:].split())
        else:
            allowed |= syscall_filter.calls(value.split())
    namespaces = allowed_namespaces()
    return {
        "allow": sorted(allowed),
        "namespaces": None if namespaces is None else sorted(namespaces),
    }


PROBE = """
import json
from evals import landlock, sandbox
out = sandbox.run_python("print(6 * 7)")
print(json.dumps({
    "namespaces": sandbox.namespaces_available(), "landlock": landlock.abi(),
    "ran": [out.completed, out.stdout, out.isolated_network, out.confined_writes],
}))
"""


@pytest.mark.skipif(
    not syscall_filter.available() or shutil.which("systemd-analyze") is None,
    reason="needs Linux, libseccomp and systemd-analyze",
)
def test_the_sandbox_keeps_its_kernel_layers_under_the_units_filters() -> None:
    """The unit's filters, loaded by the kernel as systemd loads them, around a sandbox run:
    each layer this machine offers outside them is there inside them too."""
    here = {"namespaces": namespaces_available(), "landlock": landlock.abi()}
    if not (here["namespaces"] or here["landlock"]):
        pytest.skip("this machine offers the sandbox no kernel layer to keep")
    done = subprocess.run(
        [*syscall_filter.wrapper(unit_spec()), sys.executable, "-c", PROBE],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    inside = json.loads(done.stdout)
    assert {k: inside[k] for k in here} == here
    assert inside["ran"] == [True, "42", here["namespaces"], here["landlock"] > 0]
