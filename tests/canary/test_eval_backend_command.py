"""`smf-router eval run --backend NAME` asks the configured backend with its own extras."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from evals import results, runner
from evals.suite import SHIPPED
from router.eval_command import app
from tests.harness import breaks_on_call, simulator
from tests.processes import smf_router

INTENTS = ("coding", "tool_calling", "instruction", "math", "reasoning", "prose", "writing")


def one_backend_config(tmp_path: Path, url: str) -> Path:
    """A router config whose every route is the backend `local` at `url`."""
    config = {
        "backends": [{"name": "local", "tier": "local", "base_url": url, "model": "laguna"}],
        "routes": {intent: ["local"] for intent in INTENTS},
    }
    path = tmp_path / "router.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def test_eval_run_against_a_configured_backend(tmp_path: Path) -> None:
    with simulator(profile="vllm", model="laguna") as local:
        local.control("quality", {"math": 0.0})
        config = {
            "backends": [
                {
                    "name": "local",
                    "tier": "local",
                    "base_url": local.url,
                    "model": "laguna",
                    "extra_body": {"chat_template_kwargs": {"enable_thinking": False}},
                }
            ],
            "routes": {intent: ["local"] for intent in INTENTS},
        }
        path = tmp_path / "router.yaml"
        path.write_text(yaml.safe_dump(config))
        out = tmp_path / "results.json"
        args = [
            "run",
            "--backend",
            "local",
            "--config",
            str(path),
            "--suites",
            str(SHIPPED / "math"),
        ]
        result = CliRunner().invoke(app, [*args, "--no-progress", "--out", str(out)])
        assert result.exit_code == 0, result.output
        sent = local.stats()["last_request"]
    doc = json.loads(out.read_text())
    assert doc["run"]["backend"] == "local" and doc["run"]["model"] == "laguna"
    assert {c["status"] for c in doc["cases"]} == {"fail"}
    assert sent["chat_template_kwargs"] == {"enable_thinking": False}


def test_eval_run_needs_a_config_for_a_backend() -> None:
    result = CliRunner().invoke(app, ["run", "--backend", "local", "--no-progress"])
    assert result.exit_code != 0 and "--config" in result.output


def test_a_partial_run_of_a_backend_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The backend was written into the run block after the run finished, so the partial
    file of a run that stopped did not say which backend it measured (found in review)."""
    monkeypatch.setattr(runner, "gate", breaks_on_call(3, runner.gate))
    out = tmp_path / "r.json"
    with simulator(profile="vllm", model="laguna") as local:
        config = one_backend_config(tmp_path, local.url)
        args = ["run", "--backend", "local", "--config", str(config), "--concurrency", "1"]
        args += ["--suites", str(SHIPPED / "math"), "--no-progress", "--out", str(out)]
        result = CliRunner().invoke(app, args)
    assert result.exit_code == 1, result.output
    doc = results.read(tmp_path / "r.partial.json")
    assert doc["run"]["backend"] == "local" and len(doc["cases"]) == 2


@pytest.mark.parametrize(
    "extra", [["--endpoint", "http://127.0.0.1:9/v1"], ["--api-key-env", "OTHER_KEY"]]
)
def test_endpoint_options_beside_a_backend_are_a_usage_error(
    tmp_path: Path, extra: list[str]
) -> None:
    """`--backend local --endpoint URL` asked the backend's URL, dropping the one given
    without a word, and `--api-key-env` was as silently ignored (found in review)."""
    config = one_backend_config(tmp_path, "http://127.0.0.1:9/v1")
    done = smf_router(
        "eval", "run", "--backend", "local", "--config", str(config), *extra,
        "--suites", str(SHIPPED / "math"), "--no-progress",
        env={"COLUMNS": "300"},
    )  # fmt: skip
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"{extra[0]} goes with --endpoint, not --backend" in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_eval_run_against_a_backend_goes_direct_whatever_http_proxy_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As the canary and live traffic do: a shell exporting a proxy (here one that refuses
    every connection) failed all 74 cases with ConnectError (found in review)."""
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.setenv(name, "http://127.0.0.1:9")
    out = tmp_path / "results.json"
    with simulator(profile="vllm", model="laguna") as local:
        path = one_backend_config(tmp_path, local.url)
        args = ["run", "--backend", "local", "--config", str(path), "--no-progress"]
        result = CliRunner().invoke(
            app, [*args, "--suites", str(SHIPPED / "math"), "--out", str(out)]
        )
    doc = json.loads(out.read_text())
    assert {c["status"] for c in doc["cases"]} <= {"pass", "fail"}, result.output
