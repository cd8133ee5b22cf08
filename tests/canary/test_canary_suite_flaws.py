"""A canary suite holding a case that loads N/A for a mistake (`evals.suite_flaws`) still
loads: refused, one `expected.note` (which smf-bench's own grader ignores) made `canary.suites`
a config error, so `serve` with the canary on would not start, a reload was rejected and
`canary run` exited 2 (found in review). The case is warned of once per load and N/A in
every round (no pass, no failure); the suite's other cases run."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families
from typer.testing import CliRunner

from classifier import INTENTS
from router import reload
from router.cli import app
from router.config import parse
from tests.evals.flawed_cases import FIELDS, FLAWED, flawed_suites
from tests.harness import router as running_router
from tests.harness import simulator
from tests.processes import smf_router
from tests.resilience.conftest import status, until

NOT_RUN = "not run (N/A until fixed)"


def canary_config(local_url: str, tmp: Path, **canary: Any) -> dict[str, Any]:
    """`local` the one backend; a canary of the flawed suites, each case in every round."""
    suites = str(flawed_suites(tmp))
    return {
        "backends": [{"name": "local", "tier": "local", "base_url": local_url, "model": "m"}],
        "routes": {intent: ["local"] for intent in INTENTS},
        "ledger": {"path": str(tmp / "ledger")},
        "canary": {"interval_s": 600, "suites": suites, "sample_per_suite": 5, **canary},
        "resilience": {"enabled": False},
    }


def said_once_each(lines: list[str]) -> None:
    """One warning per flawed case, each naming `canary.suites`, its file, case and field."""
    assert len(lines) == len(FIELDS), lines
    for (case, field), line in zip(FIELDS.items(), lines, strict=True):
        assert "canary.suites: " + NOT_RUN in line, line
        assert f"flawed.yaml: case {case!r}" in line and field in line, line


def test_a_router_whose_canary_suites_hold_a_flawed_case_starts_and_runs_the_rest(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with (
        caplog.at_level(logging.WARNING, logger="smf_router"),
        simulator(profile="vllm", model="m") as local,
    ):
        data = canary_config(local.url, tmp_path, enabled=True)
        with running_router(parse(data)) as proxy:
            until(lambda: status(proxy.root)["extra"]["canary"]["runs"] == 1, what="the round")
            said_once_each([r.getMessage() for r in caplog.records if NOT_RUN in r.getMessage()])
            run = status(proxy.root)["extra"]["canary"]["last_run"]["local"]
            counts = (run["cases"], run["passed"], run["failed"], run["errors"])
            assert counts == (1 + len(FIELDS), 1, 0, 0), run  # the rest N/A
            assert local.completions() == 1  # no flawed case was asked

            caplog.clear()
            path = tmp_path / "router.yaml"  # a reload of the same config is no longer refused
            path.write_text(yaml.safe_dump(data))
            reload.reloader_of(proxy.components).source = path
            answer = httpx.post(f"{proxy.url}/router/reload", timeout=30)
            assert answer.status_code == 200, answer.text
            said_once_each([r.getMessage() for r in caplog.records if NOT_RUN in r.getMessage()])


def test_canary_run_and_config_check_warn_of_a_flawed_case_and_go_on(tmp_path: Path) -> None:
    """`canary run` exited 2 and `config check` refused the config; both warn on stderr now,
    and `canary run` records the good case's round."""
    with simulator(profile="vllm", model="m") as local:
        path = tmp_path / "router.yaml"
        path.write_text(yaml.safe_dump(canary_config(local.url, tmp_path)))
        checked = CliRunner().invoke(app, ["config", "check", "--config", str(path)])
        assert checked.exit_code == 0, checked.output
        said_once_each([w for w in checked.stderr.splitlines() if w.startswith("warning: ")])
        done = smf_router("canary", "run", "--config", str(path), "--json")
        assert done.returncode == 0, done.stderr
        said_once_each([w for w in done.stderr.splitlines() if w.startswith("warning: ")])
        (summary,) = json.loads(done.stdout)
        counts = (summary["cases"], summary["passed"], summary["failed"], summary["errors"])
        assert counts == (1 + len(FIELDS), 1, 0, 0), summary
        assert local.completions() == 1


def not_runnable(root: str) -> dict[str, float]:
    """`smf_router_canary_cases_not_runnable` per suite, as a scrape of /metrics shows it."""
    text = httpx.get(f"{root}/metrics", timeout=5).text
    return {
        sample.labels["suite"]: sample.value
        for family in text_string_to_metric_families(text)
        if family.name == "smf_router_canary_cases_not_runnable"
        for sample in family.samples
    }


def test_a_router_exports_how_many_cases_of_each_suite_a_mistake_keeps_from_running(
    tmp_path: Path,
) -> None:
    """N/A cases are in no case count, so a suite of only flawed cases went quiet: no
    SmfCanaryBlind, a gate it closed before closed for good, and only the log at load said
    why (found in review). The gauge counts them per suite, at start and at each reload: the
    file fixed, the count follows; the file gone, so is its series."""
    with simulator(profile="vllm", model="m") as local:
        data = canary_config(local.url, tmp_path, enabled=True)
        flawed = tmp_path / "suites" / "flawed.yaml"  # its cases have no category
        with running_router(parse(data)) as proxy:
            assert not_runnable(proxy.root) == {"math": 0, "uncategorised": len(FIELDS)}

            path = tmp_path / "router.yaml"
            path.write_text(yaml.safe_dump(data))
            reload.reloader_of(proxy.components).source = path
            good = "- {id: good, prompt: p, evaluator: text_match, expected: x}\n"
            flawed.write_text(FLAWED.strip().splitlines()[0] + "\n" + good)  # one mistake left
            answer = httpx.post(f"{proxy.url}/router/reload", timeout=30)
            assert answer.status_code == 200, answer.text
            assert not_runnable(proxy.root) == {"math": 0, "uncategorised": 1}

            flawed.unlink()
            answer = httpx.post(f"{proxy.url}/router/reload", timeout=30)
            assert answer.status_code == 200, answer.text
            assert not_runnable(proxy.root) == {"math": 0}
