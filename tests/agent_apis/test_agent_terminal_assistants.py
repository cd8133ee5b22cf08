"""Open Interpreter's turn after a code run and gptme's nag for a tool call are passed over
for the user's ask (`classifier.terminal_assistant`).

Open Interpreter 0.4.3 (text mode, `openai/auto`) sends each run's output back in a user
message of its own, and gptme 0.35.1 (`-n`) answers a reply with no tool call with one.
Read as the ask, one Open Interpreter conversation was coding 0.43, math 0.62, then
tool_calling 0.46 on a request without tools, and gptme's task coding 0.67: only a sticky
pin kept the backend (found running both against the router). The bodies are the ones they
sent (`tests/fixtures/open-interpreter-0.4.3.md`, `tests/fixtures/gptme-0.35.1.md`); real
sockets, the official SDK, the simulators as backends.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.agent_apis.agent_stack import explained
from tests.agent_apis.served import served
from tests.agent_docs import agent_section
from tests.harness import RunningRouter

FIXTURES = Path(__file__).parents[1] / "fixtures"
OI_ASK = "What is 2 to the power of 100? Compute it with code."
MATH = "What is 17 * 23?"


@pytest.fixture(scope="module")
def proxy(default_proxy: RunningRouter) -> RunningRouter:
    """The router over a vLLM `local` and a `cloud`, the default routes."""
    return default_proxy


def captured(name: str) -> dict[str, Any]:
    """A recorded body, sent whole rather than streamed (`served` reads the headers)."""
    body = dict(json.loads((FIXTURES / name).read_text(encoding="utf-8")))
    body.pop("stream", None)
    body.pop("stream_options", None)
    return body


def prefix(body: dict[str, Any], count: int) -> dict[str, Any]:
    return {**body, "messages": body["messages"][:count]}


def assert_read_as(proxy: RunningRouter, body: dict[str, Any], first: dict[str, Any]) -> str:
    """`body` is read, planned and served as the request `first` of its conversation: its
    ask alone, no agent session's rule. The intent."""
    plan, alone = explained(proxy, body), explained(proxy, first)
    assert plan["classifier"]["read"] == alone["classifier"]["read"]
    assert plan["intent"] == alone["intent"]
    assert plan["classifier"]["rule"] is None
    intent, backend = served(proxy, body)
    assert (intent, backend) == served(proxy, first)
    return intent


def test_open_interpreters_turns_after_its_runs_are_served_as_its_ask(
    proxy: RunningRouter,
) -> None:
    body = captured("open-interpreter-0.4.3/after-two-runs.json")
    first = prefix(body, 2)
    assert first["messages"][-1]["content"] == OI_ASK
    for count in (4, 6):  # after a run with output, then one without
        assert body["messages"][count - 1]["role"] == "user"
        assert assert_read_as(proxy, prefix(body, count), first) == "coding"
    assert explained(proxy, body)["classifier"]["read"]["latest_chars"] == len(OI_ASK)


def test_a_math_ask_is_served_as_math_after_its_run(proxy: RunningRouter) -> None:
    """Read past to the ask, the turn after a run is math as the first was, not coding by
    a coding agent's session: the first turn held none of Open Interpreter's texts."""
    recorded = captured("open-interpreter-0.4.3/after-two-runs.json")
    system, *_, no_output = recorded["messages"]
    run = {"role": "assistant", "content": "```python\nprint(17 * 23)\n```"}
    first = {**recorded, "messages": [system, {"role": "user", "content": MATH}]}
    after = {**first, "messages": [*first["messages"], run, no_output]}
    assert assert_read_as(proxy, after, first) == "math"


def test_gptmes_nag_is_served_as_its_task(proxy: RunningRouter) -> None:
    body = captured("gptme-0.35.1/no-tool-nag.json")
    nag = body["messages"][-1]["content"][0]["text"]
    assert nag.startswith("<system>No tool call detected in last message.")
    assert assert_read_as(proxy, body, prefix(body, 4)) == "coding"


# What llm 0.36 reads of an `extra-openai-models.yaml` entry (`register_models` in
# `llm/default_plugins/openai_models.py`), of those the page uses
LLM_KEYS = {
    "model_id", "model_name", "api_base", "api_key_name", "responses", "supports_tools",
    "supports_schema",
}  # fmt: skip


def test_the_pages_llm_models_are_the_routers() -> None:
    """Each of the page's llm models asks for `auto` at the router's `/v1`, with keys llm
    reads; one speaks the Responses API."""
    section = agent_section("terminal-assistants.md", "llm (chat, Responses)")
    models = yaml.safe_load(section.split("```yaml", 1)[1].split("```", 1)[0])
    assert [m["model_name"] for m in models] == ["auto", "auto"]
    assert {m["api_base"] for m in models} == {"http://localhost:4000/v1"}
    assert all(set(m) <= LLM_KEYS for m in models)
    assert [bool(m.get("responses")) for m in models] == [False, True]
