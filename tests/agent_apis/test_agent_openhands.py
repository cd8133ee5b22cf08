"""An OpenHands Software Agent SDK session is served as a coding agent's, its side calls where
their conversation goes (`classifier.openhands`, `classifier.harness_tools`).

Found running the SDK 1.58.2 against the router: its tools held one name the router knew, so
"Why does main() return 0 even when the upload fails?" was reasoning 0.64 and went to the
cloud; its title call was read by its fixed words (a poem's instruction 0.59), and sent
before the agent's first turn it pinned a poem's conversation (one `prompt_cache_key`) to
`local`; its condenser's summary request was recorded as writing, and (the CLI 1.16.0's)
as `unknown` on the default route. The bodies are the ones it sent
(`tests/fixtures/openhands-sdk-1.58.2.md`); real sockets, the official SDK, a real DuckDB
ledger, the simulators as backends. The pinned conversation is a caller's of its own: a
conversation is scoped by the caller's key, and no other test's pin holds it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from classifier.rules import CONDENSER
from tests.agent_apis.agent_stack import explained
from tests.agent_apis.served import served, served_as_read
from tests.agent_apis.sticky_stack import ledger_rows, pinned_headers
from tests.harness import Collect, RunningRouter

FIXTURES = Path(__file__).parents[1] / "fixtures" / "openhands-sdk-1.58.2"
CLI = Path(__file__).parents[1] / "fixtures" / "openhands-cli-1.16.0"
HAIKU = "Write a haiku about autumn rain."
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


@pytest.mark.parametrize("fixtures", [FIXTURES, CLI])
def test_the_condensers_summary_request_is_its_agents_coding_work(
    default_proxy: RunningRouter, fixtures: Path
) -> None:
    """Nothing of it read as an ask, and coding by a rule, not `unknown` on the default route
    (the CLI 1.16.0's, one user message with no `prompt_cache_key`, went local while its
    haiku session was on the cloud): the coding route, wherever its session is."""
    body = dict(json.loads((fixtures / "condenser.json").read_text(encoding="utf-8")))
    plan = explained(default_proxy, body, None)
    read = plan["classifier"]["read"]
    assert (read["latest_chars"], read["first_chars"]) == (0, 0)
    assert plan["classifier"]["rule"] == CONDENSER
    assert served(default_proxy, body) == ("coding", "local")


def test_the_summary_in_a_later_turn_is_no_ask(default_proxy: RunningRouter) -> None:
    """The CLI 1.16.0's turn after a condensation, its first 4 events kept (system prompt,
    ask, call, result), then the summary in the condenser's fields: the first ask is read,
    prose for the cloud. Read as the ask, the summary was coding 0.9 by "stats.py"."""
    body = dict(json.loads((CLI / "agent-after-summary.json").read_text(encoding="utf-8")))
    system, _, call, result = body["messages"]
    summary = (
        "USER_CONTEXT: User asked for a haiku about autumn rain.\nCOMPLETED: Listed the"
        " working directory (stats.py only); wrote the haiku.\nPENDING: None."
    )
    body["messages"] = [
        system,
        {"role": "user", "content": [{"type": "text", "text": HAIKU}]},
        call,
        result,
        {"role": "user", "content": [{"type": "text", "text": summary}]},
        call,
        result,
    ]
    served_as_read(default_proxy, body, HAIKU, ("prose", "cloud"))
