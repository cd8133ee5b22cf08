"""An instruction given between an assistant's tool calls and their results reaches a chat
backend after the results: chat wants the calls' `tool` messages right after them. Real
sockets: the official SDKs through the router to the `cloud` simulator (chat only: Messages
and Responses are translated) and, through litellm, to the `anthropic` simulator.

Found in review: a Responses developer item after the conversation began is a user message
in chat, where it stood (Qwen's chat templates refuse a later system message); Codex's,
between a `function_call` and its output, made `assistant(tool_calls), user, tool`, which
OpenAI refuses, and which litellm to Anthropic sent as one user turn with the text before
the `tool_result` (Anthropic wants the results first). A Messages system turn (newer Claude
Code's) is a user message in chat too.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from classifier.intent import INTENTS
from router.config import parse
from tests.agent_apis.agent_stack import anthropic_client, openai_client
from tests.agent_shapes import CODEX_TOOLS, user_item
from tests.harness import Running, RunningRouter, litellm_backend, router

CHANGED = "<permissions instructions>approval policy: never</permissions instructions>"


def developer_item(text: str) -> dict[str, Any]:
    return {**user_item(text), "role": "developer"}


def call(call_id: str) -> dict[str, Any]:
    return {"type": "function_call", "call_id": call_id, "name": "shell", "arguments": "{}"}


def output(call_id: str, text: str) -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": text}


def responses_turn(proxy: RunningRouter, model: str, items: list[dict[str, Any]]) -> None:
    openai_client(proxy).responses.create(
        model=model,
        instructions="Be brief.",
        input=items,  # type: ignore[arg-type]
        tools=CODEX_TOOLS,  # type: ignore[arg-type]
        store=False,
    )


@pytest.fixture(scope="module")
def litellm_proxy(
    servers: dict[str, Running], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningRouter]:
    """The router with one backend: litellm, Anthropic's Messages on the wire, on the
    `anthropic` simulator (Responses reach it as chat, which litellm turns into Messages)."""
    ledger = tmp_path_factory.mktemp("among_results") / "ledger"
    claude = servers["claude"]  # it serves `claude-model`
    config = parse(
        {
            "backends": [litellm_backend("claude", "anthropic/claude-model", claude.root)],
            "routes": {intent: ["claude"] for intent in INTENTS},
            "ledger": {"path": str(ledger)},
        }
    )
    with router(config) as running:
        yield running


def test_a_developer_item_between_a_call_and_its_output_follows_the_output(
    proxy: RunningRouter, servers: dict[str, Running]
) -> None:
    """The item reaches a chat backend as a user message after the tool message."""
    items = [user_item("List the files."), call("c1"), developer_item(CHANGED), output("c1", "a")]
    responses_turn(proxy, "cloud", items)
    sent = servers["cloud"].stats()["last_request"]["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool", "user"]
    assert sent[3]["tool_call_id"] == "c1"
    assert sent[4] == {"role": "user", "content": CHANGED}


def test_a_developer_item_among_parallel_outputs_follows_the_last_with_the_images(
    proxy: RunningRouter, servers: dict[str, Running]
) -> None:
    """Between two outputs of one assistant turn, the item waits for the second; an output's
    image, which chat carries in a user turn after the results, comes first; an item after
    the results stays where it stood."""
    image = {"type": "input_image", "image_url": "data:image/png;base64,iVBORw=="}
    items = [
        user_item("List the files."),
        call("c1"),
        call("c2"),
        output("c1", "a"),
        developer_item(CHANGED),
        {**output("c2", "x"), "output": [image]},
        {"role": "assistant", "content": "Done."},
        developer_item("later"),
        user_item("Thanks."),
    ]
    responses_turn(proxy, "cloud", items)
    sent = servers["cloud"].stats()["last_request"]["messages"]
    roles = ["system", "user", "assistant", "tool", "tool", "user", "user", "assistant"]
    assert [m["role"] for m in sent] == [*roles, "user", "user"]
    assert [call["id"] for call in sent[2]["tool_calls"]] == ["c1", "c2"]
    assert sent[5]["content"] == [{"type": "image_url", "image_url": {"url": image["image_url"]}}]
    assert sent[6] == {"role": "user", "content": CHANGED}
    assert [m["content"] for m in sent[8:]] == ["later", "Thanks."]


def test_through_litellm_to_anthropic_the_tool_result_comes_first(
    litellm_proxy: RunningRouter, servers: dict[str, Running]
) -> None:
    """litellm joins the tool message and the user message after it into one user turn:
    the `tool_result` block first, as Anthropic requires, then the item's text."""
    items = [user_item("List the files."), call("c1"), developer_item(CHANGED), output("c1", "a")]
    responses_turn(litellm_proxy, "claude", items)
    sent = servers["claude"].stats()["last_request"]
    assert [m["role"] for m in sent["messages"]] == ["user", "assistant", "user"]
    blocks = sent["messages"][2]["content"]
    assert [b["type"] for b in blocks] == ["tool_result", "text"]
    assert blocks[0]["tool_use_id"] == "c1"
    assert blocks[1]["text"] == CHANGED


def test_a_messages_system_turn_between_tool_use_and_result_follows_the_result(
    proxy: RunningRouter, servers: dict[str, Running]
) -> None:
    """A Messages system turn is a user message in chat: between an assistant's tool use and
    the turn with its result, it follows the tool message, before the user's own text."""
    use = {"type": "tool_use", "id": "t1", "name": "sh", "input": {}}
    turns = [
        {"role": "user", "content": "List the files."},
        {"role": "assistant", "content": [use]},
        {"role": "system", "content": "The date has changed."},
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "a"},
                {"type": "text", "text": "Go on."},
            ],
        },
    ]
    anthropic_client(proxy).messages.create(
        model="cloud",
        max_tokens=20,
        messages=turns,  # type: ignore[arg-type]
        tools=[{"name": "sh", "input_schema": {"type": "object", "properties": {}}}],
    )
    sent = servers["cloud"].stats()["last_request"]["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "tool", "user", "user"]
    assert sent[3:] == [
        {"role": "user", "content": "The date has changed."},
        {"role": "user", "content": "Go on."},
    ]
