"""A path in the config (`ledger.path`, `canary.suites`, the files of `canary.baselines`)
starting with `~` is the home directory, as a shell reads it: expanded at load, so `config
check` shows it, `serve` writes there and a reload compares it expanded."""

from __future__ import annotations

import shutil
from pathlib import Path

import openai
import pytest
import yaml

from evals import results
from evals.results import CaseResult
from router.config import parse
from tests.harness import Running, config_for, router
from tests.processes import smf_router
from tests.router.config_files import write

SUITES = Path(__file__).resolve().parents[2] / "evals" / "suites"
DEAD = "http://127.0.0.1:9/v1"  # nothing listens: config check sends no request


def test_config_check_shows_paths_under_home_expanded(tmp_path: Path) -> None:
    """`ledger.path: ~/smf-ledger` created `./~/smf-ledger` in the working directory, and a
    suites directory or baseline under `~` was "no such" one (found in review)."""
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    shutil.copytree(SUITES, home / "suites")
    cases = [CaseResult("c", "coding", "easy", "pass")]
    results.write(home / "base.json", results.to_document(cases, {"model": "m"}))
    text = (
        f"backends:\n  - {{name: local, tier: local, base_url: '{DEAD}', model: m}}\n"
        f"  - {{name: cloud, tier: cloud, base_url: '{DEAD}', model: m}}\n"
        "ledger: {path: ~/smf-ledger}\n"
        "canary: {suites: ~/suites, baselines: {cloud: ~/base.json}}\n"
    )
    done = smf_router(
        "config", "check", "--config", str(write(work, text)), env={"HOME": str(home)}, cwd=work
    )
    assert done.returncode == 0, done.stderr
    shown = yaml.safe_load(done.stdout)
    assert shown["ledger"]["path"] == str(home / "smf-ledger")
    assert shown["canary"]["suites"] == str(home / "suites")
    assert shown["canary"]["baselines"] == {"cloud": str(home / "base.json")}
    assert list(work.iterdir()) == [work / "router.yaml"]


def test_serve_writes_a_ledger_under_home_there(
    backends: dict[str, Running], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(work)  # where the `~` directory was made
    config = config_for(backends, tmp_path).model_dump(mode="json")
    config["ledger"]["path"] = "~/smf-ledger"
    with router(parse(config)) as proxy:
        assert proxy.components.config.ledger.path == str(home / "smf-ledger")
        client = openai.OpenAI(base_url=proxy.url, api_key="none", max_retries=0)
        client.chat.completions.create(model="local", messages=[{"role": "user", "content": "hi"}])
    assert list((home / "smf-ledger").rglob("*.parquet"))
    assert list(work.iterdir()) == []
