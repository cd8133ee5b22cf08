"""A framework's call that only picks who does the work pins nothing of its run
(`classifier.side_request`, `router.sticky_pins`): fast-agent's router's and planner's,
mcp-agent's LLM router's and intent classifier's, n8n's Text Classifier's.

With one session id across a fast-agent run (its guide's `x-smf-session-id`), the run's first
call, the router's, instruction on the local backend, finished first and pinned the run: the
poem the chosen agent then wrote, prose, was served by the local model, `reason: sticky`
(found in review). The routing bodies are the ones each app sent
(`tests/fixtures/fast-agent-mcp-0.2.36.md`, `mcp-agent-0.2.6.md`, `n8n-2.41.1.md`); the
poet's request is fast-agent's for its `poet` agent. Real sockets, the simulators as
backends, the official `openai` SDK, streamed and read to the end as fast-agent reads them.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import openai
import pytest

from tests.agent_apis import sticky_stack
from tests.harness import Collect, RunningRouter
from tests.resilience.conftest import until

FIXTURES = Path(__file__).parents[1] / "fixtures"
KEYS = {"side-calls": "sk-side-calls-7d1c"}
KEY = KEYS["side-calls"]
SESSION = "x-smf-session-id"
# Each app's call that picks who does the work, as it sent it
ROUTING = {
    "fast-agent-router": "fast-agent-mcp-0.2.36/router.json",
    "fast-agent-planner": "fast-agent-mcp-0.2.36/plan-full.json",
    "mcp-agent-router": "mcp-agent-0.2.6/router.json",
    "mcp-agent-intent-classifier": "mcp-agent-0.2.6/intent-classifier.json",
    "n8n-text-classifier": "n8n-2.41.1/classifier-chat.json",
}
# fast-agent's `poet` agent's request, as it sends one (its instruction, the query as a part)
POET = {
    "model": "auto",
    "stream": True,
    "max_tokens": 2048,
    "tools": [],
    "messages": [
        {
            "role": "system",
            "content": "Write a short four-line poem about the topic the user gives.",
        },
        {"role": "user", "content": [{"type": "text", "text": "Write a haiku about the sea"}]},
    ],
}


def fixture(name: str) -> dict[str, Any]:
    body: dict[str, Any] = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    return body


def served(proxy: tuple[RunningRouter, Collect], body: dict[str, Any], session: str) -> str:
    """The backend that served chat `body` of session `session`, sent through the official
    SDK (streamed when `body` streams, read to its end), once its record has finished (its
    conversation pinned by then, if it pins)."""
    running, records = proxy
    finished = len(records.records)
    sent = copy.deepcopy(body)
    client = openai.OpenAI(base_url=running.url, api_key=KEY, max_retries=0)
    with client.chat.completions.with_streaming_response.create(
        **sent, extra_headers={SESSION: session}
    ) as raw:
        assert raw.status_code == 200
        raw.read()
        backend = raw.headers["x-smf-backend"]
    until(lambda: len(records.records) > finished, what="the record finished")
    return backend


def first_choice(running: RunningRouter, body: dict[str, Any], session: str) -> dict[str, Any]:
    """The backend the router puts first for chat `body` of session `session`."""
    headers = {SESSION: session, "authorization": f"Bearer {KEY}"}
    return sticky_stack.first_choice(running, body, headers)


@pytest.mark.parametrize("name", ROUTING)
def test_the_routing_call_finishing_first_pins_nothing(
    pinning: tuple[RunningRouter, Collect], name: str
) -> None:
    """The routing call, instruction by rule, is served locally; the run's work that follows,
    a poem, goes by its own route, to the cloud, not `sticky` to the router's backend."""
    session = f"routing-first-{name}"
    assert served(pinning, fixture(ROUTING[name]), session) == "local"
    assert first_choice(pinning[0], POET, session) == {"backend": "cloud", "reason": "route"}
    assert served(pinning, POET, session) == "cloud"


@pytest.mark.parametrize("name", ROUTING)
def test_the_routing_call_follows_its_runs_pin(
    pinning: tuple[RunningRouter, Collect], name: str
) -> None:
    """After the run's work has pinned it (the poem, on the cloud), a routing call of the
    same run is served there, and leaves the pin there."""
    session = f"work-first-{name}"
    assert served(pinning, POET, session) == "cloud"
    pinned = {"backend": "cloud", "reason": "sticky"}
    assert first_choice(pinning[0], fixture(ROUTING[name]), session) == pinned
    assert served(pinning, fixture(ROUTING[name]), session) == "cloud"
    assert first_choice(pinning[0], fixture(ROUTING[name]), session) == pinned
