"""An atomic-agents turn is served where its ask goes, read inside the JSON atomic-agents
wraps it in (`classifier.atomic_agents`).

atomic-agents 1.1.11 sends each user turn as its input schema's JSON,
`{"chat_message":"..."}`: read with its braces, "What is the capital of Australia?" went to
the local backend as instruction 0.40 where plain it is reasoning, on the cloud, and "hi" was
coding 0.33 (found in a live review with instructor's `Mode.JSON_SCHEMA`). The bodies are the
ones it sent (`tests/fixtures/atomic-agents-1.1.11.md`); real sockets, the official SDK, the
simulators as backends.
"""

from __future__ import annotations

import pytest

from tests.agent_apis.served import served, served_as_read, served_by_default
from tests.classifier.test_classifier_atomic_agents import POEM, as_turn, field, parts
from tests.harness import RunningRouter
from tests.recorded import FIXTURES, loader

recorded = loader(FIXTURES / "atomic-agents-1.1.11")


@pytest.mark.parametrize(
    ("ask", "where"),
    [
        (POEM, ("prose", "cloud")),
        ("What is the capital of Australia?", ("reasoning", "cloud")),
    ],
)
def test_a_wrapped_ask_is_served_where_its_words_go(
    default_proxy: RunningRouter, ask: str, where: tuple[str, str]
) -> None:
    body = as_turn("json-schema-poem.json", parts(field(ask)))
    plan = served_as_read(default_proxy, body, ask, where)
    assert plan["classifier"]["source"] == "model"


def test_a_wrapped_greeting_takes_the_default_route(default_proxy: RunningRouter) -> None:
    served_by_default(default_proxy, as_turn("json-schema-poem.json", parts(field("hi"))))


def test_its_tool_mode_is_served_locally_as_a_tool_call(default_proxy: RunningRouter) -> None:
    """`Mode.TOOLS` forces its output tool: the policy on a forced call, whatever the ask."""
    assert served(default_proxy, recorded("tools-poem.json")) == ("tool_calling", "local")
