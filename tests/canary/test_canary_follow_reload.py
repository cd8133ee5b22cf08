"""A router following the CronJob's rounds judges them under its config when it reads them.

It reads the ledger every minute: rounds written before a reload are judged after it. It
judged a suite the reload dropped (bringing back its gate, closed for good) and rounds of
the server a backend no longer points at; and a reload that repointed a backend kept the
old server's window (found in review).
"""

from __future__ import annotations

import asyncio
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from evals.suite import SHIPPED
from router.canary_follow import Follower
from router.canary_judge import Judge, gate_book
from router.config import parse
from router.ledger import Ledger, LedgerWriter, columns, segment_write, segments
from router.ledger.schema import rows_table
from tests.canary.reloading import (
    backend,
    canary_of,
    judged_without_math,
    repointed_afresh,
    suites,
)
from tests.canary.reloading import config as router_config
from tests.canary.servers import reloaded
from tests.harness import VENV_BIN, router, simulator
from tests.resilience.conftest import until

# The routers run no canary of their own, and read the ledger every 0.3 s.
CANARY = {"interval_s": 0.3, "sample_per_suite": 3, "min_samples": 3, "floors": {"math": 0.4}}


def config(tmp: Path, backends: list[dict[str, Any]], **canary: Any) -> dict[str, Any]:
    """The judging tests' config, with the follower's canary settings (no canary of its own)."""
    return router_config(tmp, backends) | {"canary": {**CANARY, **canary}}


def cronjob(tmp: Path, data: dict[str, Any]) -> None:
    """`smf-router canary run` on `data`: one round against every backend, into the ledger."""
    path = tmp / "cronjob.yaml"
    path.write_text(yaml.safe_dump(data))
    command = [str(VENV_BIN / "smf-router"), "canary", "run", "--config", str(path)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr


def test_a_round_read_after_a_reload_dropped_its_suite_is_not_judged_for_it(
    tmp_path: Path,
) -> None:
    data = config(tmp_path, [backend("local", "http://127.0.0.1:9/v1")])
    both = suites(tmp_path, "math", "reasoning")
    data["canary"] |= {"suites": both, "min_samples": 1, "floors": {"math": 0.2}}
    with router(parse(data)) as proxy:
        fewer = {**data, "canary": {**data["canary"], "suites": suites(tmp_path, "reasoning")}}
        reloaded(proxy, tmp_path, fewer)
        # The job wrote it before the reload; read after: math failed, reasoning passed.
        writer = LedgerWriter(tmp_path / "ledger", flush_interval_s=60)
        ts = datetime.now(UTC).timestamp()
        row: dict[str, Any] = {"run_id": "r1", "ts": ts, "backend": "local"}
        writer.submit_row("canary_runs", row | {"suites": "math,reasoning", "cases": 2})
        for suite, passed in (("math", "fail"), ("reasoning", "pass")):
            case = {"suite": suite, "case_id": f"{suite}-1", "status": passed}
            writer.submit_row("canary_results", row | case)
        writer.close()
        judged_without_math(proxy)


def test_rounds_of_a_server_the_backend_no_longer_points_at_are_not_judged(
    tmp_path: Path,
) -> None:
    """The job's config runs behind the router's: its round asked the old server."""
    with (
        simulator(profile="vllm", model="m", quality={"math": 0.0}) as old,
        simulator(profile="vllm", model="m") as new,
    ):
        math = str(SHIPPED / "math")
        with router(parse(config(tmp_path, [backend("b", new.url)], suites=math))) as proxy:
            cronjob(tmp_path, config(tmp_path, [backend("b", old.url)], suites=math))
            until(lambda: canary_of(proxy)["runs"] == 1, what="the job's round read back")
            canary = canary_of(proxy)
            assert canary["gated"] == {}  # was {"b": ["math"]}: the new server gated
            assert canary["standings"] == [] and canary["last_run"] == {}


def test_a_reload_that_repoints_a_backend_opens_the_gates_the_old_server_closed(
    tmp_path: Path,
) -> None:
    with (
        simulator(profile="vllm", model="m", quality={"math": 0.0}) as old,
        simulator(profile="vllm", model="m") as new,
    ):
        data = config(tmp_path, [backend("b", old.url)], suites=str(SHIPPED / "math"))
        with router(parse(data)) as proxy:
            cronjob(tmp_path, data)
            until(lambda: canary_of(proxy)["gated"] == {"b": ["math"]}, what="the gate closed")
            reloaded(proxy, tmp_path, {**data, "backends": [backend("b", new.url)]})
            repointed_afresh(proxy)


def test_rounds_from_files_written_before_rows_named_their_server_are_judged(
    tmp_path: Path,
) -> None:
    """A `canary_runs` file from before the `model` and `base_url` columns: its rounds are
    judged as they were, and the ledger reads the columns there as NULL."""
    ts = datetime.now(UTC).timestamp()
    row: dict[str, Any] = {"run_id": "r1", "ts": ts, "backend": "b"}
    old_names = [
        name for name, _ in columns.CANARY_RUNS if name not in ("model", "base_url", "server")
    ]
    old = rows_table("canary_runs", [row | {"suites": "math", "cases": 1}]).select(old_names)
    day = segments.day_dir(tmp_path, "canary_runs", datetime.now(UTC).date().isoformat())
    segment_write.write_segment(day / "old.parquet", old)
    writer = LedgerWriter(tmp_path, flush_interval_s=60)
    writer.submit_row("canary_runs", {**row, "run_id": "r2", "model": "m", "base_url": "u"})
    writer.submit_row("canary_results", row | {"suite": "math", "case_id": "m-1", "status": "fail"})
    writer.close()

    data = config(tmp_path, [backend("b", "http://127.0.0.1:9/v1")], min_samples=1)
    data["canary"]["floors"] = {"math": 0.2}
    settings = parse(data)
    judge = Judge(gate_book(settings.canary), None, lambda: ["b"])
    asyncio.run(Follower(judge, tmp_path, lambda: settings).follow_once())
    assert judge.gated() == {"b": frozenset({"math"})}
    with Ledger(tmp_path) as ledger:
        found = ledger.sql("SELECT run_id, model FROM canary_runs ORDER BY run_id")
    assert found == [("r1", None), ("r2", "m")]
