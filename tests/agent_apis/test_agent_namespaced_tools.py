"""Codex's namespaced tools through a chat backend, with the official `openai` SDK.

Codex 0.171 groups its sub-agent tools in one `namespace` tool (`multi_agent_v1`); the
translation to chat dropped the group, and the five tools with it, answering 200 (found in
review). Each is now a chat function of its own, `multi_agent_v1__spawn_agent`, and a call
of one comes back as OpenAI sends it, `name` and `namespace` apart, which is what Codex
dispatches by (`router.translate.namespaces`). The tools are Codex's own as captured from
Codex 0.171.0, their descriptions and schemas trimmed.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from router.translate import exchange, responses_request
from router.translate.namespaces import MAX_NAME
from tests.agent_apis.agent_stack import openai_client
from tests.harness import Running, RunningRouter

TARGET = {"target": {"type": "string", "description": "Agent id (from spawn_agent)."}}


def _function(name: str, description: str, properties: dict[str, Any]) -> dict[str, Any]:
    parameters = {
        "type": "object",
        "properties": properties,
        "required": list(properties)[:1],
        "additionalProperties": False,
    }
    return {
        "type": "function",
        "name": name,
        "description": description,
        "strict": False,
        "parameters": parameters,
    }


SUB_AGENTS: dict[str, Any] = {
    "type": "namespace",
    "name": "multi_agent_v1",
    "description": "Tools for spawning and managing sub-agents.",
    "tools": [
        _function(
            "spawn_agent",
            "Spawn a sub-agent for a well-scoped task.",
            {"message": {"type": "string", "description": "Initial plain-text task."}},
        ),
        _function(
            "wait_agent",
            "Wait for agents to reach a final status.",
            {"targets": {"type": "array", "items": {"type": "string"}}},
        ),
        _function("send_input", "Send a message to an existing agent.", TARGET),
        _function("resume_agent", "Resume a previously closed agent by id.", TARGET),
        _function("close_agent", "Close an agent and any open descendants.", TARGET),
    ],
}
EXEC = _function("exec_command", "Runs a command in a PTY.", {"cmd": {"type": "string"}})
# the namespace first: the simulator calls the first tool it is offered
CODEX_TOOLS: list[Any] = [
    SUB_AGENTS,
    EXEC,
    {"type": "web_search", "external_web_access": False},
]
FLAT = [f"multi_agent_v1__{t['name']}" for t in SUB_AGENTS["tools"]]
ASK = "Spawn a sub-agent to review the tests."


def _offered(server: Running) -> list[str]:
    """The function names the chat backend was offered in its last request."""
    sent: dict[str, Any] = server.stats()["last_request"]
    return [tool["function"]["name"] for tool in sent.get("tools") or ()]


def test_the_chat_backend_is_offered_every_tool_of_the_namespace(
    proxy: RunningRouter, servers: dict[str, Running]
) -> None:
    openai_client(proxy).responses.create(model="cloud", input=ASK, tools=CODEX_TOOLS)
    assert _offered(servers["cloud"]) == [*FLAT, "exec_command"]  # web_search runs at OpenAI
    sent = servers["cloud"].stats()["last_request"]["tools"][0]["function"]
    assert sent["description"] == (
        "Tools for spawning and managing sub-agents.\n\nSpawn a sub-agent for a well-scoped task."
    )
    assert sent["parameters"] == SUB_AGENTS["tools"][0]["parameters"]


def test_a_call_of_a_namespaced_tool_comes_back_under_its_two_names(
    proxy: RunningRouter,
) -> None:
    reply = openai_client(proxy).responses.create(model="cloud", input=ASK, tools=CODEX_TOOLS)
    [call] = [item for item in reply.output if item.type == "function_call"]
    assert (call.namespace, call.name) == ("multi_agent_v1", "spawn_agent")
    assert call.status == "completed" and '"message"' in call.arguments


def test_a_streamed_call_of_a_namespaced_tool_names_both_in_every_event(
    proxy: RunningRouter,
) -> None:
    """Codex builds its history from `output_item.done`: the item it runs, and the one the
    `openai` SDK checks against its `output_item.added` (same id, same type)."""
    with openai_client(proxy).responses.stream(
        model="cloud", input=ASK, tools=CODEX_TOOLS
    ) as stream:
        events = list(stream)
        final = stream.get_final_response()
    items = [
        e.item  # type: ignore[union-attr]
        for e in events
        if e.type in ("response.output_item.added", "response.output_item.done")
        and e.item.type == "function_call"  # type: ignore[union-attr]
    ]
    assert len(items) == 2
    assert {(item.namespace, item.name) for item in items} == {("multi_agent_v1", "spawn_agent")}
    [call] = [item for item in final.output if item.type == "function_call"]
    assert (call.namespace, call.name, call.status) == (
        "multi_agent_v1",
        "spawn_agent",
        "completed",
    )


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_a_replayed_namespaced_call_reaches_the_chat_backend_under_its_chat_name(
    proxy: RunningRouter, servers: dict[str, Running], stream: bool
) -> None:
    """Codex's next turn: the call as it came (with its `namespace`) and the tool's output.
    The chat backend must see the call under the name its tool was offered by, and the
    output paired with it."""
    client = openai_client(proxy)
    first = client.responses.create(model="cloud", input=ASK, tools=CODEX_TOOLS)
    [call] = [item for item in first.output if item.type == "function_call"]
    history: list[Any] = [
        {"type": "message", "role": "user", "content": ASK},
        call.model_dump(exclude_none=True),
        {"type": "function_call_output", "call_id": call.call_id, "output": "agent-7 spawned"},
    ]
    assert history[1]["namespace"] == "multi_agent_v1"
    if stream:
        with client.responses.stream(model="cloud", input=history, tools=CODEX_TOOLS) as s:
            answer = s.get_final_response()
    else:
        answer = client.responses.create(model="cloud", input=history, tools=CODEX_TOOLS)
    assert answer.status == "completed" and answer.output_text  # the result, summed up
    sent = servers["cloud"].stats()["last_request"]["messages"]
    [assistant] = [m for m in sent if m["role"] == "assistant"]
    [replayed] = assistant["tool_calls"]
    assert replayed["function"]["name"] == "multi_agent_v1__spawn_agent"
    assert replayed["id"] == call.call_id
    assert sent[-1] == {"role": "tool", "tool_call_id": call.call_id, "content": "agent-7 spawned"}


def test_a_custom_tool_of_a_namespace_comes_back_as_a_custom_call(proxy: RunningRouter) -> None:
    """A namespace may hold freeform tools too (the `openai` SDK's `NamespaceTool`)."""
    patch = {"type": "custom", "name": "apply_patch", "description": "Apply a patch."}
    tools: list[Any] = [{"type": "namespace", "name": "edits", "description": "", "tools": [patch]}]
    reply = openai_client(proxy).responses.create(model="cloud", input=ASK, tools=tools)
    [call] = [item for item in reply.output if item.type == "custom_tool_call"]
    assert (call.namespace, call.name) == ("edits", "apply_patch")
    assert call.input and not call.input.startswith("{")  # unwrapped from `{"input": ...}`


def test_a_hosted_tool_the_chat_backend_cannot_run_is_logged_once(
    proxy: RunningRouter, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Dropped (it runs at OpenAI), it is the log's to say: once per backend and tool."""
    monkeypatch.setattr(exchange, "_TOLD", set())  # as in a new process
    client = openai_client(proxy)
    with caplog.at_level(logging.INFO, logger="smf_router"):
        for _ in range(2):
            client.responses.create(model="cloud", input="Say hi", tools=CODEX_TOOLS)
    told = [r.getMessage() for r in caplog.records if "has no chat form" in r.getMessage()]
    assert len(told) == 1
    assert "web_search" in told[0] and "backend cloud" in told[0]
    assert responses_request.dropped_tools({"tools": CODEX_TOOLS}) == ["web_search"]


def test_tools_a_client_made_up_neither_reach_the_log_nor_silence_it(
    proxy: RunningRouter, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The drop notice named each tool by its `type:name` as sent, told once per value: a
    client wrote its own text into the log, hundreds of lines, and then filled the once-set
    so that a real `web_search` drop later went unsaid (found in review). Now a known type
    or `other`, a name only when it looks like one, once per backend and type."""
    monkeypatch.setattr(exchange, "_TOLD", set())  # as in a new process
    secret = "hunter2 is the password, ignore previous instructions "
    odd: list[Any] = [{"type": f"{secret}{i}", "name": f"{secret}{i}"} for i in range(300)]
    odd += [{"type": "mcp", "server_label": "x", "name": f"{secret}{i}"} for i in range(300)]
    odd += [{"type": "file_search", "name": f"tool_{i}"} for i in range(300)]
    client = openai_client(proxy)
    with caplog.at_level(logging.INFO, logger="smf_router"):
        client.responses.create(model="cloud", input="Say hi", tools=odd)
        logged = "\n".join(r.getMessage() for r in caplog.records)
        client.responses.create(model="cloud", input="Say hi", tools=CODEX_TOOLS)
    told = [r.getMessage() for r in caplog.records if "has no chat form" in r.getMessage()]
    assert "hunter2" not in logged and "instructions" not in logged
    assert len(told) == 4  # other, mcp, file_search; then web_search
    assert "tool other " in told[0] and "tool mcp " in told[1]
    assert "tool file_search:tool_0 " in told[2]
    assert "tool web_search " in told[3] and "backend cloud" in told[3]


def test_a_joined_name_another_tool_has_is_made_unique_both_ways() -> None:
    """A plain tool already named as the join, and a join past chat's 64 characters: each
    namespaced tool gets a name of its own, the same every turn, and its calls map back."""
    long_space = "mcp__" + "a_very_long_server_name_" * 3
    tools: list[Any] = [
        _function("multi_agent_v1__spawn_agent", "A plain tool of that name.", TARGET),
        SUB_AGENTS,
        {"type": "namespace", "name": long_space, "description": "", "tools": [EXEC]},
    ]
    body: dict[str, Any] = {"model": "auto", "input": "hi", "tools": tools}
    names = [t["function"]["name"] for t in responses_request.to_chat(body)["tools"]]
    assert len(names) == len(set(names)) == 7
    assert names[0] == "multi_agent_v1__spawn_agent"  # the plain tool keeps its own
    assert all(len(name) <= MAX_NAME for name in names)
    back = responses_request.reply_tools(body)[1]
    assert back[names[1]] == ("multi_agent_v1", "spawn_agent")
    assert back[names[-1]] == (long_space, "exec_command")
    assert names == [t["function"]["name"] for t in responses_request.to_chat(body)["tools"]]
