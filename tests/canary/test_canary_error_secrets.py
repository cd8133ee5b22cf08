"""A backend's error that repeats its request (a gateway's page quoting the key and the
`X-Gateway-Token` it was sent) reaches neither `smf-router canary run`'s output (the
CronJob's pod log) nor `eval run`'s report and results file in clear: the canary and the
evals asked OpenAI-compatible backends without the router's adapters, and printed 200
characters of the raw reply (found in review). The commands run as they are run, in real
subprocesses, against the simulator's `echo_credentials_page` fault."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from tests.harness import INTENTS, REPO, VENV_BIN, Running, simulator

# A whole reply that is a text page, status 500, saying the key bare and each credential
# header with its value within its first 200 characters.
FAULT = "echo_credentials_page:0:500"
MODEL = "local-model"
MASKED = "with key *** (x-gateway-token: ***; authorization: Bearer ***)"


@dataclass(frozen=True)
class Setup:
    server: Running
    config: Path
    suites: Path
    env: dict[str, str]
    secrets: tuple[str, ...]  # the key and the gateway token


def suite(tmp: Path) -> Path:
    """One regex case: one request, one error."""
    case = {
        "id": "user.math.01",
        "category": "math",
        "dimension": "quality",
        "difficulty": "easy",
        "prompt": "What is 2 + 2? Answer with the number only.",
        "evaluator": "regex_match",
        "expected": "4",
    }
    path = tmp / "suites" / "math.yaml"
    path.parent.mkdir()
    path.write_text(yaml.safe_dump(case))
    return path.parent


@pytest.fixture
def echoing(tmp_path: Path) -> Iterator[Setup]:
    """A simulator repeating the credentials of every request in its error, and a config
    whose backend `local` sends it a key (not `sk-`: no pattern takes it for one, only its
    value) and a gateway token from the environment."""
    key, token = "local-" + secrets.token_hex(16), "gwtok-" + secrets.token_hex(12)
    with simulator(profile="vllm", model=MODEL) as server:
        server.control("faults", {"fault": FAULT})
        backend = {
            "name": "local",
            "tier": "local",
            "base_url": server.url,
            "model": MODEL,
            "api_key_env": "ECHO_TEST_KEY",
            "headers": {"X-Gateway-Token": "${ECHO_TEST_TOKEN}"},
        }
        suites = suite(tmp_path)
        config = {
            "backends": [backend],
            "routes": {intent: ["local"] for intent in INTENTS},
            "ledger": {"path": str(tmp_path / "ledger"), "flush_interval_s": 0.1},
            "canary": {"suites": str(suites), "sample_per_suite": 1, "concurrency": 1},
        }
        path = tmp_path / "router.yaml"
        path.write_text(yaml.safe_dump(config))
        search = [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]  # code under test
        env = {
            **os.environ,
            "ECHO_TEST_KEY": key,
            "ECHO_TEST_TOKEN": token,
            "PYTHONPATH": os.pathsep.join(search),
        }
        yield Setup(server, path, suites, env, (key, token))


def run(command: list[str], setup: Setup) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=120, env=setup.env, check=False
    )
    assert setup.server.completions() >= 1, done.stderr[-2000:]  # the backend was asked
    return done


def assert_masked(setup: Setup, *texts: str) -> None:
    """No secret in any of `texts`; the error is shown, its secrets as `***`."""
    for secret in setup.secrets:
        for text in texts:
            assert secret not in text, text[-3000:]
            assert secret[:12] not in text, text[-3000:]  # nor the head of one cut through
    assert any(MASKED in " ".join(text.split()) for text in texts), texts


def test_canary_run_prints_the_error_without_the_backend_secrets(echoing: Setup) -> None:
    command = [str(VENV_BIN / "smf-router"), "canary", "run", "--config", str(echoing.config)]
    shown = run(command, echoing)
    as_json = run([*command, "--json"], echoing)
    assert shown.returncode == as_json.returncode == 3, shown.stderr[-2000:]  # none graded
    assert "1 × HTTP 500: the gateway could not serve POST" in shown.stdout, shown.stdout
    (summary,) = json.loads(as_json.stdout)
    assert summary["errors"] == 1, summary
    (detail,) = summary["error_details"]
    assert detail.startswith("HTTP 500: the gateway could not serve POST"), detail
    assert_masked(echoing, shown.stdout, shown.stderr, as_json.stdout, as_json.stderr)


def test_eval_run_of_a_backend_keeps_its_secrets_out_of_report_and_file(
    echoing: Setup, tmp_path: Path
) -> None:
    out = tmp_path / "results.json"
    command = [str(VENV_BIN / "smf-router"), "eval", "run", "--backend", "local"]
    command += ["--config", str(echoing.config), "--suites", str(echoing.suites)]
    done = run([*command, "--no-progress", "--out", str(out)], echoing)
    assert done.returncode == 3, done.stderr[-2000:]  # no case graded
    saved = out.read_text()
    (case,) = json.loads(saved)["cases"]
    assert case["status"] == "error" and case["detail"].startswith("HTTP 500: "), case
    assert_masked(echoing, done.stdout, done.stderr, saved)
    assert MASKED in case["detail"]


@pytest.mark.parametrize(
    "command",
    [[sys.executable, "-m", "evals", "run"], [str(VENV_BIN / "smf-router"), "eval", "run"]],
    ids=["evals", "router"],
)
def test_eval_run_of_an_endpoint_keeps_the_key_out_of_report_and_file(
    echoing: Setup, tmp_path: Path, command: list[str]
) -> None:
    """`--endpoint` with the key from `--api-key-env`, no config: the key is all the run
    knows of, and it is masked wherever the reply says it, bare too."""
    out = tmp_path / "results.json"
    command = [*command, "--endpoint", echoing.server.url, "--model", MODEL]
    command += ["--api-key-env", "ECHO_TEST_KEY", "--suites", str(echoing.suites)]
    done = run([*command, "--no-progress", "--out", str(out)], echoing)
    assert done.returncode == 3, done.stderr[-2000:]
    saved = out.read_text()
    (case,) = json.loads(saved)["cases"]
    key = echoing.secrets[0]
    for text in (done.stdout, done.stderr, saved):
        assert key not in text and key[:12] not in text, text[-3000:]
    assert "with key *** (authorization: Bearer ***)" in case["detail"], case
