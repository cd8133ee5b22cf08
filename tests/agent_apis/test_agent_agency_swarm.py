"""agency-swarm's CEO delegating to its Developer is served locally as tool_calling, over
chat completions and the Responses API alike, while the Developer's own request is read by its
ask (`classifier.agency_swarm`).

Found in a live review of agency-swarm 1.11.0: "Tell the Developer to draft a short status
report on the API migration." with `send_message` offered was writing 0.87 and went to the
cloud. The bodies are the ones it sent (`tests/fixtures/agency-swarm-1.11.0.md`); real
sockets, the official SDK, the simulators as backends.
"""

from __future__ import annotations

from tests import recorded
from tests.agent_apis.served import served
from tests.harness import RunningRouter

FIXTURES = recorded.FIXTURES / "agency-swarm-1.11.0"
captured = recorded.loader(FIXTURES)
TELL = "Tell the Developer to draft a short status report on the API migration."


def test_the_ceos_delegation_is_tool_calling_on_the_local_backend(
    default_proxy: RunningRouter,
) -> None:
    """Over chat completions, and its ask sent through the Responses API as the SDK's
    default model sends it: tool_calling, local."""
    assert served(default_proxy, captured("ceo-tell-draft.json")) == ("tool_calling", "local")
    responses = captured("ceo-responses-ask.json")
    responses["input"][0]["content"] = TELL
    assert served(default_proxy, responses) == ("tool_calling", "local")


def test_the_developers_own_request_is_read_by_its_ask(default_proxy: RunningRouter) -> None:
    """The Developer's request, its own tool offered, is read by the model as before."""
    assert served(default_proxy, captured("developer-tell-draft.json")) == ("writing", "cloud")
