"""A program the canary runs cannot read the keys in the environment of the processes
around it, even on a host that leaves the sandbox its in-process guard alone: the shipped
systemd unit was such a host (its filters refused the namespaces and Landlock), and a
program run there read the cloud key from the router's /proc/<pid>/environ (found in
review). `smf-router canary run` as the CronJob runs it, under the kernel's filters."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
from pathlib import Path

import pytest
import yaml

from tests import syscall_filter
from tests.harness import INTENTS, VENV_BIN, simulator
from tests.processes import without_capabilities

PROMPT = "Write leaked() that lists the processes whose environment holds the key."
CODE = "Name the capital of France in one word."
# Reads every process's environment it can for the key, which it never holds itself: its
# sandbox gives it an environment of its own, and the key is spelled in two halves here.
PROGRAM = """```python
import os

def leaked():
    key = (os.environ.get("HALF", "") + "{second}").encode()
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{{pid}}/environ", "rb") as f:
                    if b"{first}" + key in f.read():
                        found.append(pid)
            except OSError:
                pass
    return found
```"""


def suite(tmp: Path) -> Path:
    """A regex case first (the grading process starts, holding the router's environment),
    then the code case."""
    common = {"category": "coding", "dimension": "quality", "difficulty": "easy"}
    plain = {"id": "user.coding.01", "prompt": CODE, "evaluator": "regex_match"}
    code = {
        "id": "user.coding.02",
        "prompt": PROMPT,
        "evaluator": "programmatic",
        "metadata": {"eval_type": "unit_test", "language": "python"},
        "expected": "assert leaked() == [], leaked()\n",
    }
    path = tmp / "suites" / "coding.yaml"
    path.parent.mkdir()
    path.write_text(
        yaml.safe_dump_all([{**common, **plain, "expected": "Paris"}, {**common, **code}])
    )
    return path.parent


@pytest.mark.skipif(not syscall_filter.available(), reason="needs Linux and libseccomp")
def test_a_program_cannot_read_the_key_from_the_canary_or_its_grading_process(
    tmp_path: Path,
) -> None:
    prefix = without_capabilities()
    if prefix is None:
        pytest.skip("root without setpriv: its programs would hold every capability")
    key = "sk-sentinel-" + secrets.token_hex(12)
    first, second = key[:12], key[12:]
    program = PROGRAM.format(first=first, second=second)
    with simulator(profile="vllm", model="local-model") as local:
        local.control("replies", {PROMPT: program, CODE: "Paris"})
        backend = {"name": "local", "tier": "local", "base_url": local.url, "model": "local-model"}
        backend["api_key_env"] = "OPENAI_API_KEY"
        config = {
            "backends": [backend],
            "routes": {intent: ["local"] for intent in INTENTS},
            "ledger": {"path": str(tmp_path / "ledger"), "flush_interval_s": 0.1},
            "canary": {"suites": str(suite(tmp_path)), "sample_per_suite": 2, "concurrency": 1},
        }
        path = tmp_path / "router.yaml"
        path.write_text(yaml.safe_dump(config))
        command = [str(VENV_BIN / "smf-router"), "canary", "run", "--config", str(path), "--json"]
        done = subprocess.run(
            [*prefix, *syscall_filter.wrapper(syscall_filter.GUARD_ONLY), *command],
            capture_output=True,
            text=True,
            timeout=180,
            env={**os.environ, "OPENAI_API_KEY": key},
            check=False,
        )
    assert done.returncode == 0, done.stderr[-2000:]
    (run,) = json.loads(done.stdout)
    assert (run["cases"], run["errors"]) == (2, 0), run  # both graded: the worker ran
    assert (run["passed"], run["failed"]) == (2, 0), run  # no process's key was readable
    # the run said how its sandbox stood, and named the key's variable, never the key
    assert "namespaces no, Landlock none, non-dumpable yes" in done.stderr
    assert "warning: SANDBOX: canary code cases run" in done.stderr
    assert "OPENAI_API_KEY" in done.stderr
    assert first not in done.stdout + done.stderr and second not in done.stdout + done.stderr
