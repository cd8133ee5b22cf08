"""SIGHUP before `serve` can reload: noted from the first moment, applied once it can.

`serve` spends seconds importing and building before its event loop can take SIGHUP, and
until then the default action ends the process. `systemctl reload` in that window stopped
the router, and systemd (`Restart=on-failure`) counts death by SIGHUP as a clean exit, so it
stayed down. `hold` is called first thing; `take` tells the reload handler, once installed,
whether one arrived meanwhile.
"""

from __future__ import annotations

import signal
from types import FrameType

_pending = False  # the process's one SIGHUP disposition, so one flag for the process


def hold() -> None:
    """From now on a SIGHUP is noted instead of ending the process."""
    global _pending
    _pending = False
    if hasattr(signal, "SIGHUP"):  # not on Windows
        signal.signal(signal.SIGHUP, _note)


def take() -> bool:
    """Whether a SIGHUP arrived since `hold`; forgets it."""
    global _pending
    arrived, _pending = _pending, False
    return arrived


def _note(signum: int, frame: FrameType | None) -> None:
    global _pending
    _pending = True
