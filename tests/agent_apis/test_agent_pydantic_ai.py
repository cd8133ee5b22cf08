"""pydantic-ai's retry feedback is no ask: its retry goes where the ask before it went
(`classifier.pydantic_ai`).

pydantic-ai 2.78.0, when a reply fails its output's validation, sends a user message of its
own: "Your previous response failed the application's validation (this is automated
feedback, not a message from the user):" and the errors in `<pyai:validation_errors>`. Read
as the ask, the retry of "What is the largest city in France?" (reasoning 0.775) was
instruction 0.689 (found in a review of agent frameworks). The bodies are the ones it sent
(`tests/fixtures/pydantic-ai-2.78.0.md`), and its 1.x feedback put in their place; real
sockets, the official SDK, the simulators as backends.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.agent_apis.agent_stack import explained
from tests.agent_apis.served import served
from tests.harness import RunningRouter

FIXTURES = Path(__file__).parents[1] / "fixtures" / "pydantic-ai-2.78.0"
ASK = "What is the largest city in France?"
# Each retry and the first request of its run: chat, or Responses (`input`)
RETRIES = {
    "native-output-retry.json": "native-output.json",
    "prompted-output-retry.json": "native-output.json",
    "responses-prompted-output-retry.json": "responses-prompted-output.json",
}
# pydantic-ai 1.x's feedback for the same errors, and for a validator's message, as
# `RetryPromptPart.model_response` (kept, deprecated, in 2.78.0) writes them
BARE = [
    '1 validation error:\n```json\n[\n  {\n    "type": "json_invalid",\n    "loc": [],\n'
    '    "msg": "Invalid JSON: expected value at line 1 column 1"\n  }\n]\n```\n\n'
    "Fix the errors and try again.",
    "Validation feedback:\nThe population must be positive\n\nFix the errors and try again.",
]


def captured(name: str) -> dict[str, Any]:
    return dict(json.loads((FIXTURES / name).read_text(encoding="utf-8")))


def turns(body: dict[str, Any]) -> list[dict[str, Any]]:
    return list(body.get("messages") or body["input"])


@pytest.fixture(scope="module")
def proxy(default_proxy: RunningRouter) -> RunningRouter:
    """The router over a vLLM `local` and a `cloud`, the default routes."""
    return default_proxy


def explained_ask(proxy: RunningRouter, body: dict[str, Any]) -> dict[str, Any]:
    return explained(proxy, body, "responses" if "input" in body else None)


@pytest.mark.parametrize("name", RETRIES)
def test_a_retry_goes_where_its_ask_went(proxy: RunningRouter, name: str) -> None:
    body = captured(name)
    roles = [turn["role"] for turn in turns(body)]
    assert roles[-4:] == ["user", "assistant", "system", "user"]
    assert turns(body)[-1]["content"].startswith("Your previous response failed")
    first = served(proxy, captured(RETRIES[name]))
    assert first == ("reasoning", "cloud")
    assert served(proxy, body) == first


@pytest.mark.parametrize("name", RETRIES)
def test_explain_reads_the_ask_before_the_feedback(proxy: RunningRouter, name: str) -> None:
    plan = explained_ask(proxy, captured(name))
    read = plan["classifier"]["read"]
    assert (read["latest_chars"], read["first_chars"]) == (len(ASK), 0)
    # pydantic-ai is no coding agent: its feedback makes the request no agent's session
    assert (plan["intent"]["label"], plan["classifier"]["rule"]) == ("reasoning", None)


@pytest.mark.parametrize("feedback", BARE)
def test_its_1x_feedback_is_passed_over_alike(proxy: RunningRouter, feedback: str) -> None:
    body = captured("native-output-retry.json")
    body["messages"] = [*body["messages"][:2], {"role": "user", "content": feedback}]
    assert served(proxy, body) == ("reasoning", "cloud")
    assert explained(proxy, body)["classifier"]["read"]["latest_chars"] == len(ASK)


def test_the_feedback_with_no_reply_before_it_is_read_as_written(proxy: RunningRouter) -> None:
    """Not after a response it answers, the same words are a user's: read, all of them."""
    feedback = turns(captured("native-output-retry.json"))[-1]["content"]
    body = {"model": "auto", "messages": [{"role": "user", "content": feedback}]}
    assert explained(proxy, body)["classifier"]["read"]["latest_chars"] == len(feedback)
