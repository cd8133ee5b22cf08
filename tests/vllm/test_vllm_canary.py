"""The product's canary suites, run by the eval runner against vLLM's real server.

Scores are near zero with a random-weight model; the point is that every path of the runner
(asking, parsing real replies, every grader, the error path) runs on what vLLM really sends.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from vllm_process import MAX_MODEL_LEN, MODEL_NAME

from evals.endpoint import Endpoint
from evals.runner import run_cases
from evals.suite import load

REPO = Path(__file__).resolve().parents[2]
SUITES = REPO / "evals" / "suites"


@pytest.mark.timeout(300)  # ~11 answers of up to ~400 tokens on 2 busy CPU cores
def test_cli_fits_answers_into_the_window_vllm_states(vllm_base_url: str, tmp_path: Path) -> None:
    """`python -m evals run` as shipped, on the math suite (max_tokens 1024-4096, each over
    the 512-token window, which vLLM rejects with a 400): the CLI reads max_model_len from
    vLLM's models card and cuts each answer to fit, so no case is an error."""
    out = tmp_path / "results.json"
    command = [
        sys.executable, "-m", "evals", "run", "--endpoint", f"{vllm_base_url}/v1",
        "--model", MODEL_NAME, "--suites", str(SUITES / "math"), "--concurrency", "2",
        "--timeout", "120", "--out", str(out), "--no-progress",
    ]  # fmt: skip
    subprocess.run(command, check=True, timeout=280, cwd=REPO, capture_output=True)
    doc: dict[str, Any] = json.loads(out.read_text())
    asked = {case.id: case.max_tokens for case in load(SUITES / "math")}
    assert {c["id"] for c in doc["cases"]} == set(asked)
    assert all(tokens > MAX_MODEL_LEN for tokens in asked.values())
    assert doc["run"]["context_window"] == MAX_MODEL_LEN
    statuses = [c["status"] for c in doc["cases"]]
    assert "error" not in statuses, [c["detail"] for c in doc["cases"] if c["status"] == "error"]
    assert {"pass", "fail"} & set(statuses), "no case was graded"
    for case in doc["cases"]:
        if case["status"] in ("pass", "fail"):
            assert case["completion_tokens"] <= MAX_MODEL_LEN, case


@pytest.mark.timeout(300)  # 74 cases x 48 tokens on 2 busy CPU cores
def test_every_grader_runs_on_real_vllm_replies(vllm_base_url: str) -> None:
    """The same cases with max_tokens capped to fit the window: each is graded (pass/fail,
    with vLLM's own completion_tokens) unless its prompt alone exceeds the window."""
    cases = [dataclasses.replace(c, max_tokens=min(c.max_tokens, 48)) for c in load(SUITES)]
    endpoint = Endpoint(f"{vllm_base_url}/v1", MODEL_NAME)
    results = asyncio.run(run_cases(cases, endpoint, concurrency=2, timeout_s=120))
    graded_by: dict[str, int] = {}
    for result in results:
        if result.status == "error":
            assert "maximum context length" in result.detail, (result.id, result.detail)
        elif result.status in ("pass", "fail"):
            assert result.completion_tokens, result.id
            graded_by[result.evaluator] = graded_by.get(result.evaluator, 0) + 1
    assert graded_by, "no case was graded on a real reply"
    print(f"graded per evaluator: {graded_by}")
