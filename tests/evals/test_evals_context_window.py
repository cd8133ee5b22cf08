"""Cases ask for answers up to 4,096 tokens; a backend with a smaller window rejects such a
request outright (vLLM: max_tokens greater than max_model_len is a 400) however short the
answer would have been. Answers are cut to fit the window the endpoint states, and a case
whose prompt leaves too little room is N/A there, never an error."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from classifier import INTENTS
from evals.applicability import (
    MIN_ANSWER_TOKENS,
    Capabilities,
    answer_budget,
    not_applicable,
    prompt_tokens_at_most,
)
from evals.suite import SHIPPED, Case, load
from router.canary import Canary, load_cases
from router.config import parse
from router.gating import GateBook
from router.policy import BackendState
from tests.canary.rounds import one_round
from tests.harness import simulator

REPO = Path(__file__).resolve().parents[2]
MATH = load(SHIPPED / "math")
WINDOW = 1024  # below most math cases' max_tokens (1024 to 4096)


def _case(prompt: str, max_tokens: int = 4096) -> Case:
    return dataclasses.replace(MATH[0], prompt=prompt, max_tokens=max_tokens)


def test_without_a_known_window_the_case_asks_what_it_wants() -> None:
    assert answer_budget(_case("2 + 2?"), Capabilities()) == 4096


def test_an_answer_is_cut_to_what_the_window_leaves_after_the_prompt() -> None:
    case = _case("What is 2 + 2? " * 20)
    caps = Capabilities(context_window=WINDOW)
    assert answer_budget(case, caps) == WINDOW - prompt_tokens_at_most(case)
    assert MIN_ANSWER_TOKENS <= answer_budget(case, caps) < WINDOW
    assert not_applicable(case, caps) is None
    small = _case("What is 2 + 2?", max_tokens=100)  # already fits: unchanged
    assert answer_budget(small, caps) == 100


def test_the_prompt_bound_over_counts_english_and_cjk_alike() -> None:
    english, chinese = _case("word " * 400), _case("诗" * 400)
    assert prompt_tokens_at_most(english) >= 400  # ~1 token per word
    assert prompt_tokens_at_most(chinese) >= 400  # ~1 token per character


def test_a_prompt_that_leaves_too_little_room_is_not_applicable() -> None:
    case = _case("x" * 2 * (WINDOW - 100))
    reason = not_applicable(case, Capabilities(context_window=WINDOW))
    assert reason is not None and f"{WINDOW}-token context window" in reason


def test_cli_reads_the_window_from_the_models_card_and_gets_no_rejection(tmp_path: Path) -> None:
    """`python -m evals run` against a vLLM-shaped endpoint with a 1,024-token window: before
    the cut, the cases asking 2,048 and 4,096 tokens were 400s (errors)."""
    assert any(c.max_tokens > WINDOW for c in MATH)
    out = tmp_path / "results.json"
    with simulator(profile="vllm", model="small", max_model_len=WINDOW) as small:
        command = [
            sys.executable, "-m", "evals", "run", "--endpoint", small.url, "--model", "small",
            "--suites", str(SHIPPED / "math"), "--out", str(out), "--no-progress",
        ]  # fmt: skip
        done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=100)
        assert done.returncode == 0, done.stderr
        asked = small.stats()["last_request"]["max_tokens"]
    doc = json.loads(out.read_text())
    assert doc["run"]["context_window"] == WINDOW
    assert f"context window: {WINDOW} tokens" in done.stdout
    statuses = {c["id"]: c["status"] for c in doc["cases"]}
    assert len(statuses) == len(MATH)
    assert set(statuses.values()) <= {"pass", "fail"}, doc["cases"]
    assert asked <= WINDOW - 64


@pytest.mark.parametrize("learned", [False, True])
def test_the_canary_fits_answers_into_the_window_the_router_knows(
    tmp_path: Path, learned: bool
) -> None:
    """Configured (`context_window`), or learned from `/v1/models` (the state source)."""
    with simulator(profile="vllm", model="small", max_model_len=WINDOW) as small:
        backend = {"name": "local", "tier": "local", "base_url": small.url, "model": "small"}
        config = parse(
            {
                "backends": [backend if learned else {**backend, "context_window": WINDOW}],
                "routes": {intent: ["local"] for intent in INTENTS},
                "ledger": {"path": str(tmp_path / "ledger")},
                "canary": {"enabled": True, "suites": str(SHIPPED / "math"), "sample_per_suite": 8},
            }
        )
        states = {"local": BackendState(context_window=WINDOW)} if learned else {}
        canary = Canary(config, load_cases(config), GateBook({}), states=lambda: states)

        one_round(canary)
    run = canary.last_run["local"]
    assert run["cases"] == 8 and run["errors"] == 0, run


def test_an_explicit_window_wins_over_the_models_card(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    with simulator(profile="vllm", model="small", max_model_len=WINDOW) as small:
        command = [
            sys.executable, "-m", "evals", "run", "--endpoint", small.url, "--model", "small",
            "--suites", str(SHIPPED / "math"), "--out", str(out), "--no-progress",
            "--context-window", "700",
        ]  # fmt: skip
        done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=100)
        assert done.returncode == 0, done.stderr
        asked = small.stats()["last_request"]["max_tokens"]
    assert json.loads(out.read_text())["run"]["context_window"] == 700
    assert asked <= 700 - 64
