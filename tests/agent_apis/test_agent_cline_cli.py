"""The Cline CLI's requests read as a coding agent's session, by its built-in tools.

The Cline CLI (npm `cline` 3.x) offers its own tools (`read_files`, `search_codebase`,
`run_commands`, `fetch_web_content`, `editor`, `ask_question`, `spawn_agent`, `team_*`),
none of which but `spawn_agent` the classifier knew: its short asks were read as they
would be in a chat app, "explain what sync_dir does" reasoning 0.92 and "write unit tests
for build_parser" writing 0.52, both sent to the cloud (found in a live review). The body is
the one it sent (`tests/fixtures/cline-cli-3.0.65.md`); real sockets, the official SDK, the
simulators as backends.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import openai
import pytest

from classifier.harness_tools import HARNESS_TOOLS
from classifier.toolset import tool_name
from tests.agent_apis.agent_stack import explained as explain
from tests.agent_docs import agent_section
from tests.harness import RunningRouter

FIXTURES = Path(__file__).parents[1] / "fixtures" / "cline-cli-3.0.65"
EXPLAIN = "explain what sync_dir does"
# its tools that are a word, an app's own name, or another agent's (listed as that one's)
NOT_ITS_OWN = {"editor", "ask_question", "spawn_agent", "team_status", "team_task"}
NOT_ITS_OWN |= {"team_send_message", "team_broadcast", "team_cleanup"}


def first_turn(ask: str) -> dict[str, Any]:
    body = dict(json.loads((FIXTURES / "first-turn.json").read_text(encoding="utf-8")))
    messages = body["messages"]
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[0]["content"].startswith("You are Cline, an AI coding agent.")
    assert messages[1]["content"] == EXPLAIN
    messages[1]["content"] = ask
    return body


@pytest.fixture(scope="module")
def proxy(default_proxy: RunningRouter) -> RunningRouter:
    """The router over a vLLM `local` and a `cloud`, the default routes."""
    return default_proxy


@pytest.mark.parametrize("ask", [EXPLAIN, "write unit tests for build_parser"])
def test_a_short_ask_is_coding_and_served_locally(proxy: RunningRouter, ask: str) -> None:
    plan = explained(proxy, first_turn(ask))
    assert plan["intent"]["label"] == "coding"
    if ask == EXPLAIN:  # read as reasoning: the session's rule makes it coding
        assert plan["classifier"]["rule"].startswith("agent_session: an agent's built-in tools")
    # "write unit tests for build_parser": the model's coding 0.45 since complement NB's term
    # (2026-12-06), below even odds, was the session rule's to decide; since team round 8
    # (the same day) the model reads it as coding 0.53 itself, and decides
    client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
    body = first_turn(ask)  # streamed, as the Cline CLI asks
    with client.chat.completions.with_streaming_response.create(**body) as raw:
        assert raw.status_code == 200
        raw.read()
        assert (raw.headers["x-smf-intent"], raw.headers["x-smf-backend"]) == ("coding", "local")


def explained(proxy: RunningRouter, body: dict[str, Any]) -> dict[str, Any]:
    return explain(proxy, body)


def test_an_ask_clearly_of_other_work_stays_what_it_is(proxy: RunningRouter) -> None:
    """The session makes an unsure reading coding, not a clear one: a haiku stays prose,
    an integral math. ("why does the login page return 500?" stayed reasoning, read so at
    0.93 under the rule's floor of 0.95 of other work than coding; since complement NB's
    term, 2026-12-06, the model itself reads it as coding in the session.)"""
    assert explained(proxy, first_turn("write a haiku about autumn leaves"))["intent"]["label"] == (
        "prose"
    )
    plan = explained(proxy, first_turn("what is the integral of x^2 sin x?"))
    assert plan["intent"]["label"] == "math" and plan["classifier"]["rule"] is None


def test_its_own_tool_names_are_listed_and_the_others_are_not() -> None:
    """Each tool it offered is the harness's but a word, an app's own name (a team app may
    offer `team_status`), or another agent's already listed (`spawn_agent`: Codex's)."""
    names = {str(tool_name(tool)) for tool in first_turn(EXPLAIN)["tools"]}
    assert len(names) == 25
    assert names - NOT_ITS_OWN <= HARNESS_TOOLS
    assert not (NOT_ITS_OWN - {"spawn_agent"}) & HARNESS_TOOLS
    # what `--yolo` offers in place of these (@cline/core's presets), three of them its own
    assert {"read_files", "run_commands", "submit_and_exit"} <= HARNESS_TOOLS


def test_the_documented_setup_is_the_cli_auth_command() -> None:
    section = agent_section("cline-cli.md", "Cline CLI (chat)")
    assert "cline auth openai-compatible -k <your router key> -m auto -b " in section
