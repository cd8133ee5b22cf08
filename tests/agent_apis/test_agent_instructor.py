"""instructor's retry after a reply that failed validation is no ask: the retry goes where its
ask went (`classifier.instructor`).

instructor 1.17.0 retries with a user message of its own: "Correct your JSON ONLY RESPONSE,
based on the following errors:" over chat, "Validation Errors found: ... Recall the function
correctly, fix the errors found in the following attempt:" over Messages (ANTHROPIC_JSON).
Read as the ask, a JSON_SCHEMA math ask (0.763, the cloud) was instruction 0.668, an
ANTHROPIC_JSON one (math 0.671) coding 0.834 and 0.978 (found in a live review). The bodies
are the ones it sent (`tests/fixtures/instructor-1.17.0.md`); real sockets, the official SDKs,
the simulators as backends.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anthropic
import pytest

from tests.agent_apis.agent_stack import explained
from tests.agent_apis.served import served
from tests.harness import RunningRouter

FIXTURES = Path(__file__).parents[1] / "fixtures" / "instructor-1.17.0"


def captured(name: str) -> dict[str, Any]:
    return dict(json.loads((FIXTURES / name).read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def proxy(default_proxy: RunningRouter) -> RunningRouter:
    """The router over a vLLM `local` and a `cloud`, the default routes."""
    return default_proxy


def served_messages(proxy: RunningRouter, body: dict[str, Any]) -> tuple[str, str]:
    """`body` to `/v1/messages` through the anthropic SDK: the intent and backend it names."""
    client = anthropic.Anthropic(base_url=proxy.root, api_key="x", max_retries=0)
    raw = client.messages.with_raw_response.create(**body)
    assert raw.http_response.status_code == 200
    raw.parse()
    return raw.headers["x-smf-intent"], raw.headers["x-smf-backend"]


def test_a_json_schema_retry_goes_where_its_ask_went(proxy: RunningRouter) -> None:
    retry = captured("json-schema-retry.json")
    assert retry["messages"][-1]["content"].startswith("Correct your JSON ONLY RESPONSE")
    assert served(proxy, captured("json-schema.json")) == ("math", "cloud")
    assert served(proxy, retry) == ("math", "cloud")


@pytest.mark.parametrize("name", ["anthropic-json-retry.json", "anthropic-json-retry-2.json"])
def test_an_anthropic_json_retry_goes_where_its_ask_went(proxy: RunningRouter, name: str) -> None:
    first = served_messages(proxy, captured("anthropic-json.json"))
    assert first == ("math", "cloud")
    assert served_messages(proxy, captured(name)) == first


@pytest.mark.parametrize(
    ("name", "api", "first", "intent"),
    [
        ("md-json-retry.json", None, "md-json.json", "coding"),
        ("anthropic-json-retry-2.json", "messages", "anthropic-json.json", "math"),
        # a forced call of its one tool: tool_calling, whatever is read
        (
            "anthropic-tools-stream-retry.json",
            "messages",
            "anthropic-tools-stream.json",
            "tool_calling",
        ),
    ],
)
def test_explain_reads_the_ask_before_the_retry(
    proxy: RunningRouter, name: str, api: str | None, first: str, intent: str
) -> None:
    """Read as its first request, whatever the model reads that as (the JSON extraction was
    instruction until complement NB's term, 2026-12-06, coding since: local either way)."""
    body = captured(name)
    ask = body["messages"][0 if api else 1]["content"]
    plan = explained(proxy, body, api)
    read = plan["classifier"]["read"]
    assert (read["latest_chars"], read["first_chars"]) == (len(ask), 0)
    assert plan["intent"]["label"] == explained(proxy, captured(first), api)["intent"]["label"]
    assert plan["intent"]["label"] == intent
    # instructor is no coding agent: its retry makes the request no agent's session
    assert plan["classifier"]["rule"] != "agent_session"
