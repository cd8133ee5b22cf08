"""The admin report endpoint, ledger housekeeping, and `smf-router canary run` for cron."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import subprocess
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
import yaml

from router.config import hash_key, parse
from router.ledger import Ledger, LedgerWriter
from router.maintenance import housekeep
from router.record import Record
from tests.harness import (
    VENV_BIN,
    Running,
    config_for,
    free_port,
    router,
    simulator,
    wait_until,
)
from tests.ledger.ledger_days import write_day
from tests.router.offline import INTENTS, OFFLINE

ADMIN = "sk-admin"


def test_report_endpoint_serves_the_ledger_to_admins(tmp_path: Path) -> None:
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        config = config_for(
            {"local": local, "cloud": cloud},
            tmp_path,
            auth={
                "keys": [
                    {"name": "ops", "sha256": hash_key(ADMIN), "admin": True},
                    {"name": "dev", "sha256": hash_key("sk-dev")},
                ]
            },
        )
        with router(config) as proxy:
            client = openai.OpenAI(base_url=proxy.url, api_key="sk-dev", max_retries=0)
            for model in ("local", "local", "cloud"):
                client.chat.completions.create(
                    model=model, messages=[{"role": "user", "content": "hi"}]
                )
            proxy.components.ledger.flush()  # type: ignore[union-attr]
            url = f"{proxy.root}/v1/router/report?since=1d&by=backend"
            assert httpx.get(url, headers={"authorization": "Bearer sk-dev"}).status_code == 403
            response = httpx.get(url, headers={"authorization": f"Bearer {ADMIN}"}, timeout=60)
            assert response.status_code == 200, response.text
            data = response.json()
            assert data["totals"]["requests"] == 3
            requests = {g["key"]: g["requests"] for g in data["groups"]}
            assert requests == {"local": 2, "cloud": 1}
            bad = httpx.get(
                f"{proxy.root}/v1/router/report?by=moon",
                headers={"authorization": f"Bearer {ADMIN}"},
            )
            assert bad.status_code == 400 and bad.json()["error"]["param"] == "by"
            too_far = httpx.get(
                f"{proxy.root}/v1/router/report?since=99999999d",
                headers={"authorization": f"Bearer {ADMIN}"},
            )
            assert too_far.status_code == 400, too_far.text
            assert too_far.json()["error"]["param"] == "since"
            ended = httpx.get(  # a window that ended before any of these requests
                f"{proxy.root}/v1/router/report?since=2026-01-01&until=2026-01-02",
                headers={"authorization": f"Bearer {ADMIN}"},
                timeout=60,
            )
            assert ended.status_code == 200, ended.text
            assert ended.json()["totals"]["requests"] == 0
            assert ended.json()["until"].startswith("2026-01-02T00:00:00")
            misspelt = httpx.get(
                f"{proxy.root}/v1/router/report?since=1d&untill=2026-01-02",
                headers={"authorization": f"Bearer {ADMIN}"},
            )
            assert misspelt.status_code == 400 and misspelt.json()["error"]["param"] == "untill"
            swapped = httpx.get(  # 0 requests and $0, without a word, before
                f"{proxy.root}/v1/router/report?since=2030-01-02&until=2030-01-01",
                headers={"authorization": f"Bearer {ADMIN}"},
            )
            assert swapped.status_code == 400 and swapped.json()["error"]["param"] == "until"
            ahead = httpx.get(  # open, so ending now: empty, a $0 report with 200 before
                f"{proxy.root}/v1/router/report?since=2099-01-01",
                headers={"authorization": f"Bearer {ADMIN}"},
            )
            assert ahead.status_code == 400 and ahead.json()["error"]["param"] == "since"
            assert "must be before now" in ahead.json()["error"]["message"]
            open_ended = httpx.get(  # an empty until is none, as the CLI's --until ""
                f"{proxy.root}/v1/router/report?since=1d&until=",
                headers={"authorization": f"Bearer {ADMIN}"},
                timeout=60,
            )
            assert open_ended.status_code == 200 and open_ended.json()["until"] is None
            until_alone = httpx.get(  # 30 days before it, as the CLI's --until alone
                f"{proxy.root}/v1/router/report?until=2026-01-02",
                headers={"authorization": f"Bearer {ADMIN}"},
                timeout=60,
            )
            assert until_alone.status_code == 200, until_alone.text
            assert until_alone.json()["since"] == "2025-12-03T00:00:00+00:00"
            unencoded = httpx.get(  # the + of the offset arrives as a space
                f"{proxy.root}/v1/router/report?since=2026-12-03T00:00+02:00",
                headers={"authorization": f"Bearer {ADMIN}"},
            )
            assert unencoded.status_code == 400 and "%2B" in unencoded.json()["error"]["message"]
            encoded = httpx.get(
                f"{proxy.root}/v1/router/report?since=2026-12-03T00:00%2B02:00",
                headers={"authorization": f"Bearer {ADMIN}"},
                timeout=60,
            )
            assert encoded.json()["since"].startswith("2026-12-02T22:00:00")


def test_housekeeping_drops_partitions_past_retention(tmp_path: Path) -> None:
    ledger = tmp_path / "ledger"
    old_day = (datetime.now(UTC) - timedelta(days=40)).date().isoformat()
    recent_day = datetime.now(UTC).date().isoformat()
    for day in (old_day, recent_day):
        (ledger / "records" / f"day={day}").mkdir(parents=True)
    config = parse({**OFFLINE, "ledger": {"path": str(ledger), "retention_days": 30}})
    housekeep(config)
    days = sorted(p.name for p in (ledger / "records").iterdir())
    assert days == [f"day={recent_day}"]


def test_housekeeping_first_runs_soon_after_start_not_an_hour_later(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first pass came an hour after start: a router restarted more often (a laptop, a
    crash loop, redeploys) never applied retention, and kept prompt texts past
    `text_retention_days` (found in review). It now comes a minute after start (0.2 s
    here), then hourly."""
    from router import maintenance

    monkeypatch.setattr(maintenance, "FIRST_S", 0.2)
    assert maintenance.INTERVAL_S == 3600  # not shortened: only the first pass is early
    ledger = tmp_path / "ledger"
    old = datetime.now(UTC) - timedelta(days=40)
    records = write_day(ledger, old, 1, "old", text=True)
    texts = ledger / "texts" / records.name
    assert texts.is_dir()
    with simulator(profile="vllm", model="local-model") as local:
        settings = {"path": str(ledger), "store_text": True, "text_retention_days": 30}
        config = config_for({"local": local}, tmp_path, ledger=settings)
        with router(config):
            dropped = wait_until(lambda: not texts.exists(), seconds=20)
    assert dropped, "the expired prompt texts were still kept after start"
    assert records.is_dir(), "the record is within retention_days (730)"


def test_housekeeping_logs_each_ledger_warning_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The ledger leaves its warnings to callers (a CLI prints them); the router's hourly
    housekeeping has no terminal, so it logs them, once each."""
    stray = tmp_path / "ledger" / "records" / "day=2026-03-01.bak"
    stray.mkdir(parents=True)
    config = parse({**OFFLINE, "ledger": {"path": str(tmp_path / "ledger")}})
    with caplog.at_level(logging.WARNING, logger="smf_router"):
        housekeep(config)
    logged = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert logged == [f"ledger housekeeping: ignored {stray}: not a day partition (day=YYYY-MM-DD)"]


@pytest.mark.parametrize("by", ["router", "compact command"])
def test_texts_go_after_text_retention_days_and_records_after_retention_days(
    tmp_path: Path, by: str
) -> None:
    """`ledger.text_retention_days` lets prompts and completions go sooner than the records
    (README's configuration reference): a 10-day-old request keeps its record and loses
    its text under 7 and 30 days; a 40-day-old one loses both; today's keeps both. Both
    places that apply retention read it: the router's hourly housekeeping and
    `smf-router ledger compact --config`."""
    ledger = tmp_path / "ledger"
    writer = LedgerWriter(ledger, flush_interval_s=3600, store_text=True)
    now = time.time()
    for name, age_days in (("today", 0), ("ten", 10), ("forty", 40)):
        record = Record(name, now - age_days * 86400, prompt_text="hi", completion_text="yo")
        writer.submit(record)
    writer.close()
    settings = {"path": str(ledger), "retention_days": 30, "text_retention_days": 7}
    config = parse({**OFFLINE, "ledger": settings})
    if by == "router":
        housekeep(config)
    else:
        path = tmp_path / "router.yaml"
        path.write_text(yaml.safe_dump(config.model_dump(mode="json")))
        done = subprocess.run(
            [str(VENV_BIN / "smf-router"), "ledger", "compact", "--config", str(path)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
    read = Ledger(ledger)
    assert sorted(r for (r,) in read.sql("select request_id from records")) == ["ten", "today"]
    assert [r for (r,) in read.sql("select request_id from texts")] == ["today"]


def test_canary_run_command_records_results(tmp_path: Path) -> None:
    with simulator(profile="vllm", model="local-model") as local:
        config = config_for({"local": local}, tmp_path, canary={"sample_per_suite": 1})
        path = tmp_path / "router.yaml"
        path.write_text(yaml.safe_dump(config.model_dump(mode="json")))
        done = subprocess.run(
            [str(VENV_BIN / "smf-router"), "canary", "run", "--config", str(path), "--json"],
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert done.returncode == 0, done.stderr
        (summary,) = json.loads(done.stdout)  # for scripts
        assert summary["backend"] == "local" and summary["cases"] == 7
        assert summary["at"].endswith("Z") and summary["error_details"] == {}
    rows = Ledger(tmp_path / "ledger").sql("select suite, status from canary_results")
    suites = {suite for suite, _ in rows}
    assert len(suites) == 7  # one case of each suite
    assert all(status in ("pass", "fail", "error", "n/a") for _, status in rows)


def test_canary_run_reads_smf_router_config_and_says_why_a_backend_errored(
    tmp_path: Path,
) -> None:
    """`canary run` ignored $SMF_ROUTER_CONFIG, which every other command reads, and a
    backend it could not reach showed as `'errors': 7` with no reason (found in review)."""
    env = {k: v for k, v in os.environ.items() if k != "SMF_ROUTER_CONFIG"}
    command = [str(VENV_BIN / "smf-router"), "canary", "run"]
    missing = subprocess.run(command, capture_output=True, text=True, timeout=180, env=env)
    assert missing.returncode == 2 and "SMF_ROUTER_CONFIG" in missing.stderr
    dead = Running(f"http://127.0.0.1:{free_port()}/v1", "")  # nothing listens there
    with simulator(profile="vllm", model="local-model") as local:
        config = config_for(
            {"local": local, "cloud": dead}, tmp_path, canary={"sample_per_suite": 1}
        )
        path = tmp_path / "router.yaml"
        path.write_text(yaml.safe_dump(config.model_dump(mode="json")))
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=180,
            env=env | {"SMF_ROUTER_CONFIG": str(path)},
        )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    cloud = lines.index(next(line for line in lines if line.startswith("cloud: ")))
    assert "0/7 passed" in lines[cloud] and "7 errors" in lines[cloud]
    assert lines[cloud + 1] == "  7 × ConnectError: All connection attempts failed"
    local_line = next(line for line in lines if line.startswith("local: "))
    assert "/7 passed" in local_line and "0 errors" in local_line
    # what a person reads: no dict reprs, no epoch seconds, an ISO time (found in review)
    assert "{'" not in done.stdout
    iso = r"20\d\d-\d\d-\d\dT\d\d:\d\d:\d\dZ"
    assert re.search(rf"suites: coding, .*math.*; started {iso}, took ", local_line)


def test_canary_run_says_why_a_backend_whose_round_hit_a_bug_has_errors() -> None:
    """A bug on the way to one backend counts its round as errors, but the CLI showed no
    detail line for them: the exception passed by before any detail was kept (found in
    review)."""
    from evals.suite import SHIPPED, load
    from router.canary import Canary
    from router.canary_cli import error_details
    from router.gating import GateBook

    async def buggy(*args: Any, **kwargs: Any) -> Any:
        raise KeyError("a bug")

    cases = load(SHIPPED / "math")
    backend = {"name": "local", "tier": "local", "base_url": "http://127.0.0.1:9/v1", "model": "m"}
    canary_settings = {"suites": str(SHIPPED / "math"), "sample_per_suite": 2}
    routes = {intent: ["local"] for intent in INTENTS}
    config = parse({"backends": [backend], "routes": routes, "canary": canary_settings})
    canary = Canary(config, cases, GateBook({}), runner=buggy)
    asyncio.run(canary.run_once())
    assert error_details(canary.last_results["local"]) == [("the canary round failed: KeyError", 2)]


def test_a_reload_that_moves_the_ledger_leaves_report_and_housekeeping_on_the_running_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`ledger.path` needs a restart, and the writer kept writing where it started; the
    report and the hourly housekeeping read the new path at once (an empty report; the
    retention of a ledger nobody writes) (found in review)."""
    from router import maintenance, reload

    housekept: list[str] = []
    monkeypatch.setattr(maintenance, "INTERVAL_S", 0.05)
    monkeypatch.setattr(maintenance, "FIRST_S", 0.05)
    # the job's pass (`_pass`: the child it starts runs `housekeep` of the config given)
    monkeypatch.setattr(maintenance, "_pass", lambda c, _: housekept.append(c.ledger.path))
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        config = config_for({"local": local, "cloud": cloud}, tmp_path)
        moved = config.model_dump(mode="json")
        moved["ledger"]["path"] = str(tmp_path / "ledger-new")
        path = tmp_path / "router.yaml"
        path.write_text(yaml.safe_dump(moved))
        with router(config) as proxy:
            reload.reloader_of(proxy.components).source = path
            client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
            client.chat.completions.create(
                model="local", messages=[{"role": "user", "content": "hi"}]
            )
            answer = httpx.post(f"{proxy.url}/router/reload").json()
            assert answer["restart_needed"] == ["ledger"]
            client.chat.completions.create(
                model="local", messages=[{"role": "user", "content": "hi"}]
            )
            proxy.components.ledger.flush()  # type: ignore[union-attr]
            reloaded_at = len(housekept)
            response = httpx.get(f"{proxy.url}/router/report?since=1d", timeout=60)
            end = time.monotonic() + 10  # a hang guard: housekeeping runs every 0.05 s here
            while len(housekept) <= reloaded_at and time.monotonic() < end:
                time.sleep(0.02)
    assert len(housekept) > reloaded_at, "no housekeeping after the reload"
    assert response.status_code == 200, response.text
    report = response.json()
    assert (report["ledger"], report["totals"]["requests"]) == (str(tmp_path / "ledger"), 2)
    assert set(housekept) == {str(tmp_path / "ledger")}


@pytest.mark.parametrize("housekeeping", [True, False])
def test_ledger_housekeeping_off_leaves_compaction_to_one_job(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, housekeeping: bool
) -> None:
    """Every Kubernetes replica compacted the shared ledger each hour, while deploy/README
    has one CronJob do it (several compactions at once are safe only where the storage
    honours flock across machines). `ledger.housekeeping: false` leaves it to that job, and
    `config check` accepts it (found in review)."""
    from router import maintenance

    monkeypatch.setattr(maintenance, "INTERVAL_S", 0.05)
    monkeypatch.setattr(maintenance, "FIRST_S", 0.05)
    ledger = tmp_path / "ledger"
    day = write_day(ledger, datetime.now(UTC) - timedelta(days=3), 2, "old")
    with simulator(profile="vllm", model="local-model") as local:
        settings = {"path": str(ledger), "housekeeping": housekeeping}
        config = config_for({"local": local}, tmp_path, ledger=settings)
        with router(config):
            # Off, 3 s of passes every 0.05 s that must not compact; on, the compaction is
            # waited for (3 s were once not enough for it on a loaded machine).
            seconds = 30 if housekeeping else 3
            compacted = wait_until(lambda: len(list(day.glob("*.parquet"))) == 1, seconds)
    assert compacted == housekeeping
    path = tmp_path / "router.yaml"
    path.write_text(yaml.safe_dump(config.model_dump(mode="json")))
    done = subprocess.run(
        [str(VENV_BIN / "smf-router"), "config", "check", "--config", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
