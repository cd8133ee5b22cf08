"""paper-qa's evidence summaries and answer go where their question goes
(`classifier.paper_qa`).

paper-qa 2026.8.12 sends every call unstreamed. Read as written, its summaries went by their
excerpt and its answer was instruction on the local backend, a math question's too (found
running paper-qa against the router). The bodies are the ones it sent
(`tests/fixtures/paper-qa-2026.8.12.md`), asking a math and a coding question in place of
its own; real sockets, the official SDK, the simulators as backends.
"""

from __future__ import annotations

import pytest

from tests.agent_apis.served import served_as_read
from tests.classifier.test_classifier_paper_qa import READ_BY_QUESTION, asked
from tests.harness import RunningRouter

MATH = "Prove that the cube root of 7 is irrational."
CODE = "Write a Python function that reads the scaffold measurements CSV the paper describes."


@pytest.fixture(scope="module")
def proxy(default_proxy: RunningRouter) -> RunningRouter:
    """The router over a vLLM `local` and a `cloud`, the default routes."""
    return default_proxy


@pytest.mark.parametrize("name", READ_BY_QUESTION)
def test_a_math_questions_summaries_and_answer_go_to_the_cloud(
    proxy: RunningRouter, name: str
) -> None:
    served_as_read(proxy, asked(name, MATH), MATH, ("math", "cloud"))


@pytest.mark.parametrize("name", READ_BY_QUESTION)
def test_a_coding_questions_summaries_and_answer_stay_local(
    proxy: RunningRouter, name: str
) -> None:
    served_as_read(proxy, asked(name, CODE), CODE, ("coding", "local"))
