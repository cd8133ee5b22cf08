"""Claude Code's tool search over a chat backend: a ToolSearch result's `tool_reference`
blocks become lines the model reads, and a deferred tool (`defer_loading`) is offered once a
reference loaded it.

The shapes are a request of Claude Code 2.1.337 under the Claude Agent SDK 0.2.190, trimmed
(its 8th, recorded live): the model called ToolSearch, and the result loaded five deferred
tools, which the request sends with `defer_loading: true` beside `DeferredToolPlaceholder`.
A chat backend got an empty tool message and the placeholder as a function it could call.
"""

from __future__ import annotations

import copy
from typing import Any

import httpx
import pytest

from router.translate import anthropic_request
from router.translate.view import chat_view
from tests.agent_apis.agent_stack import anthropic_client
from tests.harness import Running, RunningRouter

_OBJECT = {"type": "object", "properties": {}}
LOADED = ["Monitor", "TaskStop", "ExitWorktree", "SendMessage", "CronCreate"]
PLACEHOLDER = {
    "name": "DeferredToolPlaceholder",
    "description": (
        "Reserved placeholder that keeps deferred tool loading active; never call this tool."
    ),
    "input_schema": _OBJECT,
    "defer_loading": True,
}
TOOLS: list[dict[str, Any]] = [
    {"name": "Bash", "description": "Executes a bash command.", "input_schema": _OBJECT},
    *(
        {"name": n, "description": f"{n}.", "input_schema": _OBJECT, "defer_loading": True}
        for n in LOADED
    ),
    {
        "name": "ToolSearch",
        "description": "Fetches full schema definitions for deferred tools so they can be called.",
        "input_schema": {
            "type": "object",
            "properties": {"query": {"type": "string"}},
            "required": ["query"],
        },
    },
    PLACEHOLDER,
    {"name": "Write", "description": "Writes a file.", "input_schema": _OBJECT},
]
SEARCH_ID = "chatcmpl-tool-cd447e35b8b6d8fe"
ASK = "Use ToolSearch to load get_weather, then get the weather in Paris."
SEARCHED: dict[str, Any] = {
    "model": "auto",
    "max_tokens": 8000,
    "system": [
        {"type": "text", "text": "You are a Claude agent, built on Anthropic's Claude Agent SDK."}
    ],
    "tools": TOOLS,
    "messages": [
        {"role": "user", "content": [{"type": "text", "text": ASK}]},
        {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": SEARCH_ID,
                    "name": "ToolSearch",
                    "input": {"query": "Use ToolSearch to load get_weather, then"},
                }
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": SEARCH_ID,
                    "content": [{"type": "tool_reference", "tool_name": n} for n in LOADED],
                    "cache_control": {"type": "ephemeral"},
                }
            ],
        },
    ],
}
FIRST_TURN = {**SEARCHED, "messages": SEARCHED["messages"][:1]}


def names(chat: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in chat.get("tools", ())]


def test_the_references_are_lines_of_the_tool_message() -> None:
    """It was `{"role": "tool", "content": ""}`: the model never learnt what it loaded."""
    tool = anthropic_request.to_chat(SEARCHED)["messages"][-1]
    assert tool == {
        "role": "tool",
        "tool_call_id": SEARCH_ID,
        "content": "\n".join(f"Tool loaded: {n}" for n in LOADED),
    }


def test_a_deferred_tool_is_offered_once_a_reference_loaded_it() -> None:
    """The placeholder, deferred and named by no reference, is never offered; before the
    search only the tools without the flag are."""
    assert names(anthropic_request.to_chat(SEARCHED)) == [
        "Bash",
        *LOADED,
        "ToolSearch",
        "Write",
    ]
    assert names(anthropic_request.to_chat(FIRST_TURN)) == ["Bash", "ToolSearch", "Write"]
    # no function of the chat body carries the flag
    assert all(set(t) == {"type", "function"} for t in anthropic_request.to_chat(SEARCHED)["tools"])


def test_a_tool_choice_of_an_unloaded_tool_is_dropped() -> None:
    chosen = {**FIRST_TURN, "tool_choice": {"type": "tool", "name": "Monitor"}}
    assert "tool_choice" not in anthropic_request.to_chat(chosen)
    loaded = {**SEARCHED, "tool_choice": {"type": "tool", "name": "Monitor"}}
    assert anthropic_request.to_chat(loaded)["tool_choice"]["function"]["name"] == "Monitor"


def test_a_server_tool_searchs_references_load_too() -> None:
    """Anthropic's own search answers in the assistant turn (`tool_search_tool_result`)."""
    result = {
        "type": "tool_search_tool_result",
        "tool_use_id": "srvtoolu_1",
        "content": {
            "type": "tool_search_tool_search_result",
            "tool_references": [{"type": "tool_reference", "tool_name": "Monitor"}],
        },
    }
    body = copy.deepcopy(FIRST_TURN)
    body["messages"].append({"role": "assistant", "content": [result]})
    assert names(anthropic_request.to_chat(body)) == ["Bash", "Monitor", "ToolSearch", "Write"]


def test_the_classifiers_view_is_unchanged() -> None:
    """It reads the toolset sent, and no router's words as the agent's."""
    view = chat_view("messages", SEARCHED)
    assert names(view) == [t["name"] for t in TOOLS]
    assert view["messages"][-1]["content"] == ""


@pytest.mark.parametrize("backend", ["local", "cloud"])
def test_a_chat_backend_gets_the_loaded_tools_and_the_lines(
    chat_proxy: RunningRouter, chat_sims: dict[str, Running], backend: str
) -> None:
    """Through the router to vLLM's profile and to a chat cloud, as Claude Code sends it."""
    with anthropic_client(chat_proxy).messages.with_streaming_response.create(
        **{**SEARCHED, "model": backend}
    ) as answer:
        assert answer.status_code == 200
        answer.read()
    sent = chat_sims[backend].stats()["last_request"]
    assert names(sent) == ["Bash", *LOADED, "ToolSearch", "Write"]
    assert sent["messages"][-1]["content"].splitlines() == [f"Tool loaded: {n}" for n in LOADED]


MALFORMED = [None, ["Monitor"], {"name": "Monitor"}]


@pytest.mark.parametrize("name", MALFORMED, ids=["none", "list", "dict"])
def test_a_reference_naming_no_string_loads_nothing(
    chat_proxy: RunningRouter, chat_sims: dict[str, Running], name: Any
) -> None:
    """A list or an object there was hashed: the router's own 500 (found in review)."""
    body = copy.deepcopy({**SEARCHED, "model": "local"})
    body["messages"][-1]["content"][0]["content"] = [{"type": "tool_reference", "tool_name": name}]
    answer = httpx.post(f"{chat_proxy.url}/messages", json=body, trust_env=False, timeout=30)
    assert answer.status_code == 200, answer.text
    assert answer.json()["type"] == "message"
    assert names(chat_sims["local"].stats()["last_request"]) == ["Bash", "ToolSearch", "Write"]


@pytest.mark.parametrize("name", MALFORMED, ids=["none", "list", "dict"])
def test_a_deferred_tool_named_by_no_string_is_passed_on_as_before(
    chat_proxy: RunningRouter, chat_sims: dict[str, Running], name: Any
) -> None:
    """No search can load it: it goes to the backend as it did before tool search was
    translated, for the backend to take or refuse (it was the router's own 500)."""
    odd = {"name": name, "input_schema": _OBJECT, "defer_loading": True}
    body = {**SEARCHED, "model": "cloud", "tools": [*TOOLS, odd]}
    answer = httpx.post(f"{chat_proxy.url}/messages", json=body, trust_env=False, timeout=30)
    assert answer.status_code != 500, answer.text
    assert answer.json()["type"] in ("message", "error")
    sent = chat_sims["cloud"].stats()["last_request"]
    assert [t["function"]["name"] for t in sent["tools"]][-1] == name
