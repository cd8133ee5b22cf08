"""A shadow holds each backend's slot for its own call alone, and prices each call by the
config it was made under.

Through a real router and simulators: a simulator holds chat completions (`hold`) until
the test releases them, so a call stays in flight as long as the test needs, with no
timing. What a call should have cost comes from its simulator's own token counters; the
row from the DuckDB-read ledger.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from router import reload
from router.config import parse
from router.ledger import Ledger
from tests.harness import Running, RunningRouter, router, simulator
from tests.slots import backend_load, must_reach, served_by, status_extra

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


def _cost(server: Running) -> float:
    """What every request `frontier` served costs at its price, by its own token counts."""
    stats = server.stats()
    return (
        stats["prompt_tokens"] * FRONTIER_PRICE["input_per_mtok"]
        + stats["generation_tokens"] * FRONTIER_PRICE["output_per_mtok"]
    ) / 1e6


def test_a_shadow_gives_the_targets_slot_back_while_the_judge_thinks(tmp_path: Path) -> None:
    """The shadow's call at local has ended; the judge (a slow frontier model) is still
    thinking. Local's one slot stayed counted until the judge answered: local looked full
    while idle, and a live coding request went to the paid cloud (found in review). The slot
    is now given back as the shadow's call ends; the judge's own slot is held for its call."""
    with _held_frontier() as (local, cloud, frontier):
        shadow = {"rates": {"math": 1.0}, "judge_backend": "frontier"}
        with router(parse(_data(local, cloud, frontier, tmp_path, shadow))) as r:
            assert served_by(r, MATH, "a") == "cloud"
            must_reach(lambda: frontier.stats()["held"] == 1, "the judge asked")
            assert local.completions() == 1 and local.stats()["in_flight"] == 0
            assert backend_load(r, "local") == (0, 0, None)  # the shadow's call is over
            assert backend_load(r, "frontier")[1] == 1  # the judge's call holds its slot
            assert served_by(r, CODE, "b") == "local"  # local is idle: no paid overflow
            assert status_extra(r)["shadow"]["in_flight"] == 1  # the replay itself goes on
            frontier.control("release", {})
            must_reach(lambda: status_extra(r)["shadow"]["counts"].get("compared") == 1, "compared")
            must_reach(lambda: backend_load(r, "frontier")[1] == 0, "the judge's slot given back")
        assert cloud.completions() == 1 and local.completions() == 2


def _reload_without_frontier(r: RunningRouter, data: dict[str, Any], tmp: Path) -> None:
    """A hot reload to `data` less `frontier` (and the shadow settings that name it)."""
    backends = [b for b in data["backends"] if b["name"] != "frontier"]
    shadow = {k: v for k, v in data["shadow"].items() if k not in ("judge_backend", "targets")}
    path = tmp / "router.yaml"
    path.write_text(yaml.safe_dump({**data, "backends": backends, "shadow": shadow}))
    reload.reloader_of(r.components).source = path
    answer = httpx.post(f"{r.url}/router/reload", timeout=30)
    assert answer.status_code == 200 and answer.json()["backends"]["removed"] == ["frontier"]


@pytest.mark.parametrize(
    ("role", "shadow", "prompt", "columns"),
    [
        (
            "judge",
            {"rates": {"math": 1.0}, "judge_backend": "frontier"},
            MATH,
            "judge_backend, judge_tokens, judge_cost_usd",
        ),
        (
            "target",
            {"rates": {"coding": 1.0}, "targets": {"coding": "frontier"}},
            CODE,
            "shadow_backend, shadow_tokens, shadow_cost_usd",
        ),
    ],
)
def test_a_call_is_priced_by_the_config_it_was_made_under(
    tmp_path: Path, role: str, shadow: dict[str, Any], prompt: str, columns: str
) -> None:
    """A reload removes the priced `frontier` while the shadow's call to it (as judge, as
    target) runs. The row was priced at row time, by the new config's pricer, which knows no
    `frontier` and prices it at $0: the tokens were kept, the dollars lost (found in
    review). The call is now priced by the pricer it was made under."""
    with _held_frontier() as (local, cloud, frontier):
        data = _data(local, cloud, frontier, tmp_path, shadow)
        with router(parse(data)) as r:
            served_by(r, prompt, "a")
            must_reach(lambda: frontier.stats()["held"] == 1, f"the {role} asked")
            _reload_without_frontier(r, data, tmp_path)
            frontier.control("release", {})
            must_reach(
                lambda: (
                    (s := status_extra(r)["shadow"])["counts"].get("compared") == 1
                    and s["in_flight"] == 0
                ),
                "compared",
            )
        spent = _cost(frontier)
        tokens = frontier.stats()["prompt_tokens"] + frontier.stats()["generation_tokens"]
    assert spent > 0.1  # thousands of dollars a million tokens: no rounding hides it
    with Ledger(tmp_path / "ledger") as ledger:
        rows = ledger.sql(f"SELECT {columns} FROM shadow_comparisons")
    assert len(rows) == 1 and rows[0][:2] == ("frontier", tokens)
    assert rows[0][2] == pytest.approx(spent)
