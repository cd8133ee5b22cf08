"""A shadow holds each backend's slot for its own call alone.

Through a real router and simulators: a simulator holds chat completions (`hold`) until
the test releases them, so a call stays in flight as long as the test needs, with no
timing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import openai

from router.config import parse
from tests.harness import Running, RunningRouter, router, simulator, wait_until

MATH = "What is 1234 + 4321?"  # routed to the cloud first; shadowed to local
CODE = "Write a Python function that reverses a list"  # routed to local first
FRONTIER_PRICE = {"input_per_mtok": 3000.0, "output_per_mtok": 15000.0}  # large, to be seen


def _data(
    local: Running, cloud: Running, frontier: Running, tmp: Path, shadow: dict[str, Any]
) -> dict[str, Any]:
    """local (one slot), cloud, and a priced cloud `frontier` that shadows use as judge or
    target; capacity counted (resilience)."""
    local_first = ["local", "cloud"]
    return {
        "backends": [
            {
                "name": "local",
                "tier": "local",
                "base_url": local.url,
                "model": "local-model",
                "max_concurrency": 1,
            },
            {"name": "cloud", "tier": "cloud", "base_url": cloud.url, "model": "cloud-model"},
            {
                "name": "frontier",
                "tier": "cloud",
                "base_url": frontier.url,
                "model": "frontier-model",
                "price": FRONTIER_PRICE,
            },
        ],
        "routes": {
            **{i: local_first for i in ("coding", "tool_calling", "instruction")},
            **{i: ["cloud", "local"] for i in ("math", "reasoning", "prose", "writing")},
        },
        "ledger": {"path": str(tmp / "ledger"), "flush_interval_s": 0.2},
        "resilience": {"enabled": True, "capacity_poll_s": 0.2},
        "shadow": {"allow_cloud_targets": True, **shadow},
    }


@contextmanager
def _held_frontier() -> Iterator[tuple[Running, Running, Running]]:
    """The three simulators; `frontier` holds every chat completion until released."""
    with (
        simulator(profile="vllm", model="local-model", max_num_seqs=1) as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
        simulator(profile="cloud", model="frontier-model") as frontier,
    ):
        frontier.control("faults", {"fault": "hold"})
        try:
            yield local, cloud, frontier
        finally:
            frontier.control("faults", {"fault": None})
            frontier.control("release", {})


def _until(check: Callable[[], bool], what: str) -> None:
    """A hang guard (20 s), not a timed assertion: the condition is waited for."""
    assert wait_until(check, 20), f"never reached: {what}"


def _extra(r: RunningRouter) -> dict[str, Any]:
    extra: dict[str, Any] = httpx.get(f"{r.root}/v1/router/status", timeout=5).json()["extra"]
    return extra


def _load(r: RunningRouter, backend: str) -> tuple[int, int, str | None]:
    found = _extra(r)["resilience"]["backends"][backend]
    return found["inflight"], found["replays_inflight"], found["saturated"]


def _served_by(r: RunningRouter, prompt: str, user: str) -> str:
    client = openai.OpenAI(base_url=r.url, api_key="x", max_retries=0, timeout=60)
    raw = client.chat.completions.with_raw_response.create(
        model="auto", messages=[{"role": "user", "content": prompt}], user=user
    )
    return str(raw.headers["x-smf-backend"])


def test_a_shadow_gives_the_targets_slot_back_while_the_judge_thinks(tmp_path: Path) -> None:
    """The shadow's call at local has ended; the judge (a slow frontier model) is still
    thinking. Local's one slot stayed counted until the judge answered: local looked full
    while idle, and a live coding request went to the paid cloud (found in review). The slot
    is now given back as the shadow's call ends; the judge's own slot is held for its call."""
    with _held_frontier() as (local, cloud, frontier):
        shadow = {"rates": {"math": 1.0}, "judge_backend": "frontier"}
        with router(parse(_data(local, cloud, frontier, tmp_path, shadow))) as r:
            assert _served_by(r, MATH, "a") == "cloud"
            _until(lambda: frontier.stats()["held"] == 1, "the judge asked")
            assert local.completions() == 1 and local.stats()["in_flight"] == 0
            assert _load(r, "local") == (0, 0, None)  # the shadow's call is over
            assert _load(r, "frontier")[1] == 1  # the judge's call holds its slot
            assert _served_by(r, CODE, "b") == "local"  # local is idle: no paid overflow
            assert _extra(r)["shadow"]["in_flight"] == 1  # the replay itself goes on
            frontier.control("release", {})
            _until(lambda: _extra(r)["shadow"]["counts"].get("compared") == 1, "compared")
            _until(lambda: _load(r, "frontier")[1] == 0, "the judge's slot given back")
        assert cloud.completions() == 1 and local.completions() == 2
