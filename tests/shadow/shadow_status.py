"""What the shadow tests set up, wait for and read: a config shadowing on local, a condition
within a bounded time, the shadow's section of `/v1/router/status`, and the comparisons the
ledger holds."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import httpx
import yaml

from classifier import INTENTS
from router.config import Config
from router.ledger import Ledger
from tests.harness import Running, config_for


def shadowed_locally(
    local: Running, cloud: Running, tmp: Path, intents: Iterable[str] = INTENTS
) -> Config:
    """Every intent served in the cloud, and `intents` shadowed on local at rate 1."""
    return config_for(
        {"local": local, "cloud": cloud},
        tmp,
        shadow={"rates": dict.fromkeys(intents, 1.0)},
        routes={intent: ["cloud"] for intent in INTENTS},
    )


def until(check: Callable[[], bool], seconds: float = 20.0) -> None:
    """Wait (at most `seconds`, 2,000 looks) for `check`; fail the test when it never holds."""
    end = time.monotonic() + seconds
    for _ in range(2000):
        if check() or time.monotonic() > end:
            break
        time.sleep(0.05)
    assert check(), "condition not reached"


def shadow_status(r: Any) -> dict[str, Any]:
    """The `shadow` section of router `r`'s `/v1/router/status` (none while no shadow runs)."""
    status: dict[str, Any] = httpx.get(f"{r.root}/v1/router/status", timeout=5).json()
    shadow: dict[str, Any] = status["extra"].get("shadow", {})
    return shadow


def shadow_counts(r: Any) -> dict[str, int]:
    """The shadow's counters (`sampled`, `dropped_<reason>`, ...) of router `r`."""
    counts: dict[str, int] = shadow_status(r)["counts"]
    return counts


def comparison_rows(ledger_dir: Path) -> list[tuple[Any, ...]]:
    """The `(agreed, method, detail)` of each comparison in the ledger, oldest first."""
    with Ledger(ledger_dir) as ledger:
        return ledger.sql("SELECT agreed, method, detail FROM shadow_comparisons ORDER BY ts")


def chats(server: Running) -> int:
    """Chat completions a simulator served (health probes and metric polls excluded)."""
    return server.completions("/v1/chat/completions")


def reload_to(r: Running, path: Path, data: dict[str, Any]) -> None:
    """A hot reload to `data` through the endpoint (as a SIGHUP would), applied in full."""
    path.write_text(yaml.safe_dump(data))
    answer = httpx.post(f"{r.url}/router/reload", timeout=30)
    assert answer.status_code == 200 and answer.json()["restart_needed"] == []
