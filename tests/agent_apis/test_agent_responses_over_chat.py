"""What a chat-only backend receives for a Responses request (the official `openai` SDK
against a real router; the simulator keeps the body it was sent). Attachments and settings
every chat backend takes reach it; an attachment it cannot take is a note to the model,
server state a 400 naming the field: all were dropped without a word, answered with a 200
(found in review). OpenAI's other settings stay behind (strict servers refuse them)."""

from __future__ import annotations

from typing import Any

import httpx
import openai
import pytest

from tests.agent_apis.agent_stack import openai_client
from tests.harness import Running, RunningRouter

PDF = "data:application/pdf;base64,JVBERi0xLjQK"
PNG = "data:image/png;base64,iVBORw0KGgo="
UNPASSED = "({} was attached here; it could not be passed on)"


def over_chat(proxy: RunningRouter, servers: dict[str, Running], **ask: Any) -> dict[str, Any]:
    """The chat body the cloud (chat only: the router translates) got for `ask`."""
    sdk = openai_client(proxy)
    raw = sdk.responses.with_raw_response.create(model="cloud", max_output_tokens=20, **ask)
    assert raw.headers["x-smf-backend"] == "cloud"
    assert raw.parse().status in ("completed", "incomplete")
    sent: dict[str, Any] = servers["cloud"].stats()["last_request"]
    return sent


def user_turn(*parts: dict[str, Any]) -> list[Any]:
    return [{"role": "user", "content": [{"type": "input_text", "text": "summarize"}, *parts]}]


@pytest.mark.parametrize("given", [{"format": "mp3"}, {"format": None}, {}])
def test_audio_reaches_the_backend_as_chats_part(
    proxy: RunningRouter, servers: dict[str, Running], given: dict[str, Any]
) -> None:
    """A `format: null` went on as null (a missing one was wav already)."""
    part = {"type": "input_audio", "input_audio": {"data": "UklGRg==", **given}}
    sent = over_chat(proxy, servers, input=user_turn(part))
    sound = {"data": "UklGRg==", "format": given.get("format") or "wav"}
    assert sent["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "summarize"},
                {"type": "input_audio", "input_audio": sound},
            ],
        }
    ]


@pytest.mark.parametrize(
    ("part", "noun"),
    [
        ({"type": "input_file", "filename": "a.pdf", "file_data": PDF}, "a file"),
        ({"type": "input_file", "file_id": "file_123"}, "a file"),
        ({"type": "input_file", "file_url": "https://example.com/a.pdf"}, "a file"),
        ({"type": "input_image", "file_id": "file_456", "detail": "auto"}, "an image"),
    ],
)
def test_an_attachment_chat_cannot_carry_is_a_note_to_the_model(
    proxy: RunningRouter, servers: dict[str, Running], part: dict[str, Any], noun: str
) -> None:
    """A stored file's id names OpenAI's file store, which no chat server shares; an inline
    file became chat's `file` part, which vLLM refuses (400 "Unsupported chat content part
    type"), where a PDF sent to Messages is this note (found in review)."""
    sent = over_chat(proxy, servers, input=user_turn(part))
    assert sent["messages"] == [{"role": "user", "content": f"summarize\n{UNPASSED.format(noun)}"}]


def test_a_tool_outputs_attachments_follow_the_results_and_its_unpassable_ones_are_noted(
    proxy: RunningRouter, servers: dict[str, Running]
) -> None:
    output = [
        {"type": "input_image", "file_id": "file_1"},
        {"type": "input_file", "filename": "r.pdf", "file_data": PDF},
        {"type": "input_image", "image_url": PNG},
    ]
    ask: list[Any] = [
        {"role": "user", "content": "read the report"},
        {"type": "function_call", "call_id": "c1", "name": "fetch", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": output},
    ]
    messages = over_chat(proxy, servers, input=ask)["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "user"]
    assert messages[2]["content"] == f"{UNPASSED.format('an image')}\n{UNPASSED.format('a file')}"
    assert messages[3]["content"] == [{"type": "image_url", "image_url": {"url": PNG}}]


def test_only_the_settings_every_chat_backend_takes_reach_it(
    proxy: RunningRouter, servers: dict[str, Running]
) -> None:
    """`temperature` and `top_p` pass; nothing else. `reasoning.effort` (Codex sends it every
    turn) became `reasoning_effort`: litellm to Anthropic turned it into thinking, and with
    the reasoning items dropped the second turn's tool call had no thinking before it, which
    Anthropic refuses; `verbosity`, `prompt_cache_key`, `safety_identifier`, `service_tier`
    and `user` are OpenAI's, which strict servers refuse (found in review). `store` and
    `metadata` stay behind (chat's `store` keeps the completion for OpenAI's distillation,
    and OpenAI's chat refuses `metadata` without it), as do `top_logprobs` (no log
    probabilities come back), `max_tool_calls` and `truncation`."""
    sent = over_chat(
        proxy,
        servers,
        input="fix foo.py",
        temperature=0.2,
        top_p=0.9,
        reasoning={"effort": "high", "summary": "auto"},
        text={"verbosity": "low"},
        prompt_cache_key="conv-1",
        user="u1",
        safety_identifier="sid",
        service_tier="flex",
        store=True,
        metadata={"k": "v"},
        top_logprobs=2,
        max_tool_calls=1,
        truncation="auto",
    )
    assert {k: v for k, v in sent.items() if k != "messages"} == {
        "model": "cloud-model",
        "max_tokens": 20,
        "temperature": 0.2,
        "top_p": 0.9,
    }


def test_background_on_a_chat_backend_is_a_400_naming_it_never_sent(
    proxy: RunningRouter, servers: dict[str, Running]
) -> None:
    """A chat backend answers only while the client waits: the 200 was no background run
    (`background` not echoed, nothing to poll)."""
    sdk = openai_client(proxy)
    before = servers["cloud"].stats()["by_path"]
    with pytest.raises(openai.BadRequestError) as refused:
        sdk.responses.create(model="cloud", input="hi", background=True)
    assert refused.value.param == "background"
    assert "send it without background" in refused.value.message
    assert servers["cloud"].stats()["by_path"] == before
    sent = over_chat(proxy, servers, input="hi", background=False)
    assert "background" not in sent


@pytest.mark.parametrize("model", ["cloud", "local"])
def test_a_background_that_is_not_a_boolean_is_a_400_saying_so(
    proxy: RunningRouter, servers: dict[str, Running], model: str
) -> None:
    """`background: "false"` was refused as asking for a background run (found in review),
    and went to a backend that speaks Responses as it was."""
    before = api_calls(servers)
    body = {"model": model, "input": "hi", "background": "false"}
    reply = httpx.post(f"{proxy.url}/responses", json=body, timeout=30)
    assert reply.status_code == 400, reply.text
    error = reply.json()["error"]
    said = "Invalid type for 'background': expected a boolean, but got a string instead."
    assert (error["param"], error["message"]) == ("background", said)
    assert error["code"] == "invalid_type"  # OpenAI's (it was null)
    assert api_calls(servers) == before


API_PATHS = ("/v1/chat/completions", "/v1/completions", "/v1/responses", "/v1/messages")


def api_calls(servers: dict[str, Running]) -> dict[str, dict[str, int]]:
    """Each backend's requests by API path: the router's own polls (`/metrics`, `/health`,
    `/v1/models`) go on meanwhile (they made the comparison flaky)."""
    return {
        name: {path: n for path, n in server.stats()["by_path"].items() if path in API_PATHS}
        for name, server in servers.items()
    }


# Codex's `apply_patch`, as it sends it: the grammar is the only place the patch syntax is
# defined (a few rules of it here)
APPLY_PATCH = {
    "type": "custom",
    "name": "apply_patch",
    "description": "Use the `apply_patch` tool to edit files. This is a FREEFORM tool, so do"
    " not wrap the patch in JSON.",
    "format": {
        "type": "grammar",
        "syntax": "lark",
        "definition": 'start: begin_patch hunk+ end_patch\nbegin_patch: "*** Begin Patch" LF',
    },
}


def test_a_custom_tools_grammar_reaches_the_chat_model_in_its_description(
    proxy: RunningRouter, servers: dict[str, Running]
) -> None:
    """The function a chat backend is shown for a freeform tool had the tool's description
    alone, its `format` dropped: a chat model never saw the `*** Begin Patch` syntax (found
    in review). It is told the grammar, and that `input` holds the raw text."""
    sent = over_chat(proxy, servers, input="edit a.py", tools=[APPLY_PATCH])
    [tool] = sent["tools"]
    description = tool["function"]["description"]
    assert tool["function"]["name"] == "apply_patch"
    assert description.startswith(APPLY_PATCH["description"])
    assert APPLY_PATCH["format"]["definition"] in description  # type: ignore[index]
    assert "Lark grammar" in description and "`input`" in description


@pytest.mark.parametrize("stream", [False, True])
def test_a_response_over_chat_says_the_service_tier_its_chat_answer_said(
    proxy: RunningRouter, stream: bool
) -> None:
    """Asked `auto`, a chat client of the same backend reads `default` (the tier that served
    it, as OpenAI says it); the Response said null (found in a live run of openai 3.63). A
    stream's openers say null, not the tier asked (`flex`): chat is never sent one, and an
    opener saying `flex` before a `default` served claimed a tier never asked for (found in
    review)."""
    sdk = openai_client(proxy)
    chat = sdk.chat.completions.create(
        model="cloud", messages=[{"role": "user", "content": "hi"}], service_tier="auto"
    )
    ask: dict[str, Any] = {"model": "cloud", "input": "hi", "service_tier": "flex"}
    if not stream:
        response = sdk.responses.create(**ask)
        assert response.service_tier == chat.service_tier == "default"
        return
    events = list(sdk.responses.create(stream=True, **ask))
    assert events[0].type == "response.created"
    assert events[0].response.service_tier is None
    assert events[1].type == "response.in_progress"
    assert events[1].response.service_tier is None
    assert events[-1].type == "response.completed"
    assert events[-1].response.service_tier == chat.service_tier == "default"


def test_a_response_over_a_chat_backend_naming_no_tier_says_none(
    chat_proxy: RunningRouter,
) -> None:
    """vLLM's chat answer says `service_tier: null`, and so does the Response made of it."""
    sdk = openai_client(chat_proxy)
    chat = sdk.chat.completions.create(
        model="local", messages=[{"role": "user", "content": "hi"}], service_tier="auto"
    )
    response = sdk.responses.create(model="local", input="hi", service_tier="auto")
    assert chat.service_tier is None and response.service_tier is None
