"""A cloud shadow judge keeps the sampling's privacy rule, counted at the judge's simulator.

The judge is a third backend (`cloud2`), neither the live backend nor the shadow target, so
only the privacy rule can keep it from being asked: a judge that is the live backend or the
target is never asked whatever the switch says (`judge_for`), and a test with such a judge
passed with the rule removed (found in review).
"""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any

import pytest

from router.comparison import Reply
from router.config import Config
from router.record import Record
from tests.harness import config_for, simulator
from tests.shadow.replaying import (
    PRICE,
    QUESTION,
    Rows,
    close_all,
    cloud_record,
    replayed,
    shadow_of,
    taken,
)


def _config(servers: dict[str, Any], tmp: Path, allow_cloud_targets: bool) -> Config:
    """Math served on `local`, shadowed to `local2` (both local: a private request may be
    replayed there), judged by the priced cloud backend `cloud2`."""
    shadow = {
        "rates": {"math": 1.0},
        "targets": {"math": "local2"},
        "judge_backend": "cloud2",
        "allow_cloud_targets": allow_cloud_targets,
    }
    data = config_for(servers, tmp, shadow=shadow).model_dump()
    for b in data["backends"]:
        b["price"] = PRICE if b["tier"] == "cloud" else None
    return Config.model_validate(data)


def _served_locally(private: bool) -> Record:
    return dataclasses.replace(cloud_record(), backend="local", tier="local", private=private)


@pytest.mark.parametrize(
    ("allow_cloud_targets", "private", "asked"),
    [
        (False, False, False),  # the default: no request leaves the local tier for a verdict
        (True, True, False),  # a private request never does, whatever the switch says
        (True, False, True),  # with the switch on, an ordinary one is judged in the cloud
    ],
    ids=["switch-off", "private-with-switch-on", "switch-on"],
)
def test_a_cloud_judge_is_asked_only_with_the_switch_and_never_for_a_private_request(
    tmp_path: Path, allow_cloud_targets: bool, private: bool, asked: bool
) -> None:
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="vllm", model="local2-model") as local2,
        simulator(profile="cloud", model="cloud2-model") as cloud2,
    ):
        servers = {"local": local, "local2": local2, "cloud2": cloud2}
        config = _config(servers, tmp_path, allow_cloud_targets)
        shadow, backends = shadow_of(config, Rows())

        async def go() -> dict[str, Any]:
            shadow.offer(_served_locally(private), QUESTION, Reply("\\boxed{5555}"))
            try:
                return await replayed(shadow, await taken(shadow))
            finally:
                await close_all(backends)

        row = asyncio.run(go())
        assert local2.completions() == 1 and local.completions() == 0  # the replay ran
        assert cloud2.stats()["requests"] == (1 if asked else 0)
        assert cloud2.completions() == (1 if asked else 0)
    assert row["shadow_backend"] == "local2" and row["shadow_error"] is None
    if asked:
        assert row["judge_backend"] == "cloud2" and row["judge"] in ("live", "shadow")
        assert row["judge_tokens"] > 0
    else:
        assert (row["judge"], row["judge_backend"], row["judge_tokens"]) == (None, None, None)
