"""The shadow judge's calls are billed like any call: priced, kept in the ledger, reported.

Through a real router, real simulators, the openai SDK and the DuckDB-read ledger; what the
judge should have cost comes from the judge simulator's own token counters.
"""

from __future__ import annotations

import json
from pathlib import Path

import openai
import pytest
from typer.testing import CliRunner

from router.config import Config, parse
from router.ledger import Ledger
from router.shadow_cli import app
from tests.harness import Running, router, simulator, wait_until
from tests.shadow.shadow_status import shadow_status

MATH = "What is 1234 + 4321?"
JUDGE_PRICE = {"input_per_mtok": 3000.0, "output_per_mtok": 15000.0}  # large, to be seen
CLOUD_PRICE = {"input_per_mtok": 1.0, "output_per_mtok": 4.0}


def _config(local: Running, cloud: Running, judge: Running, tmp: Path) -> Config:
    """Math lives on the cloud and is shadowed to local; a priced cloud backend judges."""
    local_first = ["local", "cloud"]
    return parse(
        {
            "backends": [
                {"name": "local", "tier": "local", "base_url": local.url, "model": "local-model"},
                {
                    "name": "cloud",
                    "tier": "cloud",
                    "base_url": cloud.url,
                    "model": "cloud-model",
                    "price": CLOUD_PRICE,
                },
                {
                    "name": "judge",
                    "tier": "cloud",
                    "base_url": judge.url,
                    "model": "judge-model",
                    "price": JUDGE_PRICE,
                },
            ],
            "routes": {
                **{i: local_first for i in ("coding", "tool_calling", "instruction")},
                **{i: ["cloud", "local"] for i in ("math", "reasoning", "prose", "writing")},
            },
            "ledger": {"path": str(tmp / "ledger"), "flush_interval_s": 0.2},
            "resilience": {"enabled": False},
            "shadow": {
                "rates": {"math": 1.0},
                "judge_backend": "judge",
                "allow_cloud_targets": True,
            },
        }
    )


def _cost(server: Running, price: dict[str, float]) -> float:
    """What every request a simulator served costs at `price`, by its own token counts."""
    stats = server.stats()
    return (
        stats["prompt_tokens"] * price["input_per_mtok"]
        + stats["generation_tokens"] * price["output_per_mtok"]
    ) / 1e6


def test_the_judges_spend_is_priced_kept_and_reported_apart_from_live(tmp_path: Path) -> None:
    """The judge's reply usage was thrown away: a priced cloud judge cost money that no
    ledger column, report or metric held (found in review)."""
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
        simulator(profile="cloud", model="judge-model") as judge,
    ):
        with router(_config(local, cloud, judge, tmp_path)) as r:
            client = openai.OpenAI(base_url=r.url, api_key="x", max_retries=0, timeout=30)
            for _ in range(2):
                raw = client.chat.completions.with_raw_response.create(
                    model="auto", messages=[{"role": "user", "content": MATH}]
                )
                assert raw.headers["x-smf-backend"] == "cloud"
            assert wait_until(
                lambda: (
                    (c := shadow_status(r))["counts"].get("compared") == 2 and c["in_flight"] == 0
                ),
                20,
            )
        assert judge.completions() == 2  # one judge call per comparison
        judge_usd, live_usd = _cost(judge, JUDGE_PRICE), _cost(cloud, CLOUD_PRICE)
        judge_tokens = judge.stats()["prompt_tokens"] + judge.stats()["generation_tokens"]
    assert judge_usd > 0.1  # thousands of dollars a million tokens: no rounding hides it
    with Ledger(tmp_path / "ledger") as ledger:
        rows = ledger.sql(
            "SELECT judge_backend, judge, judge_tokens, judge_cost_usd, shadow_cost_usd "
            "FROM shadow_comparisons"
        )
        (spent,) = ledger.sql("SELECT sum(cost_usd) FROM records")[0]
    assert [(row[0], row[1] is not None) for row in rows] == [("judge", True)] * 2
    assert sum(row[2] for row in rows) == judge_tokens
    assert sum(row[3] for row in rows) == pytest.approx(judge_usd)
    assert [row[4] for row in rows] == [0.0, 0.0]  # the shadows ran on local
    assert spent == pytest.approx(live_usd)  # the live route's spend: the cloud's alone
    result = CliRunner().invoke(app, ["report", "--ledger", str(tmp_path / "ledger"), "--json"])
    assert result.exit_code == 0, result.output
    (pair,) = json.loads(result.output)
    assert pair["judge_cost_usd"] == pytest.approx(judge_usd, abs=1e-6)
    assert pair["shadow_cost_usd"] == 0.0
    table = CliRunner().invoke(
        app, ["report", "--ledger", str(tmp_path / "ledger")], env={"COLUMNS": "200"}
    )
    assert table.exit_code == 0 and f"/ {pair['judge_cost_usd']:.4f}" in table.output
