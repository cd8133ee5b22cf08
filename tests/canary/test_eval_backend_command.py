"""`smf-router eval run --backend NAME` asks the configured backend with its own extras."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from typer.testing import CliRunner

from evals.suite import SHIPPED
from router.eval_command import app
from tests.harness import simulator


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
            "routes": {
                i: ["local"]
                for i in (
                    "coding",
                    "tool_calling",
                    "instruction",
                    "math",
                    "reasoning",
                    "prose",
                    "writing",
                )
            },
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
