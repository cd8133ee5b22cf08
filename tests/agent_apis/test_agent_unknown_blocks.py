"""A Messages or Responses request with content the translation to chat cannot read is a
400 naming the path, in the client's API's words, before any backend is sent it: a text
that is no string, a role outside the API's, Messages' `stop_sequences` that is no list of
strings, before the plan; an unknown block, item or part `type` where the body is
translated, so a native backend on the plan still serves it. Each was dropped without a word
(a second block typed `txt` answered 200, its text never sent to the model; a `robot` turn
read as the user's), or, when nothing was left, refused by the backend in chat's words about
`messages`, a field the client never sent; `count_tokens` counted what serving dropped
(found in review). The types real clients send that the translation drops on purpose
(thinking, server tool results, Codex's reasoning, shell and web search items...) are
still served.

Through the official `anthropic` and `openai` SDKs against a real router; `cloud` is a
chat-only simulator, so every request to it is translated; `claude` (Anthropic's profile)
speaks Messages natively, `local` (vLLM's) Messages and Responses.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest

from tests.agent_apis.agent_stack import anthropic_client, openai_client, stack
from tests.harness import Running, RunningRouter

ASK = {"type": "text", "text": "What is 2+2?"}


def sent_to(server: Running) -> int:
    """How many chat requests `server` has been sent (its health probes aside)."""
    count: int = server.stats()["by_path"].get("/v1/chat/completions", 0)
    return count


def messages_refusal(proxy: RunningRouter, body: dict[str, Any], count: bool = False) -> str:
    """The message of the router's 400 for a Messages `body` (or its count)."""
    client = anthropic_client(proxy)
    with pytest.raises(anthropic.BadRequestError) as raised:
        if count:
            client.messages.count_tokens(model="cloud", **body)
        else:
            client.messages.create(model="cloud", max_tokens=20, **body)
    error = raised.value.body["error"]  # type: ignore[index]
    assert error["type"] == "invalid_request_error"
    message: str = error["message"]
    assert "[" not in message and "Invalid value" not in message  # Anthropic's words
    return message


def user(*blocks: Any) -> list[Any]:
    return [{"role": "user", "content": list(blocks)}]


@pytest.mark.parametrize(
    ("messages", "named"),
    [
        (user(ASK, {"type": "txt", "text": "Also this"}), "messages.0.content.1.type: Input tag"),
        (user({"text": "no type"}), "messages.0.content.0.type: Field required"),
        (user({"type": ["text"], "text": "hi"}), "messages.0.content.0.type: Input should be a"),
        (user({"type": "text", "text": ["What is 2+2?"]}), "messages.0.content.0.text: Input"),
        (user({"type": "text"}), "messages.0.content.0.text: Field required"),
        ([{"role": "robot", "content": "What is 2+2?"}], "messages.0.role: Input should be one"),
        (
            user({"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "txt"}]}),
            "messages.0.content.0.content.0.type: Input tag",
        ),
    ],
)
def test_a_messages_block_or_role_the_api_does_not_have_is_a_400_naming_it(
    proxy: RunningRouter, servers: dict[str, Running], messages: Any, named: str
) -> None:
    before = sent_to(servers["cloud"])
    assert messages_refusal(proxy, {"messages": messages}).startswith(named)
    # its count too: it counted what serving dropped
    assert messages_refusal(proxy, {"messages": messages}, count=True).startswith(named)
    assert sent_to(servers["cloud"]) == before  # no backend was tried


@pytest.mark.parametrize(
    ("stop", "named"),
    [({"type": "zz"}, "stop_sequences: Input"), (["done", 5], "stop_sequences.1: Input")],
)
def test_stop_sequences_that_are_no_strings_are_a_400_naming_them(
    proxy: RunningRouter, stop: Any, named: str
) -> None:
    body = {"messages": user(ASK), "stop_sequences": stop}
    assert messages_refusal(proxy, body).startswith(named)


def test_the_blocks_real_clients_send_that_chat_cannot_carry_are_still_served(
    proxy: RunningRouter, servers: dict[str, Running]
) -> None:
    """Thinking, a server tool's call and result (dropped), a tool search's reference in a
    tool result (a line of text): Claude Code's history."""
    messages = [
        user(ASK)[0],
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "add", "signature": "sig"},
                {"type": "redacted_thinking", "data": "opaque"},
                {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {}},
                {"type": "web_search_tool_result", "tool_use_id": "s1", "content": []},
                {"type": "tool_use", "id": "t1", "name": "ToolSearch", "input": {}},
            ],
        },
        user(
            {
                "type": "tool_result",
                "tool_use_id": "t1",
                "content": [{"type": "tool_reference", "tool_name": "Read"}],
            },
            ASK,
        )[0],
    ]
    reply = anthropic_client(proxy).messages.create(model="cloud", max_tokens=20, messages=messages)
    assert reply.type == "message"


def responses_refusal(proxy: RunningRouter, items: Any, count: bool = False) -> Any:
    """The router's 400 for a Responses `input` (or its count), in OpenAI's shape."""
    client = openai_client(proxy)
    with pytest.raises(openai.BadRequestError) as raised:
        if count:
            client.responses.input_tokens.count(model="cloud", input=items)
        else:
            client.responses.create(model="cloud", max_output_tokens=20, input=items)
    error = raised.value.body
    assert isinstance(error, dict) and error["type"] == "invalid_request_error"
    return error


def said(*parts: Any, role: Any = "user", kind: Any = "message") -> list[Any]:
    return [{"type": kind, "role": role, "content": list(parts)}]


TEXT = {"type": "input_text", "text": "What is 2+2?"}
TYPO = {"type": "input_txt", "text": "Also, this"}
NOT_TEXT = {"type": "input_text", "text": {"value": "What?"}}


@pytest.mark.parametrize(
    ("items", "param", "code"),
    [
        (said(TEXT, TYPO), "input[0].content[1].type", "invalid_value"),
        (said(TYPO), "input[0].content[0].type", "invalid_value"),
        (said({"text": "What?"}), "input[0].content[0].type", "missing_required_parameter"),
        (said(NOT_TEXT), "input[0].content[0].text", "invalid_type"),
        (said(TEXT, kind="mesage"), "input[0].type", "invalid_value"),
        (said(TEXT, kind=7), "input[0].type", "invalid_type"),
        (said(TEXT, role="robot"), "input[0].role", "invalid_value"),
        (
            [{"type": "function_call_output", "call_id": "c1", "output": [{"type": "txt"}]}],
            "input[0].output[0].type",
            "invalid_value",
        ),
        (
            said({"type": "refusal", "refusal": 5}, role="assistant"),
            "input[0].content[0].refusal",
            "invalid_type",
        ),
    ],
)  # fmt: skip
def test_a_responses_item_or_part_the_api_does_not_have_is_a_400_naming_it(
    proxy: RunningRouter, servers: dict[str, Running], items: Any, param: str, code: str
) -> None:
    before = sent_to(servers["cloud"])
    for count in (False, True):
        error = responses_refusal(proxy, items, count=count)
        assert (error["param"], error["code"]) == (param, code)
        assert param in error["message"]
    assert sent_to(servers["cloud"]) == before


def test_the_items_codex_sends_that_chat_cannot_carry_are_still_served(
    proxy: RunningRouter,
) -> None:
    """Reasoning, a shell call and its output, a web search, Codex's ghost snapshot and
    compaction: dropped on the way to chat, as before."""
    items: Any = [
        *said(TEXT),
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "x"},
        {"type": "local_shell_call", "call_id": "c1", "status": "completed", "action": {}},
        {"type": "local_shell_call_output", "call_id": "c1", "output": "ok"},
        {"type": "web_search_call", "status": "completed", "action": {"type": "search"}},
        {"type": "ghost_snapshot", "ghost_commit": {"id": "abc"}},
        {"type": "compaction", "encrypted_content": "x"},
        *said({"type": "output_text", "text": "4", "annotations": []}, role="assistant"),
        *said(TEXT),
    ]
    reply = openai_client(proxy).responses.create(model="cloud", max_output_tokens=20, input=items)
    assert reply.status in ("completed", "incomplete")


# A block type Anthropic might add after the router's lists were made (a hypothetical one)
NEW_BLOCK = {"type": "web_search_tool_result_v2", "tool_use_id": "s1", "content": []}


def test_a_type_the_api_adds_later_is_served_by_a_native_backend(proxy: RunningRouter) -> None:
    """A native backend (`claude`, Anthropic's profile; `local`, vLLM's, for Responses) passes
    content through: a type the router does not know is its to read, not a 400 before the
    plan, which every turn carrying a block the API added since would have met (found in
    review). Its count is counted too."""
    messages = [
        user(ASK)[0],
        {"role": "assistant", "content": [{"type": "text", "text": "4"}, NEW_BLOCK]},
        user(ASK)[0],
    ]
    client = anthropic_client(proxy)
    reply = client.messages.create(model="claude", max_tokens=20, messages=messages)
    assert reply.type == "message"
    assert client.messages.count_tokens(model="claude", messages=messages).input_tokens > 0
    items: Any = [*said(TEXT), {"type": "web_fetch_call", "id": "wf_1", "status": "completed"}]
    served = openai_client(proxy).responses.create(model="local", max_output_tokens=20, input=items)
    assert served.status in ("completed", "incomplete")


def test_a_chat_backend_that_cannot_carry_a_type_passes_it_to_a_native_one(
    servers: dict[str, Running], tmp_path: Path
) -> None:
    """The plan tries the chat backend first: it cannot be sent the type (its attempt is
    refused before a byte is sent), and the native backend after it serves the request. The
    count, whose plan holds a native backend, counts it."""
    plan = {"cloud": servers["cloud"], "claude": servers["claude"]}
    before = sent_to(servers["cloud"])
    with stack(plan, tmp_path, ["cloud", "claude"]) as running:
        client = anthropic_client(running)
        messages = user(ASK, {**NEW_BLOCK, "tool_use_id": "t9"})
        raw = client.messages.with_raw_response.create(
            model="auto", max_tokens=20, messages=messages
        )
        assert raw.headers["x-smf-backend"] == "claude"
        assert raw.parse().type == "message"
        assert client.messages.count_tokens(model="auto", messages=messages).input_tokens > 0
    assert sent_to(servers["cloud"]) == before


def test_a_system_block_chat_cannot_carry_is_a_400_naming_it(
    proxy: RunningRouter, servers: dict[str, Running]
) -> None:
    """`system` holds text blocks only (Anthropic's `TextBlockParam`): an image there was
    dropped on the way to chat without a word."""
    image = {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}}
    before = sent_to(servers["cloud"])
    for count in (False, True):
        body = {"messages": user(ASK), "system": [image]}
        assert messages_refusal(proxy, body, count=count).startswith("system.0.type: Input tag")
    assert sent_to(servers["cloud"]) == before


def test_a_streamed_turn_no_backend_can_carry_is_the_same_400(proxy: RunningRouter) -> None:
    """Claude Code and Codex stream: the refusal comes before the stream opens, an HTTP 400
    in each API's shape, as for a whole reply."""
    client = anthropic_client(proxy)
    with (
        pytest.raises(anthropic.BadRequestError) as refused,
        client.messages.stream(model="cloud", max_tokens=20, messages=user(ASK, NEW_BLOCK)),
    ):
        pass
    error = refused.value.body["error"]  # type: ignore[index]
    assert error["message"].startswith("messages.0.content.1.type: Input tag")
    with pytest.raises(openai.BadRequestError) as told:
        openai_client(proxy).responses.create(
            model="cloud", max_output_tokens=20, input=said(TEXT, TYPO), stream=True
        )
    assert (told.value.body["param"], told.value.body["code"]) == (  # type: ignore[index]
        "input[0].content[1].type",
        "invalid_value",
    )
