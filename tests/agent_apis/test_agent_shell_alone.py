"""An agent offering a shell alone (open-codex's one tool, `shell`): an ask that names a
source file is served as coding, locally, where it went to the cloud as reasoning.

Found live: "Explain what calc.py does." in open-codex was reasoning 0.89 and routed to the
cloud; its one tool names no coding agent, so no agent's session was read
(`classifier.rules.offered_file_intent`). Real sockets, the official SDK, the simulators as
backends (a vLLM `local`, the default routes); the intent is the router's `x-smf-intent`.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.agent_apis.agent_stack import explained
from tests.agent_apis.served import served
from tests.classifier.test_classifier_offered_file import FILE_ASKS, SHELL, asked
from tests.harness import RunningRouter


@pytest.fixture(scope="module")
def proxy(default_proxy: RunningRouter) -> RunningRouter:
    """The router over a vLLM `local` and a `cloud`, the default routes."""
    return default_proxy


def sent(ask: str, **extra: Any) -> dict[str, Any]:
    """The ask as the agent sends it: a whole reply, at most a few tokens of it."""
    return {**asked(ask, **extra), "max_tokens": 16}


@pytest.mark.parametrize("ask", FILE_ASKS)
def test_an_ask_naming_a_source_file_is_served_locally_as_coding(
    proxy: RunningRouter, ask: str
) -> None:
    body = sent(ask, tools=[SHELL])
    assert served(proxy, body) == ("coding", "local")
    rule = explained(proxy, body)["classifier"]["rule"]
    assert rule.endswith(f"names a source file: {FILE_ASKS[ask]}")


def test_the_same_ask_in_a_chat_with_no_tools_stays_the_models(proxy: RunningRouter) -> None:
    """No tools offered: the question about calc.py is the reasoning the model reads."""
    body = sent("Explain what calc.py does.")
    assert explained(proxy, body)["classifier"]["rule"] is None
    assert served(proxy, body) == ("reasoning", "cloud")
