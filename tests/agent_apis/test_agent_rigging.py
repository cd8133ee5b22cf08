"""rigging 3.3.5's native tool loop, in front of the router: its assistant turn of tool
calls alone comes with `"content": []`.

rigging writes every message's content as parts (`Message.to_openai`), so the turn that
called `get_weather` goes back to the model as `{"role": "assistant", "tool_calls": [...],
"content": []}` (recorded in a live review, `tests/fixtures/rigging-3.3.5.md`). vLLM takes
it; OpenAI, as the simulator's cloud profile now does, refuses it ("Invalid
'messages[1].content': empty array. ..."), and no fallback follows a 400, so every turn
after the first call that the router sent to an OpenAI cloud failed. The router sends that
turn with null content to a backend not taken for vLLM (`router.backends.empty_content`);
vLLM gets the body as it came. Real sockets: the recorded body and the official SDK through
the router to the simulators, each of which keeps the last body it was sent.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import httpx
import pytest

from router.backends.empty_content import without_empty_content
from router.backends.openai_compatible import OpenAICompatibleBackend
from router.config import Backend
from tests.agent_apis.agent_stack import answered, last_request, openai_client, stack
from tests.harness import Running
from tests.recorded import FIXTURES, loader

recorded = loader(FIXTURES / "rigging-3.3.5")
TURN = recorded("tool-result-turn.json")
EMPTY = "Invalid 'messages[1].content': empty array. Expected an array with minimum length 1"


def nulled(messages: list[Any]) -> list[Any]:
    """`messages` with the assistant's turn of calls under null content."""
    return [{**m, "content": None} if m["role"] == "assistant" else m for m in messages]


def test_the_recorded_turn_holds_an_empty_content_array() -> None:
    ask, calls, result = TURN["messages"]
    assert (ask["role"], calls["role"], result["role"]) == ("user", "assistant", "tool")
    assert calls["content"] == [] and calls["tool_calls"]


def test_riggings_tool_turn_is_served_by_the_cloud(
    servers: dict[str, Running], tmp_path: Path
) -> None:
    """The body as rigging sent it: served by the cloud, which was sent the turn of calls
    with null content and the rest as sent. The cloud refused it before (its 400 reached
    the client), and refuses it still when sent as rigging wrote it."""
    with stack(servers, tmp_path, ["cloud"]) as proxy:
        reply = httpx.post(f"{proxy.url}/chat/completions", json=TURN, timeout=30)
    assert reply.status_code == 200, reply.text
    assert reply.headers["x-smf-backend"] == "cloud"
    assert reply.json()["choices"][0]["message"]
    sent = last_request(servers["cloud"])
    assert sent["messages"] == nulled(TURN["messages"])
    assert sent["tools"] == TURN["tools"]
    as_written = httpx.post(
        f"{servers['cloud'].url}/chat/completions",
        json={**TURN, "model": "cloud-model"},
        timeout=30,
    )
    assert as_written.status_code == 400
    error = as_written.json()["error"]
    assert (error["param"], error["code"]) == ("messages[1].content", "empty_array")
    assert error["message"].startswith(EMPTY), error


def test_a_streamed_tool_turn_is_served_by_the_cloud(
    servers: dict[str, Running], tmp_path: Path
) -> None:
    """The same turn through the official SDK, streamed."""
    with stack(servers, tmp_path, ["cloud"]) as proxy:
        headers, _ = answered(openai_client(proxy), copy.deepcopy(TURN), stream=True)
    assert headers["x-smf-backend"] == "cloud"
    assert last_request(servers["cloud"])["messages"] == nulled(TURN["messages"])


def test_vllm_is_sent_the_turn_as_it_came(servers: dict[str, Running], tmp_path: Path) -> None:
    """vLLM reads an empty array of parts as it reads null content: its body is rigging's."""
    with stack(servers, tmp_path, ["local"]) as proxy:
        reply = httpx.post(f"{proxy.url}/chat/completions", json=TURN, timeout=30)
    assert reply.status_code == 200, reply.text
    assert reply.headers["x-smf-backend"] == "local"
    assert last_request(servers["local"])["messages"] == TURN["messages"]


CALL = {"id": "a", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}
CALLS = {"role": "assistant", "content": [], "tool_calls": [CALL]}


def test_each_assistant_turn_of_calls_alone_gets_null_content() -> None:
    """Every such turn, the rest of each message kept; the client's body is not changed."""
    messages = [
        {"role": "user", "content": "Weather in Paris, then Rome?"},
        CALLS,
        {"role": "tool", "tool_call_id": "a", "content": "18C"},
        {**CALLS, "tool_calls": [{**CALL, "id": "b"}], "name": "planner"},
        {"role": "tool", "tool_call_id": "b", "content": "21C"},
    ]
    body = {"model": "m", "messages": messages, "tools": []}
    before = copy.deepcopy(body)
    assert without_empty_content(body) == {
        **body,
        "messages": [
            messages[0],
            {**CALLS, "content": None},
            messages[2],
            {**messages[3], "content": None},
            messages[4],
        ],
    }
    assert body == before


AS_SENT: list[Any] = [
    {"role": "user", "content": []},  # null is no user's content: the backend's to refuse
    {"role": "system", "content": []},
    {"role": "assistant", "content": []},  # no calls: nothing stands in for the text
    {**CALLS, "tool_calls": []},
    {**CALLS, "tool_calls": None},
    {**CALLS, "content": [{"type": "text", "text": ""}]},  # llama-stack's: not empty
    {**CALLS, "content": ""},
    {**CALLS, "content": None},
    {"role": "assistant", "tool_calls": [CALL]},  # no content at all
    "not a message",
]


@pytest.mark.parametrize("message", AS_SENT)
def test_any_other_message_is_left_as_sent(message: Any) -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}, message]}
    assert without_empty_content(body) is body


@pytest.mark.parametrize("body", [{"model": "m"}, {"model": "m", "messages": "hi"}])
def test_a_body_without_a_message_list_is_left_as_sent(body: dict[str, Any]) -> None:
    assert without_empty_content(body) is body


def test_only_a_chat_body_for_a_backend_not_taken_for_vllm_gets_null_content() -> None:
    """What a backend adapter makes of a body (live attempts, fallbacks and shadow replays
    all go through it): OpenAI's API, on either tier, or a cloud sends null; the local vLLM
    is sent the body as it came, and no other API's body is touched."""
    body = {"model": "auto", "messages": copy.deepcopy(TURN["messages"])}
    for tier, url in [
        ("cloud", "https://api.openai.com/v1"),
        ("local", "https://api.openai.com/v1"),
        ("cloud", "http://10.0.0.2:8000/v1"),
    ]:
        backend = OpenAICompatibleBackend(Backend(name="b", tier=tier, base_url=url, model="m"))
        assert backend.body_for("chat", body)["messages"] == nulled(body["messages"]), (tier, url)
        assert backend.body_for("responses", body)["messages"] == body["messages"]
    vllm = OpenAICompatibleBackend(
        Backend(name="v", tier="local", base_url="http://10.0.0.2:8000/v1", model="m")
    )
    assert vllm.body_for("chat", body)["messages"] == TURN["messages"]
