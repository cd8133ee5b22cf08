"""The mark a router's canary writes in the ledger's directory as a run starts, and reads
back at a restart (`router.canary_resume`, one of the two witnesses of the last start).

The mark is written whole under another name and renamed into place (`os.replace`), so a
kill mid-write leaves the old mark or the new one, never half of one. It names the servers
the run asked (`fingerprint`): like rounds of servers the config no longer has, a mark of
none it has now counts for nothing. One that does not read (a corrupt file, another shape)
or is stamped later than now by over `CLOCK_SKEW_S` (a clock that ran ahead) is ignored
with a warning, never fatal: the first run then starts as the rounds alone say.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson

from router.canary_judge import fingerprint
from router.config import Backend as BackendSettings
from router.ledger.recent import CLOCK_SKEW_S

log = logging.getLogger("smf_router.canary")

MARK_FILE = "canary-run-started.json"  # in the ledger's directory, beside `conversation.key`


def mark_start(directory: Path, started: float, backends: Sequence[BackendSettings]) -> None:
    """Blocking: the mark of a run that starts at `started` (unix time) on `backends`, in
    place of the last one. Flushed to the disk before the rename: a power cut must not
    leave an empty file for the last mark. Raises `OSError` (the caller logs it)."""
    servers = {backend.name: fingerprint(backend) for backend in backends}
    data = orjson.dumps({"started": started, "servers": servers})
    directory.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{MARK_FILE}.", dir=directory)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(name, directory / MARK_FILE)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name)
        raise


def marked_start(directory: Path, backends: Sequence[BackendSettings], now: float) -> float | None:
    """Blocking: the start the mark in `directory` says, if it names a server among
    `backends` (by name and `fingerprint`); None without a mark, or with one that does not
    count (logged as a warning when it is unreadable or stamped ahead of `now`)."""
    path = directory / MARK_FILE
    try:
        data = orjson.loads(path.read_bytes())
        started, servers = _read(data)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:  # orjson.JSONDecodeError is a ValueError
        log.warning("canary: ignored the run mark %s: %s", path, exc)
        return None
    if started > now + CLOCK_SKEW_S:
        log.warning("canary: ignored the run mark %s: it is stamped ahead of now", path)
        return None
    if not any(servers.get(b.name) == fingerprint(b) for b in backends):
        return None  # a run of servers this config does not have
    return started


def _read(data: Any) -> tuple[float, dict[str, Any]]:
    """A mark's start and servers, or `ValueError` when it is not a mark."""
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    started, servers = data.get("started"), data.get("servers")
    if not isinstance(started, int | float) or isinstance(started, bool):
        raise ValueError("no start time")
    if not math.isfinite(started) or not isinstance(servers, dict):
        raise ValueError("no finite start time, or no servers")
    return float(started), servers
