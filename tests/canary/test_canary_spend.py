"""What the canary's calls cost: kept per case in `canary_results` and reported apart.

The canary asks every backend, a paid cloud one too, every round; its calls were recorded
without tokens or cost, so what they cost was in no report (docs/ledger.md said so). Through
a real router (or `smf-router canary run`), real simulators and the DuckDB-read ledger, then
the real `smf-router report`; what the cloud should have cost comes from the simulator's own
token counters at the configured price.
"""

from __future__ import annotations

import json
import subprocess
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
import yaml

from router.config import parse
from router.ledger import Ledger
from router.money import usd
from tests.canary.servers import math_gating_canary
from tests.harness import VENV_BIN, Running, router, send_json, simulator, upstream
from tests.slots import must_reach, status_extra

PRICE = {"input_per_mtok": 3000.0, "output_per_mtok": 15000.0}  # large, to be seen
UNKNOWN = "acme/frontier-x-2027"  # in no price map
INTENTS = ("coding", "tool_calling", "instruction", "math", "reasoning", "prose", "writing")


def _report(ledger: Path, fmt: str) -> subprocess.CompletedProcess[str]:
    """`smf-router report` of the ledger, as a user runs it."""
    command = [str(VENV_BIN / "smf-router"), "report", "--ledger", str(ledger), "--since"]
    command += ["1d", "--format", fmt]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def _cost(server: Running) -> float:
    """What every request the simulator served costs at `PRICE`, by its own token counts."""
    stats = server.stats()
    return (
        stats["prompt_tokens"] * PRICE["input_per_mtok"]
        + stats["generation_tokens"] * PRICE["output_per_mtok"]
    ) / 1e6


def _rows(ledger: Path) -> list[dict[str, Any]]:
    columns = "backend, tier, status, prompt_tokens, completion_tokens, tokens_estimated, cost_usd"
    with Ledger(ledger) as read:
        rows = read.sql(f"SELECT {columns} FROM canary_results ORDER BY backend, case_id")
    return [dict(zip(columns.split(", "), row, strict=True)) for row in rows]


def test_a_routers_canary_calls_are_priced_kept_and_reported_apart(tmp_path: Path) -> None:
    """The canary's calls to a priced cloud backend cost money no ledger column or report
    held (found in review): each case's row now holds its call's tokens and dollars, and
    `smf-router report` says them in a line apart from the live spend."""
    ledger = tmp_path / "ledger"
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        local_cost = {"hardware_usd": 10_000_000.0, "amortization_months": 1}  # to be seen
        config = parse(
            {
                "backends": [
                    {
                        "name": "local",
                        "tier": "local",
                        "base_url": local.url,
                        "model": "local-model",
                        "local_cost": local_cost,
                    },
                    {
                        "name": "cloud",
                        "tier": "cloud",
                        "base_url": cloud.url,
                        "model": "cloud-model",
                        "price": PRICE,
                    },
                ],
                "ledger": {"path": str(ledger), "flush_interval_s": 0.2},
                "resilience": {"enabled": False},
                # one run (at start), none after it while the test runs
                "canary": math_gating_canary(3600, window=6),
            }
        )
        with router(config) as r:
            must_reach(lambda: status_extra(r)["canary"]["runs"] >= 1, "a canary run", 120)
        assert cloud.completions() == 3  # the canary's three math cases, and nothing else
        cloud_usd = _cost(cloud)
        stats = cloud.stats()
    assert cloud_usd > 0.1  # thousands of dollars a million tokens: no rounding hides it
    rows = _rows(ledger)
    clouds = [row for row in rows if row["backend"] == "cloud"]
    locals_ = [row for row in rows if row["backend"] == "local"]
    assert len(clouds) == len(locals_) == 3
    assert {row["tier"] for row in clouds} == {"cloud"}
    assert {row["tier"] for row in locals_} == {"local"}
    assert sum(row["prompt_tokens"] for row in clouds) == stats["prompt_tokens"]
    assert sum(row["completion_tokens"] for row in clouds) == stats["generation_tokens"]
    assert [row["tokens_estimated"] for row in rows] == [False] * 6  # the simulators said
    assert sum(row["cost_usd"] for row in clouds) == pytest.approx(cloud_usd)
    local_usd = sum(row["cost_usd"] for row in locals_)
    assert local_usd > 0  # a local backend's call costs its time, as a live request's

    done = _report(ledger, "json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    side = data["canary_spend"]
    tokens = side["prompt_tokens"] + side["completion_tokens"]
    assert side["calls"] == 6 and tokens == sum(
        row["prompt_tokens"] + row["completion_tokens"] for row in rows
    )
    assert side["cloud_usd"] == pytest.approx(cloud_usd, abs=1e-9)
    assert side["local_usd"] == pytest.approx(local_usd, abs=1e-9)
    assert (side["unpriced"], side["estimated_calls"], side["unrecorded"]) == (0, 0, 0)
    assert data["totals"]["requests"] == 0  # none of it is live traffic
    assert data["totals"]["cloud_usd"] == data["totals"]["counterfactual_usd"] == 0
    table = _report(ledger, "table")
    assert table.returncode == 0, table.stderr
    cloud_said = usd(side["cloud_usd"])
    line = f"canary, apart from the above: 6 call(s), {tokens:,} tokens, cloud {cloud_said}"
    [said] = [text for text in table.stdout.splitlines() if text.startswith("canary,")]
    assert said.startswith(line), said
    html = _report(ledger, "html")
    assert html.returncode == 0 and f"<h2>Canary</h2><p>{said}</p>" in html.stdout
    csv = _report(ledger, "csv")
    assert csv.returncode == 0 and "canary" not in csv.stdout  # the groups' rows only


def test_a_cronjob_rounds_estimated_and_unpriced_calls_are_said(tmp_path: Path) -> None:
    """`smf-router canary run` prices its calls as a router's canary does; a backend that
    reports no usage has its tokens estimated, as a live request's (`tokens_estimated`),
    and one with no known price costs NULL: the report counts both, and warns of the
    unpriced calls, whose dollars it leaves out."""
    ledger = tmp_path / "ledger"
    with simulator(profile="cloud", model="cloud-model", accept_any_model=True) as sim:
        backends = [
            {
                "name": "quiet",  # answers with no `usage`
                "tier": "cloud",
                "base_url": sim.url,
                "model": "cloud-model+no_usage",
                "price": PRICE,
            },
            {"name": "frontier", "tier": "cloud", "base_url": sim.url, "model": UNKNOWN},
        ]
        data = {
            "backends": backends,
            "routes": {intent: ["quiet", "frontier"] for intent in INTENTS},
            "ledger": {"path": str(ledger), "flush_interval_s": 0.1},
            "resilience": {"enabled": False},
            "canary": math_gating_canary(3600, window=6, concurrency=1),
        }
        path = tmp_path / "router.yaml"
        path.write_text(yaml.safe_dump(data))
        command = [str(VENV_BIN / "smf-router"), "canary", "run", "--config", str(path)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=180)
        assert done.returncode == 0, done.stderr
        assert sim.completions() == 6
    rows = _rows(ledger)
    quiet = [row for row in rows if row["backend"] == "quiet"]
    frontier = [row for row in rows if row["backend"] == "frontier"]
    assert [row["tokens_estimated"] for row in quiet] == [True] * 3
    assert all(row["prompt_tokens"] > 0 and row["completion_tokens"] > 0 for row in quiet)
    for row in quiet:  # priced as a live request's estimate is
        expected = row["prompt_tokens"] * PRICE["input_per_mtok"]
        expected += row["completion_tokens"] * PRICE["output_per_mtok"]
        assert row["cost_usd"] == pytest.approx(expected / 1e6)
    assert [row["tokens_estimated"] for row in frontier] == [False] * 3
    assert all(row["prompt_tokens"] > 0 and row["cost_usd"] is None for row in frontier)

    report = _report(ledger, "json")
    assert report.returncode == 0, report.stderr
    got = json.loads(report.stdout)
    side = got["canary_spend"]
    assert (side["calls"], side["estimated_calls"], side["unpriced"]) == (6, 3, 3)
    assert side["cloud_usd"] == pytest.approx(sum(row["cost_usd"] for row in quiet), abs=1e-9)
    [warned] = [w for w in got["warnings"] if "canary call(s)" in w]
    assert warned.startswith("3 canary call(s) with no known cloud price: left out")
    assert f"warning: {warned}" in report.stderr
    table = _report(ledger, "table").stdout
    assert "(3 with no known price left out; 3 with estimated tokens)" in table


# What each backend of `_Replies` answers every chat call with, by the first part of its
# path: a 200 that holds no answer (an error in its place, with or without a usage, no
# choices, nothing), one whose choice no client can read, and a real answer without usage
_ANSWER = {"role": "assistant", "content": r"The answer is \boxed{7}."}
_OVERLOADED = {"message": "The server is currently overloaded", "type": "server_error"}
_REPLIES: dict[str, dict[str, Any]] = {
    "error": {"error": _OVERLOADED},
    "errorusage": {"error": _OVERLOADED, "usage": {"prompt_tokens": 90, "completion_tokens": 0}},
    "empty": {"choices": []},
    "bare": {},
    "unreadable": {"choices": [{"index": 0, "message": None, "finish_reason": "stop"}]},
    "fine": {"choices": [{"index": 0, "message": _ANSWER, "finish_reason": "stop"}]},
}


class _Replies(BaseHTTPRequestHandler):
    """A backend per `_REPLIES` entry on one server: `/<name>/v1/...`."""

    def do_GET(self) -> None:  # the model list, for the window's look-up
        send_json(self, 200, json.dumps({"object": "list", "data": [{"id": "m"}]}).encode())

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        send_json(self, 200, json.dumps(_REPLIES[self.path.split("/")[1]]).encode())

    def log_message(self, *args: object) -> None:
        pass


def test_a_reply_that_holds_no_answer_is_billed_nothing(tmp_path: Path) -> None:
    """A 200 with `{"error": ...}` in place of the answer (a live attempt fails on it and is
    never billed), with `{"choices": []}` or `{}` had its prompt's tokens estimated and
    priced: a case that got no answer cost dollars (found in review). None is billed now,
    nor a reply with no usage whose only choice no client can read; a real answer without
    usage still is, estimated."""
    ledger = tmp_path / "ledger"
    with upstream(_Replies) as server:
        backends = [
            {
                "name": name,
                "tier": "cloud",
                "base_url": f"{server.root}/{name}/v1",
                "model": "m",
                "price": PRICE,
            }
            for name in _REPLIES
        ]
        data = {
            "backends": backends,
            "routes": {intent: list(_REPLIES) for intent in INTENTS},
            "ledger": {"path": str(ledger), "flush_interval_s": 0.1},
            "resilience": {"enabled": False},
            "canary": math_gating_canary(3600, window=6, concurrency=1),
        }
        path = tmp_path / "router.yaml"
        path.write_text(yaml.safe_dump(data))
        command = [str(VENV_BIN / "smf-router"), "canary", "run", "--config", str(path)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout + done.stderr  # `fine`'s cases were graded
    rows = _rows(ledger)
    assert len(rows) == 3 * len(_REPLIES)
    unbilled = [row for row in rows if row["backend"] != "fine"]
    assert {row["status"] for row in unbilled} == {"error"}
    for row in unbilled:
        assert (row["prompt_tokens"], row["completion_tokens"]) == (None, None), row
        assert row["cost_usd"] == 0.0 and row["tokens_estimated"] is None, row
    fine = [row for row in rows if row["backend"] == "fine"]
    assert all(row["tokens_estimated"] and row["prompt_tokens"] > 0 for row in fine)
    assert all(row["cost_usd"] > 0 for row in fine)
    side = json.loads(_report(ledger, "json").stdout)["canary_spend"]
    assert (side["calls"], side["estimated_calls"]) == (3, 3)
    assert side["cloud_usd"] == pytest.approx(sum(row["cost_usd"] for row in fine), abs=1e-9)
