"""The official `openai` SDK's Responses client against a real router (what Codex speaks)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from tests.agent_apis.agent_stack import openai_client, stack
from tests.agent_apis.over_chat import fault
from tests.harness import Running, RunningRouter

TOOLS: list[Any] = [
    {
        "type": "function",
        "name": "get_weather",
        "description": "Current weather for a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    }
]
ASK = "Write a Python function that reverses a list."


@pytest.mark.parametrize("backend", ["local", "cloud"])
def test_create_is_served_natively_or_translated(
    proxy: RunningRouter, servers: dict[str, Running], backend: str
) -> None:
    before = servers[backend].stats()["by_path"]
    raw = openai_client(proxy).responses.with_raw_response.create(
        model=backend, input=ASK, instructions="Be brief.", max_output_tokens=200
    )
    response = raw.parse()
    assert raw.headers["x-smf-backend"] == backend
    assert response.object == "response" and response.status in ("completed", "incomplete")
    assert response.output_text
    assert response.usage is not None and response.usage.output_tokens > 0
    after = servers[backend].stats()["by_path"]
    path = "/v1/chat/completions" if backend == "cloud" else "/v1/responses"
    assert after.get(path, 0) == before.get(path, 0) + 1


@pytest.mark.parametrize("backend", ["local", "cloud"])
def test_stream_has_the_typed_events_in_order(proxy: RunningRouter, backend: str) -> None:
    events = list(
        openai_client(proxy).responses.create(
            model=backend, input="Tell me a short story.", stream=True
        )
    )
    kinds = [e.type for e in events]
    assert kinds[:2] == ["response.created", "response.in_progress"]
    assert kinds[-1] == "response.completed"
    assert "response.output_item.added" in kinds and "response.output_item.done" in kinds
    text = "".join(e.delta for e in events if e.type == "response.output_text.delta")
    done = [e for e in events if e.type == "response.output_item.done"][-1]
    assert text and done.item.content[0].text == text  # type: ignore[union-attr]
    final = events[-1].response  # type: ignore[union-attr]
    assert final.usage is not None and final.usage.output_tokens > 0
    numbers = [e.sequence_number for e in events]
    assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers)


@pytest.mark.parametrize("backend", ["local", "cloud"])
def test_function_call_streamed_then_answered(proxy: RunningRouter, backend: str) -> None:
    sdk = openai_client(proxy)
    ask: list[Any] = [{"role": "user", "content": "What's the weather in Paris?"}]
    with sdk.responses.stream(
        model=backend, input=ask, tools=TOOLS, tool_choice="required"
    ) as stream:
        kinds = [e.type for e in stream]
        first = stream.get_final_response()
    assert "response.function_call_arguments.delta" in kinds
    call = next(item for item in first.output if item.type == "function_call")
    assert call.name == "get_weather" and "city" in json.loads(call.arguments)
    follow = [
        *ask,
        {
            "type": "function_call",
            "call_id": call.call_id,
            "name": call.name,
            "arguments": call.arguments,
        },
        {"type": "function_call_output", "call_id": call.call_id, "output": "18°C, sunny"},
    ]
    second = sdk.responses.create(model=backend, input=follow, tools=TOOLS)
    assert second.output_text


def test_auto_is_classified_and_prompt_cache_key_is_accepted(proxy: RunningRouter) -> None:
    raw = openai_client(proxy).responses.with_raw_response.create(
        model="auto", input=ASK, prompt_cache_key="codex-conversation-1"
    )
    assert raw.headers["x-smf-intent"] == "coding"
    assert raw.headers["x-smf-backend"] == "local"


def test_errors_keep_the_openai_shape(proxy: RunningRouter) -> None:
    sdk = openai_client(proxy)
    with pytest.raises(openai.NotFoundError) as unknown:
        sdk.responses.create(model="no-such-model", input="hi")
    assert unknown.value.code == "model_not_found"
    with pytest.raises(openai.BadRequestError) as empty:
        sdk.responses.create(model="local", input=[])
    assert empty.value.param == "input"
    refused = httpx.post(
        f"{proxy.url}/responses",
        json={"model": "cloud", "input": "hi", "previous_response_id": "resp_1"},
    )
    assert refused.status_code == 400
    assert "previous_response_id" in refused.json()["error"]["message"]


def test_a_stale_previous_response_id_is_the_clients_404_not_a_broken_backend(
    servers: dict[str, Running], tmp_path: Path
) -> None:
    """vLLM answers an unknown `previous_response_id` with a 404. Read as "the backend
    refuses the router" it fell back and counted toward the circuit: one client with a stale
    id opened the local circuit for everyone (found in review)."""
    with stack(servers, tmp_path) as proxy:
        sdk = openai_client(proxy)
        for _ in range(4):
            with pytest.raises(openai.NotFoundError) as stale:
                sdk.responses.create(model="auto", input=ASK, previous_response_id="resp_gone")
            assert stale.value.response.headers["x-smf-attempts"] == "1"  # no fallback
            assert "resp_gone" in stale.value.message
        state = httpx.get(f"{proxy.root}/v1/router/status").json()["extra"]["resilience"]
        assert state["backends"]["local"]["circuit"] == "closed"
        assert sdk.responses.create(model="auto", input=ASK).status in ("completed", "incomplete")


def test_fallback_mid_conversation_moves_to_the_next_backend(
    servers: dict[str, Running], tmp_path: Path
) -> None:
    with stack(servers, tmp_path) as proxy:
        sdk = openai_client(proxy)
        first = sdk.responses.with_raw_response.create(model="auto", input=ASK)
        assert first.headers["x-smf-backend"] == "local"
        history: list[Any] = [
            {"role": "user", "content": ASK},
            {"role": "assistant", "content": first.parse().output_text},
            {"role": "user", "content": "Now add type hints to it."},
        ]
        servers["local"].control("faults", {"fault": "server_error:503"})
        try:
            with sdk.responses.with_streaming_response.create(
                model="auto", input=history, stream=True
            ) as second:
                assert second.headers["x-smf-backend"] == "cloud"
                assert second.headers["x-smf-attempts"] == "2"
                text = "".join(second.iter_text())
        finally:
            servers["local"].control("faults", {"fault": None})
    assert "event: response.completed" in text


@pytest.mark.parametrize("fault", ["cut_stream", "error_event"])
def test_a_stream_broken_after_the_commit_point_ends_with_response_failed(
    servers: dict[str, Running], tmp_path: Path, fault: str
) -> None:
    with stack(servers, tmp_path, ["local"]) as proxy:
        servers["local"].control("faults", {"fault": fault})
        try:
            events = list(
                openai_client(proxy).responses.create(model="local", input=ASK, stream=True)
            )
        finally:
            servers["local"].control("faults", {"fault": None})
    assert events[-1].type == "response.failed"
    assert events[-1].response.error is not None  # type: ignore[union-attr]
    assert not any(e.type == "response.completed" for e in events)


def test_one_response_has_one_created_at_however_long_it_streams(
    proxy: RunningRouter, servers: dict[str, Running]
) -> None:
    """A chat backend's answer, translated: each event's Response read the clock anew, and
    a stream longer than a second (1.5 s of reasoning here) was created at one time and
    completed at another, the same response (found in review)."""
    with fault(servers["cloud"], "thinking:1.5"):
        events = list(openai_client(proxy).responses.create(model="cloud", input=ASK, stream=True))
    ends = [e.response for e in events if e.type in ("response.created", "response.completed")]  # type: ignore[union-attr]
    assert [e.type for e in events][-1] == "response.completed" and len(ends) == 2
    assert ends[0].id == ends[1].id
    assert ends[0].created_at == ends[1].created_at


@pytest.mark.parametrize("backend", ["local", "cloud"])
def test_response_failed_is_the_response_created_announced(
    servers: dict[str, Running], tmp_path: Path, backend: str
) -> None:
    """The `response.failed` the router ends a broken stream with carried the id alone of
    the Response: the SDK read its model, created_at, tools, parallel_tool_calls and
    tool_choice as None (found in review). It is the one `response.created` announced,
    failed, for a backend that speaks Responses (`local`) and a translated one alike."""
    with stack(servers, tmp_path, [backend]) as running, fault(servers[backend], "cut_stream"):
        events = list(
            openai_client(running).responses.create(
                model=backend,
                input=ASK,
                tools=TOOLS,
                tool_choice="auto",
                parallel_tool_calls=False,
                stream=True,
            )
        )
    created, failed = events[0], events[-1]
    assert (created.type, failed.type) == ("response.created", "response.failed")
    announced, ended = created.response, failed.response  # type: ignore[union-attr]
    assert ended.status == "failed" and ended.error is not None
    kept = ("id", "model", "created_at", "tools", "parallel_tool_calls", "tool_choice")
    assert {k: getattr(ended, k) for k in kept} == {k: getattr(announced, k) for k in kept}
    assert announced.model and announced.created_at
    assert [t.name for t in announced.tools] == ["get_weather"]  # type: ignore[union-attr]
