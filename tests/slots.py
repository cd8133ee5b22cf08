"""What the tests of a backend's slots (canary and shadow calls held at a simulator) read
from a running router: shared so each test states only its own scenario."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

from router.config import Config
from tests.harness import Running, sdk, wait_until


def with_max_concurrency(config: Config, backend: str, slots: int) -> Config:
    """`config` with `backend` limited to `slots` calls at once (as the README advises:
    vLLM's max_num_seqs), which `config_for` has no argument for."""
    data = config.model_dump()
    for spec in data["backends"]:
        if spec["name"] == backend:
            spec["max_concurrency"] = slots
    return Config.model_validate(data)


def must_reach(check: Callable[[], bool], what: str, seconds: float = 20) -> None:
    """A hang guard, not a timed assertion: the condition is waited for."""
    assert wait_until(check, seconds), f"never reached: {what}"


def status_extra(r: Running) -> dict[str, Any]:
    """The `extra` of `GET /v1/router/status`: resilience, canary and shadow state."""
    extra: dict[str, Any] = httpx.get(f"{r.root}/v1/router/status", timeout=5).json()["extra"]
    return extra


def backend_load(r: Running, backend: str) -> tuple[int, int, str | None]:
    """What the router counts at `backend`: live attempts, replays, and why it is full."""
    found = status_extra(r)["resilience"]["backends"][backend]
    return found["inflight"], found["replays_inflight"], found["saturated"]


def served_by(r: Running, prompt: str, user: str, timeout: float = 60) -> str:
    """The backend that answered `prompt` whole; `user` keeps it from sticking to where an
    earlier request of the same prompt went."""
    raw = sdk(r, timeout=timeout).chat.completions.with_raw_response.create(
        model="auto", messages=[{"role": "user", "content": prompt}], user=user
    )
    return str(raw.headers["x-smf-backend"])
