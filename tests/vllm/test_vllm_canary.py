"""The product's canary suites, run by the eval runner against vLLM's real server.

Scores are near zero with a random-weight model; the point is that every path of the runner
(asking, parsing real replies, grading, the error path) runs on what vLLM really sends.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from vllm_process import MAX_MODEL_LEN, MODEL_NAME

from evals.suite import load

REPO = Path(__file__).resolve().parents[2]
SUITES = REPO / "evals" / "suites"


def run_evals(base_url: str, suites: Path, out: Path) -> dict[str, Any]:
    command = [
        sys.executable, "-m", "evals", "run", "--endpoint", f"{base_url}/v1",
        "--model", MODEL_NAME, "--suites", str(suites), "--concurrency", "2",
        "--timeout", "60", "--out", str(out), "--no-progress",
    ]  # fmt: skip
    subprocess.run(command, check=True, timeout=280, cwd=REPO, capture_output=True)
    document: dict[str, Any] = json.loads(out.read_text())
    return document


@pytest.mark.timeout(300)  # ~10 cases each decode up to the 512-token window on 2 CPU cores
def test_canary_suites_run_and_are_graded_on_real_vllm_replies(
    vllm_base_url: str, tmp_path: Path
) -> None:
    """Cases that fit the 512-token window are graded on real replies (with vLLM's usage);
    cases asking for more output than the window get vLLM's 400 as an honest error."""
    doc = run_evals(vllm_base_url, SUITES, tmp_path / "all.json")
    asked = {case.id: case.max_tokens for case in load(SUITES)}
    graded = 0
    for case in doc["cases"]:
        if case["status"] == "n/a":
            continue
        if asked[case["id"]] > MAX_MODEL_LEN:
            assert case["status"] == "error", case
            assert "max_tokens" in case["detail"], case
        else:
            assert case["status"] in ("pass", "fail"), case
            assert case["completion_tokens"], case  # vLLM's own usage came through
            graded += 1
    assert graded >= 1
