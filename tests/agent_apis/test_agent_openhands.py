"""An OpenHands Software Agent SDK session is served as a coding agent's, its side calls where
their conversation goes (`classifier.openhands`, `classifier.harness_tools`).

Found running the SDK 1.58.2 against the router: its tools held one name the router knew, so
"Why does main() return 0 even when the upload fails?" was reasoning 0.64 and went to the
cloud; its title call was read by its fixed words (a poem's instruction 0.59), and sent
before the agent's first turn it pinned a poem's conversation (one `prompt_cache_key`) to
`local`; its condenser's summary request was recorded as writing. The bodies are the ones it sent
(`tests/fixtures/openhands-sdk-1.58.2.md`); real sockets, the official SDK, a real DuckDB
ledger, the simulators as backends. The pinned conversation is a caller's of its own: a
conversation is scoped by the caller's key, and no other test's pin holds it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.agent_apis.served import served_as_read, served_by_default
from tests.agent_apis.sticky_stack import ledger_rows, pinned_headers
from tests.harness import Collect, RunningRouter

FIXTURES = Path(__file__).parents[1] / "fixtures" / "openhands-sdk-1.58.2"
EXPLAIN = "Why does main() return 0 even when the upload fails?"
POEM = "Write a short poem about autumn leaves."
CODE = "Create hello.py printing hi and run it."
KEYS = {"title": "sk-openhands-title-7d2a"}


def captured(name: str, conversation: str | None = None) -> dict[str, Any]:
    """The body `name`, its `prompt_cache_key` set to `conversation` when given."""
    body = dict(json.loads((FIXTURES / name).read_text(encoding="utf-8")))
    if conversation is not None:
        body["prompt_cache_key"] = conversation
    return body


@pytest.mark.parametrize("name", ["agent-explain.json", "agent-skill.json"])
def test_an_unsure_ask_is_a_coding_agents_served_locally(
    default_proxy: RunningRouter, name: str
) -> None:
    """Its 1.x tools say a coding agent's session; a skill's knowledge after the ask
    (`<EXTRA_INFO>`, a second text part) is not read."""
    plan = served_as_read(default_proxy, captured(name), EXPLAIN, ("coding", "local"))
    assert plan["classifier"]["rule"].startswith("agent_session: an agent's built-in tools")


def test_a_title_call_sent_first_pins_its_conversation_where_the_ask_goes(
    pinning: tuple[RunningRouter, Collect],
) -> None:
    """The title call for a poem, then the agent's first turn, one conversation: both prose,
    on the cloud, one conversation in the ledger."""
    title = captured("title-call.json", "title-first-poem")
    part = title["messages"][1]["content"][0]
    part["text"] = part["text"].replace(CODE, POEM)
    turn = captured("agent-prose.json", "title-first-poem")
    headers = [pinned_headers(pinning, KEYS["title"], body) for body in (title, turn)]
    assert [(h["x-smf-intent"], h["x-smf-backend"]) for h in headers] == [("prose", "cloud")] * 2
    ids = [h["x-request-id"] for h in headers]
    rows = ledger_rows(pinning[0], ids)
    assert [row[2:] for row in rows] == [("prose", "cloud")] * 2
    assert rows[0][1] == rows[1][1] is not None


def test_the_condensers_summary_request_asks_nothing(default_proxy: RunningRouter) -> None:
    """Recorded as asking nothing (`unknown`), not as writing: the default route, or where its
    conversation is pinned."""
    served_by_default(default_proxy, captured("condenser.json"))
