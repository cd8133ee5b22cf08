"""Eval tools' requests through the router: inspect_ai's multiple-choice questions are served
as their question is, its and promptfoo's graders' requests as reasoning, whatever they grade
(`classifier.inspect_ai`, `classifier.promptfoo`), and deepeval's and ragas's judges'
(`classifier.deepeval`, `classifier.ragas`).

Found running inspect_ai 0.3.285 and promptfoo 0.121.20 against the router: every
multiple-choice question was instruction and stayed local, a code answer's grade was coding
and went to the local model that wrote the code, and promptfoo's closed-QA grade, a system
message alone, was read as nothing (the default route). The bodies are the ones they sent
(`tests/fixtures/inspect-ai-0.3.285.md`, `tests/fixtures/promptfoo-0.121.20.md`); real
sockets, the official SDK, the simulators as backends.
"""

from __future__ import annotations

from typing import Any

import pytest

from classifier.rules import GRADER
from tests import recorded
from tests.agent_apis.agent_stack import explained
from tests.agent_apis.served import served, served_as_read, served_by_default
from tests.harness import RunningRouter

FIXTURES = recorded.FIXTURES
INSPECT, PROMPTFOO = "inspect-ai-0.3.285", "promptfoo-0.121.20"
DEEPEVAL, RAGAS = "deepeval-4.3.1", "ragas-0.4.3"


def captured(tool: str, name: str) -> dict[str, Any]:
    return recorded.body(FIXTURES / tool / name)


@pytest.fixture(scope="module")
def proxy(default_proxy: RunningRouter) -> RunningRouter:
    """The router over a vLLM `local` and a `cloud`, the default routes."""
    return default_proxy


@pytest.mark.parametrize(
    ("name", "where"),
    [
        ("multiple-choice-calculus.json", ("math", "cloud")),  # instruction, local before
        ("multiple-choice-cot-logic.json", ("reasoning", "cloud")),
        ("multiple-choice-python.json", ("coding", "local")),
    ],
)
def test_a_multiple_choice_question_is_served_as_its_question(
    proxy: RunningRouter, name: str, where: tuple[str, str]
) -> None:
    body = captured(INSPECT, name)
    text = body["messages"][0]["content"]
    question = text[text.index("\n\n") + 2 :]
    served_as_read(proxy, body, question, where)
    alone = {"model": "auto", "messages": [{"role": "user", "content": question}]}
    assert served(proxy, alone) == where


@pytest.mark.parametrize(
    ("tool", "name"),
    [
        (PROMPTFOO, "llm-rubric-code.json"),  # coding, local before: the coder grading itself
        (PROMPTFOO, "llm-rubric-math.json"),  # math
        (PROMPTFOO, "factuality-code.json"),
        (PROMPTFOO, "closedqa-code.json"),  # a system message alone: unknown, local before
        (PROMPTFOO, "g-eval-steps.json"),
        (INSPECT, "model-graded-qa-code.json"),  # over the Responses API; coding, local before
        (DEEPEVAL, "geval-steps.json"),  # instruction, local before, whatever it graded
        (DEEPEVAL, "faithfulness-claims.json"),  # a code answer's claims: instruction, local
        (RAGAS, "aspect-critic-code.json"),  # coding 0.93, local before
        (RAGAS, "factory-faithfulness-nli.json"),  # instructor's system message first
    ],
)
def test_a_graders_request_is_served_as_reasoning_whatever_it_grades(
    proxy: RunningRouter, tool: str, name: str
) -> None:
    body = captured(tool, name)
    assert served(proxy, body) == ("reasoning", "cloud")
    plan = explained(proxy, body, "responses" if "input" in body else None)
    assert (plan["classifier"]["source"], plan["classifier"]["rule"]) == ("rule", GRADER)


@pytest.mark.parametrize(
    "content",
    [[{"type": "text"}], [{"image_url": {"url": "data:,"}}]],  # a text part's type, no text
)
def test_a_part_of_no_text_is_served_by_default(proxy: RunningRouter, content: Any) -> None:
    """The eval tools' template reader took such a part for a text and failed on it: the
    router answered 500 (found in review). Read as no text, as every reader reads it."""
    served_by_default(proxy, {"model": "auto", "messages": [{"role": "user", "content": content}]})


def test_a_system_message_of_no_text_leaves_the_question_served_as_it_is(
    proxy: RunningRouter,
) -> None:
    """Its question is math, as alone (unknown, the default route, before: the graders'
    check failed on the system message and the classifier gave up)."""
    question = {"role": "user", "content": "What is 17*23?"}
    body = {
        "model": "auto",
        "messages": [{"role": "system", "content": [{"type": "text"}]}, question],
    }
    assert served(proxy, body) == served(proxy, {"model": "auto", "messages": [question]})
    assert served(proxy, body)[0] == "math"
