"""A stream that fails after its start, seen through the official SDKs: the error event the
agent gets names the upstream's own failure, in the agent's API.

Claude Code waits out an `overloaded_error` (and detects it by that type); Codex branches
on `response.failed`'s `error.code` (`rate_limit_exceeded`: retry after the time the message
names; `context_length_exceeded`: compact the history). The router's own failures (cut,
stall, malformed) keep the router's codes.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest

from router.config import parse
from tests.agent_apis.agent_stack import (
    WEATHER_ASK,
    WEATHER_TOOLS,
    anthropic_client,
    messages_stream_error,
    openai_client,
    responses_stream_error,
    stack_config,
)
from tests.harness import Collect, Running, RunningRouter, config_for, router, simulator

ASK = [{"role": "user", "content": "Write a Python function that reverses a list."}]


@pytest.fixture(scope="module")
def proxy(
    servers: dict[str, Running], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningRouter]:
    """The agent stack without breakers: each test's failures stay its own."""
    data = stack_config(servers, tmp_path_factory.mktemp("in_band"), ["local", "cloud"])
    unguarded = parse({**data.model_dump(), "resilience": {"enabled": False}})
    with router(unguarded) as running:
        yield running


def recorded(proxy: RunningRouter, run: Any) -> tuple[Any, Any]:
    """What `run()` returned and the record of its request."""
    records = Collect()
    proxy.components.gateway.sinks.append(records)
    try:
        result = run()
        return result, records.wait(30)
    finally:
        proxy.components.gateway.sinks.remove(records)


@pytest.fixture
def fault(servers: dict[str, Running]) -> Iterator[Any]:
    """`fault(backend, spec)` sets a backend's fault for the rest of the test."""
    touched: list[str] = []

    def set_fault(backend: str, spec: str) -> None:
        servers[backend].control("faults", {"fault": spec})
        touched.append(backend)

    yield set_fault
    for backend in touched:
        servers[backend].control("faults", {"fault": None})


def test_an_anthropic_overload_mid_stream_reaches_claude_code_as_overloaded_error(
    proxy: RunningRouter, fault: Any
) -> None:
    """It became `api_error`, which Claude Code does not wait out (found in review)."""
    fault("claude", "error_event:2:529")
    error, record = recorded(proxy, lambda: messages_stream_error(proxy, "claude", ASK))
    assert error["type"] == "overloaded_error" and error["message"] == "Overloaded"
    # an overloaded backend is a working one: not a failure for its breaker
    assert record.outcome == "upstream_error" and record.error_kind == "overloaded"


@pytest.mark.parametrize(
    ("status", "code", "kind"),
    [
        ("429", "rate_limit_exceeded", "rate_limited"),
        ("400", "context_length_exceeded", "context_too_long"),
        ("500", "server_error", "server_error"),
    ],
)
def test_a_responses_failure_mid_stream_keeps_its_code_for_codex(
    proxy: RunningRouter, fault: Any, status: str, code: str, kind: str
) -> None:
    """It became `upstream_error`: Codex neither compacted nor waited (found in review)."""
    fault("local", f"error_event:2:{status}")
    error, record = recorded(proxy, lambda: responses_stream_error(proxy, "local", ASK))
    assert error.code == code
    assert record.error_kind == kind


def chat_stream_error(proxy: RunningRouter, model: str) -> None:
    """Stream a chat answer that fails mid-stream (the `openai` SDK raises its error event)."""
    ask: Any = ASK  # the SDK's message type
    stream = openai_client(proxy).chat.completions.create(model=model, messages=ask, stream=True)
    with pytest.raises(openai.APIError):
        for _ in stream:
            pass


def test_a_vllm_overload_mid_stream_is_recorded_alike_on_every_native_api(
    proxy: RunningRouter, fault: Any
) -> None:
    """vLLM's busy 503 mid-stream: its chat error names the status (`code: 503`), its
    Messages one the phrase (`Service Unavailable`), but a Responses error event carries
    OpenAI's generic `code: "server_error"` alone, with vLLM's words. That was recorded a
    502 `server_error`, a failure for the breaker, where the other APIs record a 503
    `overloaded` (found in review). Codex still sees the event's own code."""
    fault("local", "error_event:2:503")
    _, chat = recorded(proxy, lambda: chat_stream_error(proxy, "local"))
    _, messages = recorded(proxy, lambda: messages_stream_error(proxy, "local", ASK))
    error, responses = recorded(proxy, lambda: responses_stream_error(proxy, "local", ASK))
    seen = [(r.status, r.outcome, r.error_kind) for r in (chat, messages, responses)]
    assert seen == [(503, "upstream_error", "overloaded")] * 3
    assert error.code == "server_error" and "currently busy" in error.message


def test_a_chat_backends_rate_limit_mid_stream_is_mapped_into_each_agent_api(
    proxy: RunningRouter, fault: Any
) -> None:
    """Translated: OpenAI's chat error chunk (`code: rate_limit_exceeded`) becomes
    Anthropic's `rate_limit_error` and stays Codex's `rate_limit_exceeded`."""
    fault("cloud", "error_event:2:429")
    error = messages_stream_error(proxy, "cloud", ASK)
    assert error["type"] == "rate_limit_error" and "try again in" in error["message"]
    assert responses_stream_error(proxy, "cloud", ASK).code == "rate_limit_exceeded"


def test_a_vllm_chat_overload_mid_stream_reaches_claude_code_as_overloaded_error(
    tmp_path: Path,
) -> None:
    """vLLM names its in-band error by class and HTTP status (`code: 503`)."""
    with simulator(profile="vllm", model="local-model") as local:
        data = config_for({"local": local}, tmp_path).model_dump()
        data["backends"][0]["apis"] = ["chat"]
        with router(parse(data)) as proxy:
            local.control("faults", {"fault": "error_event:2:503"})
            error = messages_stream_error(proxy, "local", ASK)
            code = responses_stream_error(proxy, "local", ASK).code
    assert error["type"] == "overloaded_error"
    assert code == "upstream_overloaded"


@pytest.mark.parametrize("tokens", ["0", "2"], ids=["first", "mid-stream"])
def test_a_chat_clouds_overload_in_its_stream_is_the_overload_a_whole_reply_is(
    proxy: RunningRouter, fault: Any, tokens: str
) -> None:
    """OpenAI's chat error chunk names an overload by the generic type alone
    (`{"type": "server_error", "code": null, "message": "Overloaded"}`). Read by its code
    only, it was a 502 `api_error`, which Claude Code does not wait out, where the same
    overload on a whole reply is a 503 `overloaded_error` (found in review)."""
    fault("cloud", f"error_event:{tokens}:503")
    error, record = recorded(proxy, lambda: messages_stream_error(proxy, "cloud", ASK))
    assert error["type"] == "overloaded_error"
    assert (record.status, record.error_kind) == (503, "overloaded")
    with pytest.raises(anthropic.APIStatusError) as whole:
        anthropic_client(proxy).messages.create(model="cloud", max_tokens=200, messages=ASK)  # type: ignore[arg-type]
    assert whole.value.status_code == 503
    assert isinstance(whole.value.body, dict)
    assert whole.value.body["error"]["type"] == "overloaded_error"
    if tokens == "2":  # committed: Codex's event names the overload too
        assert responses_stream_error(proxy, "cloud", ASK).code == "upstream_overloaded"


def test_the_routers_own_failures_keep_the_routers_codes(proxy: RunningRouter, fault: Any) -> None:
    fault("local", "cut_stream")
    assert responses_stream_error(proxy, "local", ASK).code == "upstream_cut"
    assert messages_stream_error(proxy, "local", ASK)["type"] == "api_error"


RESPONSES_TOOLS = [
    {"type": "function", "name": t["name"], "parameters": t["input_schema"]} for t in WEATHER_TOOLS
]
CUT_CALL = "abort:7"  # the engine stops inside {"city": "Paris


def abort_messages(proxy: RunningRouter, stream: bool) -> Any:
    client = anthropic_client(proxy)
    kwargs: Any = {
        "model": "cloud",
        "max_tokens": 300,
        "tools": WEATHER_TOOLS,
        "messages": WEATHER_ASK,
    }
    with pytest.raises(anthropic.APIStatusError) as failed:
        if stream:
            with client.messages.stream(**kwargs, tool_choice={"type": "any"}) as s:
                for _ in s:
                    pass
        else:
            client.messages.create(**kwargs, tool_choice={"type": "any"})
    return failed.value


def abort_responses(proxy: RunningRouter, stream: bool) -> Any:
    client = openai_client(proxy)
    kwargs: Any = {"model": "cloud", "input": WEATHER_ASK, "tools": RESPONSES_TOOLS}
    if stream:
        events = list(client.responses.create(**kwargs, tool_choice="required", stream=True))
        assert not any(e.type == "response.completed" for e in events)
        assert not any(e.type == "response.output_item.done" for e in events)
        assert events[-1].type == "response.failed"
        return events[-1].response.error  # type: ignore[union-attr]
    with pytest.raises(openai.APIStatusError) as failed:
        client.responses.create(**kwargs, tool_choice="required")
    return failed.value


@pytest.mark.parametrize("stream", [True, False])
def test_an_engine_abort_mid_tool_call_is_no_tool_to_run_for_claude_code(
    proxy: RunningRouter, fault: Any, stream: bool
) -> None:
    """vLLM ends a request its engine dropped (shutdown, sleep, scale-down) with
    `finish_reason: "abort"` and [DONE]. Translated, that was `tool_use` with the cut
    arguments: Claude Code ran write_file without its content (found in review)."""
    fault("cloud", CUT_CALL)
    error, record = recorded(proxy, lambda: abort_messages(proxy, stream))
    said = "the backend stopped the answer (finish_reason 'abort'): a server error"
    assert error.body["error"]["message"] == f"cloud: {said}, a retry may succeed"
    assert error.status_code == (200 if stream else 502)  # in-band, or the whole reply's error
    assert (record.outcome, record.error_kind) == ("upstream_error", "cut")


@pytest.mark.parametrize("stream", [True, False])
def test_an_engine_abort_mid_tool_call_is_no_completed_call_for_codex(
    proxy: RunningRouter, fault: Any, stream: bool
) -> None:
    """Translated, it was `response.completed` with the cut function_call."""
    fault("cloud", CUT_CALL)
    error, record = recorded(proxy, lambda: abort_responses(proxy, stream))
    if stream:
        assert error.code == "upstream_cut" and "abort" in error.message
    else:
        assert error.status_code == 502 and "abort" in str(error)
    assert (record.outcome, record.error_kind) == ("upstream_error", "cut")


def test_an_engine_abort_is_an_error_for_chat_clients_too(proxy: RunningRouter, fault: Any) -> None:
    """Passed through, "abort" is not a finish reason the OpenAI SDK or a chat agent knows:
    the answer reads as complete. A stream ends with the in-band error; a whole reply falls
    back to the next backend, as any reply that broke before the commit point."""
    fault("local", "abort")
    client = openai_client(proxy)
    ask: Any = [{"role": "user", "content": "Tell me a short story about a cat."}]

    def streamed() -> list[str]:
        with pytest.raises(openai.APIError, match="abort"):
            pieces = client.chat.completions.create(model="local", messages=ask, stream=True)
            return [c.choices[0].finish_reason or "" for c in pieces if c.choices]
        return []

    _, record = recorded(proxy, streamed)
    assert (record.outcome, record.error_kind) == ("upstream_error", "cut")
    raw = client.chat.completions.with_raw_response.create(model="auto", messages=ask)
    assert raw.headers["x-smf-backend"] == "cloud" and raw.headers["x-smf-attempts"] == "2"
    assert raw.parse().choices[0].finish_reason in ("stop", "length")


def test_an_abort_before_the_first_token_falls_back_for_claude_code_and_codex(
    servers: dict[str, Running], tmp_path: Path
) -> None:
    """The translators make `message_start` / `response.created` from vLLM's role chunk,
    and the stream committed on it: Claude Code and Codex got a 200 and then the abort,
    where the next backend could answer, as a chat client's request did (found in review)."""
    with cloud_first(servers, tmp_path, "abort:0") as proxy:
        claude = anthropic_client(proxy)
        with claude.messages.with_streaming_response.create(
            model="auto", max_tokens=50, messages=ASK, stream=True
        ) as reply:  # type: ignore[call-overload]
            assert reply.headers["x-smf-backend"] == "local"
            assert reply.headers["x-smf-attempts"] == "2"
        codex = openai_client(proxy)
        with codex.responses.with_streaming_response.create(
            model="auto", input=ASK, stream=True
        ) as response:  # type: ignore[call-overload]
            assert response.headers["x-smf-backend"] == "local"
            assert response.headers["x-smf-attempts"] == "2"


def test_a_model_reasoning_past_first_token_s_is_not_cut_for_claude_code_and_codex(
    servers: dict[str, Running], tmp_path: Path
) -> None:
    """The translators drop the chat backend's reasoning, so once streams committed on their
    first token, 3 s of reasoning met a 2 s first_token_s: a 504, a fallback to the cloud,
    and after three of them an open circuit (found in review). A stream that opened and keeps
    sending is bounded by idle_s (1.5 s here) between pieces, as after the commit."""
    with cloud_first(servers, tmp_path, "thinking:3") as proxy:
        claude = anthropic_client(proxy)
        with claude.messages.with_streaming_response.create(
            model="auto", max_tokens=50, messages=ASK, stream=True
        ) as reply:  # type: ignore[call-overload]
            assert (reply.headers["x-smf-backend"], reply.headers["x-smf-attempts"]) == (
                "cloud",
                "1",
            )
            assert b"message_stop" in b"".join(reply.iter_bytes())
        codex = openai_client(proxy)
        with codex.responses.with_streaming_response.create(
            model="auto", input=ASK, stream=True
        ) as response:  # type: ignore[call-overload]
            assert response.headers["x-smf-backend"] == "cloud"
            assert b"response.completed" in b"".join(response.iter_bytes())


@contextmanager
def cloud_first(servers: dict[str, Running], tmp_path: Path, fault: str) -> Iterator[RunningRouter]:
    """A router whose every route tries `cloud` (chat only: Messages and Responses clients
    are translated) before `local`, with `fault` on cloud for the test's length."""
    data = stack_config(servers, tmp_path, ["cloud", "local"])
    unguarded = parse({**data.model_dump(), "resilience": {"enabled": False}})
    servers["cloud"].control("faults", {"fault": fault})
    try:
        with router(unguarded) as proxy:
            yield proxy
    finally:
        servers["cloud"].control("faults", {"fault": None})
