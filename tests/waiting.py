"""Waiting in tests without sleeping a fixed time: until a server answers, or a check holds,
each bounded by a deadline (a hang guard, never a timed assertion)."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx


def wait_for(
    url: str,
    deadline_s: float = 20.0,
    process: subprocess.Popen[Any] | None = None,
    log: Path | None = None,
    ready_only: bool = False,
) -> None:
    """Until `url` answers (with `ready_only`, below 500: a 503 while it starts is not up):
    TimeoutError after `deadline_s`, but at once a RuntimeError with its exit status (and the
    end of `log`) when `process`, the server, exits first (a refused config), not after the
    whole wait."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if process is not None and process.poll() is not None:
            said = f": {log.read_text(errors='replace')[-2000:]}" if log else ""
            raise RuntimeError(f"{url}: {process.args} exited {process.returncode}{said}")
        try:
            status = httpx.get(url, timeout=2, trust_env=False).status_code  # 127.0.0.1 only
            if not ready_only or status < 500:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.02)
    raise TimeoutError(f"{url} did not come up in {deadline_s} s")


def wait_until(check: Callable[[], bool], seconds: float = 10) -> bool:
    """Poll `check` until true or `seconds` passed; whether it became true (a hang guard)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.02)
    return False
