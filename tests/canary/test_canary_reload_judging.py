"""A round is judged under the config it ends in, not the one it started in.

A round's sample and backend settings are fixed when it starts; a reload while its cases
ran dropped a suite (its windows, gates and gauges forgotten) or pointed a backend at
another server. Judged at its end as before, the dropped suite's gate came back, closed
for good (no later round reopens it), and the old server's answers gated the new one; a
reload that repointed a backend kept the old server's window, too (found in review).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from evals.suite import SHIPPED
from router.config import parse
from router.ledger.recent import RecentRows
from tests.canary.reloading import (
    backend,
    canary_of,
    config,
    judged_without_math,
    repointed_afresh,
    suites,
)
from tests.canary.servers import reloaded
from tests.harness import Running, router, scrape, simulator
from tests.resilience.conftest import until


def let_go(server: Running) -> None:
    """Answer the held requests, and the next ones at once."""
    server.control("faults", {"fault": None})
    server.control("release", {})


def test_a_suite_dropped_while_its_round_is_in_flight_is_not_judged(tmp_path: Path) -> None:
    # held until released, then every math case wrong
    with simulator(profile="vllm", model="m", fault="hold", quality={"math": 0.0}) as local:
        both = suites(tmp_path, "math", "reasoning")
        data = config(tmp_path, [backend("local", local.url)], suites=both, floors={"math": 0.2})
        with router(parse(data)) as proxy:
            until(lambda: local.stats()["held"] == 2, what="the round asking both suites")
            fewer = suites(tmp_path, "reasoning")
            reloaded(proxy, tmp_path, {**data, "canary": {**data["canary"], "suites": fewer}})
            let_go(local)
            now = judged_without_math(proxy)
            assert now.get("smf_router_route_gated", backend="local", intent="math") == 0


def test_a_backend_repointed_while_its_round_is_in_flight_is_not_judged(tmp_path: Path) -> None:
    with (
        simulator(profile="vllm", model="m", fault="hold", quality={"math": 0.0}) as old,
        simulator(profile="vllm", model="m") as new,
    ):
        data = config(tmp_path, [backend("b", old.url)], suites=str(SHIPPED / "math"))
        data["canary"]["floors"] = {"math": 0.2}
        with router(parse(data)) as proxy:
            until(lambda: old.stats()["held"] == 1, what="the round asking the old server")
            reloaded(proxy, tmp_path, {**data, "backends": [backend("b", new.url)]})
            let_go(old)  # the old server answers the round, every case wrong
            until(lambda: canary_of(proxy)["runs"] == 1, what="the round's end")
            canary = canary_of(proxy)
            assert canary["gated"] == {}  # was {"b": ["math"]}: the new server gated
            assert canary["standings"] == []
            assert scrape(proxy.root).get("smf_router_route_gated", backend="b", intent="math") == 0
            assert new.completions() == 0  # nothing was learned about the new server yet

            # the round's row names the server it asked
            day = datetime.now(UTC).date().isoformat()
            runs = RecentRows(tmp_path / "ledger", "canary_runs")
            until(lambda: len(runs.read(day)) == 1, what="the round's row on disk")
            (row,) = runs.read(day)
            assert (row["backend"], row["model"], row["base_url"]) == ("b", "m", old.url)
            assert row["failed"] == 1


def test_a_reload_that_repoints_a_backend_opens_its_gates_and_starts_its_window_over(
    tmp_path: Path,
) -> None:
    """Resilience forgets what it learned of a repointed backend; the canary kept the old
    server's window, so the new server stayed gated until a window of its own results
    pushed the old ones out. A change that leaves the server as it was keeps the gates."""
    with (
        simulator(profile="vllm", model="m", quality={"math": 0.0}) as old,
        simulator(profile="vllm", model="m") as new,
    ):
        data = config(tmp_path, [backend("b", old.url)], suites=str(SHIPPED / "math"))
        data["canary"]["floors"] = {"math": 0.2}
        with router(parse(data)) as proxy:
            until(lambda: canary_of(proxy)["runs"] == 1, what="the first round")
            assert canary_of(proxy)["gated"] == {"b": ["math"]}

            slower = backend("b", old.url, timeouts={"total_s": 90}, tier="cloud")
            reloaded(proxy, tmp_path, {**data, "backends": [slower]})
            assert canary_of(proxy)["gated"] == {"b": ["math"]}  # the same server

            reloaded(proxy, tmp_path, {**data, "backends": [backend("b", new.url)]})
            repointed_afresh(proxy)


def test_an_extra_body_is_json_as_sent_so_its_server_has_a_fingerprint() -> None:
    """`extra_body: {logit_bias: {50256: -100}}` (int keys, as YAML reads them) loaded, but
    every request to the backend and its canary fingerprint raised TypeError: every reload
    was refused and canary rounds lost their rows (found in re-review). The config makes
    the keys strings, as JSON sends them, and refuses what JSON cannot hold."""
    from pydantic import ValidationError

    from router.canary_judge import fingerprint, same_server
    from router.config import Backend as BackendSettings

    def settings(extra: dict[Any, Any]) -> BackendSettings:
        return BackendSettings(**backend("b", "http://127.0.0.1:9/v1", extra_body=extra))

    int_keys = settings({"logit_bias": {50256: -100}})
    assert int_keys.extra_body == {"logit_bias": {"50256": -100}}
    assert len(fingerprint(int_keys)) == 16
    assert same_server(int_keys, settings({"logit_bias": {"50256": -100}}))
    assert not same_server(int_keys, settings({"logit_bias": {50256: -50}}))
    with pytest.raises(ValidationError, match="extra_body"):
        settings({"seed": 2**70})
