"""What the router reads of a Messages or Responses body to classify it: a bounded view.

The view is translated on the event loop for every request, so its size, and the work of
making it, must not grow with the body's: a body of 8 MB of tools or content blocks stalled
every other request for seconds (found in review).
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from classifier import classify, explain
from classifier.request import view as request_view
from classifier.toolset import SCAN_TOOLS_READ
from router.translate import anthropic_request, responses_request
from router.translate.view import chat_view
from router.translate.wire import content_text
from tests.agent_shapes import (
    AGENTS_MD,
    CLAUDE_CODE_TOOLS,
    CLINE_ENVIRONMENT,
    ENVIRONMENT,
    GITHUB_MCP_TOOLS,
    LOCAL_CAVEAT,
    LOCAL_STDOUT,
    SHELL_NOTIFICATION,
    TODO_REMINDER,
    claude_code_body,
    cline_task,
    queued,
    slash_command,
    user_item,
)

ASK = "Write a haiku about autumn rain"
TOOL = {"name": "lookup_weather", "description": "Weather for a city", "input_schema": {}}


def messages_body(n: int) -> dict[str, Any]:
    blocks = [{"type": "text", "text": "note"}] * n + [{"type": "text", "text": ASK}]
    result = {"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text"}] * n}
    return {
        "model": "auto",
        "max_tokens": 10,
        "system": [{"type": "text", "text": "You are terse."}] * n,
        "tools": [TOOL] * n,
        "tool_choice": {"type": "any"},
        "messages": [
            {"role": "user", "content": [result, *blocks]},
            {"role": "assistant", "content": [{"type": "text", "text": "ok"}] * n},
            {"role": "user", "content": blocks},
        ],
    }


def responses_body(n: int) -> dict[str, Any]:
    parts = [{"type": "input_text", "text": "note"}] * n + [{"type": "input_text", "text": ASK}]
    output = {"type": "function_call_output", "call_id": "c1", "output": parts}
    return {
        "model": "auto",
        "tools": [{"type": "function", "name": "lookup_weather"}] * n,
        "tool_choice": "required",
        "input": [output, {"role": "user", "content": parts}],
    }


@pytest.mark.parametrize(
    ("api", "make"), [("messages", messages_body), ("responses", responses_body)]
)
def test_the_view_of_a_huge_body_is_the_size_of_a_small_one(api: Any, make: Any) -> None:
    small, huge = (chat_view(api, make(n)) for n in (40, 40_000))
    assert len(orjson.dumps(huge)) == len(orjson.dumps(small)) < 10_000
    assert len(huge["tools"]) == 16  # the classifier reads 16; past them, "any?" matters
    latest = content_text(huge["messages"][-1]["content"], "\n")  # Messages': text parts
    assert latest.endswith(ASK)  # the ends of a turn are kept: the ask is usually last
    assert classify(huge) == classify(small)
    assert classify(huge).label == "tool_calling"  # tool_choice still forces a call


def test_a_responses_call_forced_through_allowed_tools_is_tool_calling() -> None:
    """Responses' `allowed_tools` choice was dropped on the way to the view (found in
    review): a request that must call a tool was classified from its text."""
    allowed = {"mode": "required", "tools": [{"type": "function", "name": "lookup_weather"}]}
    body = {
        "model": "auto",
        "input": ASK,
        "tools": [{"type": "function", "name": "lookup_weather"}],
        "tool_choice": {"type": "allowed_tools", **allowed},
    }
    intent = classify(chat_view("responses", body))
    assert (intent.label, intent.source) == ("tool_calling", "rule")


def test_an_allowed_tool_past_the_first_sixteen_still_forces_a_call() -> None:
    """The view cut tools to 16 before the allowed tools were applied: allowed only its 20th,
    a request that must call a tool read as one with tools disabled (found in review)."""
    tools = [{"type": "function", "name": f"tool_{i}"} for i in range(20)]
    allowed = {"mode": "required", "tools": [{"type": "function", "name": "tool_18"}]}
    body = {
        "model": "auto",
        "input": ASK,
        "tools": tools,
        "tool_choice": {"type": "allowed_tools", **allowed},
    }
    view = chat_view("responses", body)
    assert [t["function"]["name"] for t in view["tools"]] == ["tool_18"]
    intent = classify(view)
    assert (intent.label, intent.source) == ("tool_calling", "rule")


CODER = "You are a senior Rust engineer."
CHAT_TOOL = {"type": "function", "function": {"name": "lookup_weather", "parameters": {}}}
USER = [{"role": "user", "content": ASK}]
SAME_AS_CHAT = [
    (  # Anthropic system blocks
        "messages",
        {"system": [{"type": "text", "text": CODER}], "messages": USER},
        {"messages": [{"role": "system", "content": CODER}, {"role": "user", "content": ASK}]},
    ),
    (  # Responses instructions
        "responses",
        {"instructions": CODER, "input": ASK},
        {"messages": [{"role": "system", "content": CODER}, {"role": "user", "content": ASK}]},
    ),
    (  # Anthropic's way of saying tool_choice "none"
        "messages",
        {"tools": [TOOL], "tool_choice": {"type": "none"}, "messages": USER},
        {"tools": [CHAT_TOOL], "tool_choice": "none", "messages": USER},
    ),
]


@pytest.mark.parametrize(("api", "raw", "chat"), SAME_AS_CHAT)
def test_the_classifier_reads_a_translated_body_as_its_chat_equivalent(
    api: Any, raw: dict[str, Any], chat: dict[str, Any]
) -> None:
    """`classify(body)` takes a chat body (its docstring, README): read raw, these shapes are
    missed (found in review); through `chat_view`, as the router passes them, they are not."""
    assert explain(chat_view(api, raw))["read"] == explain(chat)["read"]
    assert classify(chat_view(api, raw)) == classify(chat)


def test_the_view_holds_no_assistant_text_yet_the_same_turns() -> None:
    """No reader of the view reads an assistant's text, yet translating the 64 kept turns
    joined it: 64 turns of 1 MB took 1.3 s of the event loop (found in review). The view
    keeps the turns the forwarded body has, in the same roles, calls and order."""
    use = {"type": "tool_use", "name": "f", "input": {"path": "x" * 100_000}}
    turns: list[dict[str, Any]] = [{"role": "user", "content": ASK}]
    for i in range(61):  # 64 turns in all: the view keeps them all
        text = {"type": "text", "text": "a" * 100_000 if i % 4 else ""}
        turns.append({"role": "assistant", "content": [text, {**use, "id": f"t{i}"}][: i % 3]})
    turns += [{"role": "user", "content": "go on"}, {"role": "assistant", "content": "b" * 10**6}]
    body = {"model": "auto", "max_tokens": 10, "messages": turns}
    view, forwarded = chat_view("messages", body), anthropic_request.to_chat(body)
    assert len(orjson.dumps(view)) < 10_000
    assert turn_shapes(view) == turn_shapes(forwarded)
    assert classify(view) == classify(forwarded)


def turn_shapes(chat: dict[str, Any]) -> list[tuple[str, bool, list[str]]]:
    """Each message's role, whether it has text, and its calls' ids."""
    return [
        (m["role"], bool(m["content"]), [c["id"] for c in m.get("tool_calls", ())])
        for m in chat["messages"]
    ]


PDF = {
    "type": "document",
    "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0="},
}
PNG = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw=="}}


@pytest.mark.parametrize("ask", [[], [{"type": "text", "text": "write a haiku about this"}]])
def test_a_document_is_read_like_an_image_not_as_the_routers_placeholder(ask: Any) -> None:
    """A document chat cannot carry is forwarded as a placeholder text, which the classifier
    read as the user's words: a PDF alone was classified reasoning (0.57) instead of taking
    the default route as an image does (found in review)."""

    def body(block: dict[str, Any]) -> dict[str, Any]:
        return {
            "model": "auto",
            "max_tokens": 10,
            "messages": [{"role": "user", "content": [block, *ask]}],
        }

    assert classify(chat_view("messages", body(PDF))) == classify(chat_view("messages", body(PNG)))
    assert classify(chat_view("messages", body(PDF))).source == ("model" if ask else "default")
    forwarded = anthropic_request.to_chat(body(PDF))["messages"][0]["content"]
    assert "a document was attached here" in forwarded  # the model is still told


@pytest.mark.parametrize("ask", [[], [{"type": "input_text", "text": "write a haiku about this"}]])
def test_a_file_responses_cannot_pass_is_read_like_an_image_not_as_the_note(ask: Any) -> None:
    """A stored file's id reaches a chat backend as the router's note, which the classifier
    would read as the user's words (as for Messages' documents)."""

    def body(part: dict[str, Any]) -> dict[str, Any]:
        return {"model": "auto", "input": [{"role": "user", "content": [part, *ask]}]}

    stored = {"type": "input_file", "file_id": "file_1"}
    image = {"type": "input_image", "image_url": "data:image/png;base64,iVBORw=="}
    view = chat_view("responses", body(stored))
    assert "attached here" not in orjson.dumps(view).decode()
    assert classify(view) == classify(chat_view("responses", body(image)))
    forwarded = responses_request.to_chat(body(stored))["messages"][0]["content"]
    assert "a file was attached here" in forwarded  # the model is still told


def _tool_loop(api: str, rounds: int) -> dict[str, Any]:
    """A sonnet first, then a coding ask, then `rounds` tool rounds of an agent's loop."""
    first, ask = (
        "Write me a sonnet about the sea.",
        "Now write a Python script that renames my photos by date.",
    )
    if api == "messages":
        turns: list[dict[str, Any]] = [
            {"role": "user", "content": first},
            {"role": "assistant", "content": "Here it is."},
            {"role": "user", "content": [{"type": "text", "text": ask}]},
        ]
        for i in range(rounds):
            use = {"type": "tool_use", "id": f"t{i}", "name": "bash", "input": {"cmd": "ls"}}
            done = {"type": "tool_result", "tool_use_id": f"t{i}", "content": "a.jpg"}
            turns += [{"role": "assistant", "content": [use]}, {"role": "user", "content": [done]}]
        return {"model": "auto", "max_tokens": 100, "messages": turns}
    items: list[dict[str, Any]] = [
        {"role": "user", "content": first},
        {"role": "assistant", "content": "Here it is."},
        {"role": "user", "content": [{"type": "input_text", "text": ask}]},
    ]
    for i in range(rounds):
        items += [
            {"type": "function_call", "call_id": f"c{i}", "name": "bash", "arguments": "{}"},
            {"type": "function_call_output", "call_id": f"c{i}", "output": "a.jpg"},
        ]
    return {"model": "auto", "input": items}


@pytest.mark.parametrize("api", ["messages", "responses"])
def test_the_ask_behind_a_long_tool_loop_is_still_read(api: Any) -> None:
    """After 31 rounds the view kept the first turns and the tool loop's last 62, not the
    ask: a coding request was classified as the sonnet of its first message (found in
    review)."""
    short, long = (classify(chat_view(api, _tool_loop(api, n))) for n in (3, 200))
    assert short.label == "coding"
    assert (long.label, long.confidence) == (short.label, short.confidence)


def _reminded(body: dict[str, Any]) -> dict[str, Any]:
    """`_tool_loop`'s Messages body with Claude Code's todo reminder beside every result."""
    turns = [
        {**t, "content": [*t["content"], {"type": "text", "text": TODO_REMINDER}]}
        if isinstance(t["content"], list) and t["content"][0]["type"] == "tool_result"
        else t
        for t in body["messages"]
    ]
    return {**body, "messages": turns}


def _codex_opened(body: dict[str, Any]) -> dict[str, Any]:
    """`_tool_loop`'s Responses body as Codex opens it, its AGENTS.md and environment items
    first, the coding ask the user's first, and then, after the tool loop, a "go on"."""
    coding = body["input"][2:]
    return {
        **body,
        "input": [user_item(AGENTS_MD), user_item(ENVIRONMENT), *coding, user_item("go on")],
    }


def _cline_shaped(body: dict[str, Any]) -> dict[str, Any]:
    """`_tool_loop`'s Messages body as Cline sends it with native tool calls: the ask in its
    task tag, and the editor's state after the texts of every turn of blocks, tool results'
    too."""
    turns = []
    for turn in body["messages"]:
        if isinstance(turn["content"], list):
            blocks = [
                {**b, "text": cline_task(b["text"])} if b["type"] == "text" else b
                for b in turn["content"]
            ]
            turn = {**turn, "content": [*blocks, {"type": "text", "text": CLINE_ENVIRONMENT}]}
        turns.append(turn)
    return {**body, "messages": turns}


@pytest.mark.parametrize(
    ("api", "shaped"),
    [("messages", _reminded), ("responses", _codex_opened), ("messages", _cline_shaped)],
)
def test_an_agents_own_turns_do_not_push_the_ask_out_of_the_view(api: Any, shaped: Any) -> None:
    """A turn of an agent's own text counted as one in which the user wrote: the latest
    such (a reminder beside a tool result) was kept and the ask dropped, and Codex's two
    items filled the head the first ask was kept in (found in review)."""
    short, long = (classify(chat_view(api, shaped(_tool_loop(api, n)))) for n in (3, 200))
    assert short.label == "coding"
    assert (long.label, long.confidence) == (short.label, short.confidence)


def test_a_turn_is_kept_as_an_ask_as_the_classifier_reads_it() -> None:
    """The view asked each text block alone whether it asks: of a local command typed while
    a background task ran (its echo, its output and the task's notification, one turn after
    the tool loop) the echo did ("opus"), though the turn as the classifier reads it asks
    nothing. It was kept as the latest ask and the coding ask dropped: the request was
    classified by the sonnet of its first message, prose 0.999 (coding 0.71 before the loop
    grew; found in review)."""
    body = _tool_loop("messages", 200)
    echo = [LOCAL_CAVEAT, slash_command("model", "opus"), LOCAL_STDOUT, SHELL_NOTIFICATION]
    body["messages"] += [
        {"role": "assistant", "content": "The tests are running in the background."},
        {"role": "user", "content": [{"type": "text", "text": text} for text in echo]},
    ]
    long, short = chat_view("messages", body), chat_view("messages", _tool_loop("messages", 3))
    ask = body["messages"][2]["content"][0]["text"]
    assert request_view(long).latest == request_view(short).latest == ask
    assert classify(long).label == classify(short).label == "coding"


def test_a_message_typed_mid_turn_as_a_system_turn_is_kept_past_the_tail() -> None:
    """Newer Claude Code sends a message the user typed while it worked as a system turn
    after the tool's result, which the translation reads as a user's: the view passed it
    over as no user's turn and, once the loop ran on past it beyond the tail, kept the ask
    before it in its place. The request was classified by the coding ask, coding 0.71, not
    as it reads whole, by the message, reasoning 0.74."""
    body = _tool_loop("messages", 200)
    steer = {"role": "system", "content": queued("Explain why the sky is blue.")}
    at = len(body["messages"]) - 80  # after a tool's result, 80 turns from the end
    assert body["messages"][at - 1]["content"][0]["type"] == "tool_result"
    body["messages"].insert(at, steer)
    view, whole = chat_view("messages", body), anthropic_request.to_chat(body)
    assert request_view(view).latest == request_view(whole).latest == "Explain why the sky is blue."
    assert classify(view) == classify(whole)
    noted = {"role": "system", "content": "The date has changed. Today's date is now 2026-12-05."}
    body["messages"][at] = noted  # its other system turns stay no asks here, as before
    assert request_view(chat_view("messages", body)).latest.startswith("Now write a Python")


def _image_result(api: str) -> dict[str, Any]:
    """`_tool_loop` whose last tool result is an image (Claude Code's Read of a PNG, Codex's
    view_image), which chat carries in a user message after the tool messages."""
    body = _tool_loop(api, 3)
    if api == "messages":
        last = body["messages"][-1]["content"][0]
        body["messages"][-1]["content"] = [{**last, "content": [PNG]}]
    else:
        image = {"type": "input_image", "image_url": "data:image/png;base64,iVBORw=="}
        body["input"][-1] = {**body["input"][-1], "output": [image]}
    return body


@pytest.mark.parametrize("api", ["messages", "responses"])
def test_a_tool_results_image_does_not_hide_the_ask(api: Any) -> None:
    """The image-only user message after the tool messages was read as the latest ask, with
    no text: coding 0.63 became tool_calling 0.27 (found in review)."""
    view = chat_view(api, _image_result(api))
    assert view["messages"][-1]["content"][0]["type"] == "image_url"  # as the router sends it
    assert classify(view) == classify(chat_view(api, _tool_loop(api, 3)))
    assert explain(view)["read"]["after_tool_result"]


def test_an_agents_own_tools_do_not_push_its_mcp_tools_out_of_the_view() -> None:
    """Claude Code offers some twenty tools of its own before its MCP tools, and the view
    kept the first 16 (found in review): an agent's built-in tools are kept past the 16 the
    classifier reads, as it reads them, to `SCAN_TOOLS_READ`."""
    tools = [*CLAUDE_CODE_TOOLS, *GITHUB_MCP_TOOLS]
    body = claude_code_body([{"role": "user", "content": ASK}], tools=tools)
    view = chat_view("messages", body)
    assert [t["function"]["name"] for t in view["tools"]] == [t["name"] for t in tools]
    huge = chat_view("messages", {**body, "tools": [CLAUDE_CODE_TOOLS[1]] * 40_000})
    assert len(huge["tools"]) == SCAN_TOOLS_READ
