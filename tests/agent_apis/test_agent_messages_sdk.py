"""The official `anthropic` SDK against a real router: native, translated, errors, fallback."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anthropic
import httpx
import pytest

from router.config import parse
from tests.agent_apis.agent_stack import (
    WEATHER_ASK,
    WEATHER_TOOLS,
    anthropic_client,
    explained,
    stack,
    stack_config,
)
from tests.harness import (
    Collect,
    Running,
    RunningRouter,
    collected,
    config_for,
    router,
    simulator,
    wait_for,
)

ASK = [{"role": "user", "content": "Write a Python function that reverses a list."}]


@pytest.mark.parametrize("backend", ["local", "cloud", "claude"])
def test_create_is_served_natively_or_translated(
    proxy: RunningRouter, servers: dict[str, Running], backend: str
) -> None:
    before = servers[backend].stats()["by_path"]
    raw = anthropic_client(proxy).messages.with_raw_response.create(
        model=backend, max_tokens=200, messages=ASK
    )
    message = raw.parse()
    assert raw.headers["x-smf-backend"] == backend
    assert message.type == "message" and message.role == "assistant"
    assert message.content[0].type == "text" and message.content[0].text
    assert message.stop_reason in ("end_turn", "max_tokens")
    assert message.usage.input_tokens > 0 and message.usage.output_tokens > 0
    after = servers[backend].stats()["by_path"]
    path = "/v1/chat/completions" if backend == "cloud" else "/v1/messages"
    assert after.get(path, 0) == before.get(path, 0) + 1


@pytest.mark.parametrize("backend", ["local", "cloud", "claude"])
def test_stream_events_accumulate_in_the_sdk(proxy: RunningRouter, backend: str) -> None:
    with anthropic_client(proxy).messages.stream(
        model=backend, max_tokens=200, messages=[{"role": "user", "content": "Tell a story."}]
    ) as stream:
        kinds = [event.type for event in stream]
        final = stream.get_final_message()
    assert kinds[0] == "message_start" and kinds[-1] == "message_stop"
    assert "content_block_start" in kinds and "message_delta" in kinds
    assert final.content[0].type == "text" and final.content[0].text
    assert final.stop_reason in ("end_turn", "max_tokens")
    assert final.usage.output_tokens > 0


@pytest.mark.parametrize("backend", ["local", "cloud", "claude"])
def test_tool_use_then_tool_result(proxy: RunningRouter, backend: str) -> None:
    sdk = anthropic_client(proxy)
    with sdk.messages.stream(
        model=backend,
        max_tokens=300,
        tools=WEATHER_TOOLS,  # type: ignore[arg-type]
        tool_choice={"type": "any"},
        messages=WEATHER_ASK,  # type: ignore[arg-type]
    ) as stream:
        first = stream.get_final_message()
    assert first.stop_reason == "tool_use"
    call = next(b for b in first.content if b.type == "tool_use")
    assert call.name == "get_weather" and "city" in call.input  # type: ignore[operator]
    turn = [
        *WEATHER_ASK,
        {"role": "assistant", "content": [b.model_dump() for b in first.content]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": call.id, "content": "18°C, sunny"}],
        },
    ]
    second = sdk.messages.create(
        model=backend,
        max_tokens=300,
        tools=WEATHER_TOOLS,  # type: ignore[arg-type]
        messages=turn,  # type: ignore[arg-type]
    )
    assert second.stop_reason in ("end_turn", "max_tokens")
    assert second.content[0].type == "text" and second.content[0].text


def test_count_tokens_is_exact_from_a_native_backend_and_estimated_otherwise(
    proxy: RunningRouter,
) -> None:
    sdk = anthropic_client(proxy)
    counted = sdk.messages.count_tokens(model="local", messages=ASK)  # type: ignore[arg-type]
    assert counted.input_tokens > 0
    raw = httpx.post(
        f"{proxy.root}/v1/messages/count_tokens",
        json={"model": "cloud", "messages": ASK},
        headers={"anthropic-version": "2023-06-01"},
    )
    assert raw.status_code == 200 and raw.json()["input_tokens"] > 0
    assert raw.headers["x-smf-estimated"] == "true"
    assert "x-smf-backend" not in raw.headers  # it was sent empty (found in review)
    native = httpx.post(
        f"{proxy.root}/v1/messages/count_tokens", json={"model": "local", "messages": ASK}
    )
    assert native.headers["x-smf-backend"] == "local"


def test_count_tokens_estimates_while_the_native_backend_is_down(
    proxy: RunningRouter, servers: dict[str, Running]
) -> None:
    body = {"model": "local", "messages": ASK}
    url = f"{proxy.root}/v1/messages/count_tokens"
    # refuses connections, long enough for the request sent next to meet it (1 s was not
    # always, on a loaded machine)
    servers["local"].control("faults", {"down": True, "for_s": 3.0})
    failed = httpx.post(url, json=body)
    wait_for(f"{servers['local'].root}/health", 30)
    exact = httpx.post(url, json=body)
    assert failed.status_code == 200 and failed.json()["input_tokens"] > 0
    assert failed.headers["x-smf-estimated"] == "true"
    assert exact.headers["x-smf-backend"] == "local"  # asked again once it is back
    assert exact.headers["x-smf-estimated"] == "false"


@pytest.mark.parametrize(
    "private", [[("x-smf-private", "1")], [("x-smf-private", "0"), ("x-smf-private", "1")]]
)
def test_count_tokens_of_a_private_conversation_never_asks_the_cloud(
    servers: dict[str, Running], tmp_path: Path, private: list[tuple[str, str]]
) -> None:
    """count_tokens read only the first of repeated `x-smf-private` headers, and sent the
    conversation to the cloud the model APIs kept it from (found in review)."""
    body = {"model": "auto", "messages": ASK}
    with stack(servers, tmp_path, ["claude", "local"]) as proxy:
        url = f"{proxy.root}/v1/messages/count_tokens"
        public = httpx.post(url, json=body)
        counted = httpx.post(url, json=body, headers=private)
    assert public.headers["x-smf-backend"] == "claude"  # the route's first choice
    assert counted.status_code == 200 and counted.headers["x-smf-backend"] == "local"


def test_a_local_first_turn_is_never_counted_by_the_cloud(
    servers: dict[str, Running], tmp_path: Path
) -> None:
    """The first backend of the plan that spoke Messages natively was asked, a fallback
    too: a Claude Code turn served by a local chat model had its conversation sent to
    Anthropic to be counted (found in review). Only the backend that would serve the turn
    is asked: one that does not count natively means an estimate."""
    data = stack_config(servers, tmp_path, ["local", "claude"]).model_dump(mode="json")
    local = next(b for b in data["backends"] if b["name"] == "local")
    local["apis"] = ["chat"]  # Messages reach it translated
    body = {"model": "auto", "max_tokens": 50, "messages": ASK}
    before = dict(servers["claude"].stats()["by_path"])
    with router(parse(data)) as proxy:
        counted = httpx.post(f"{proxy.root}/v1/messages/count_tokens", json=body)
        made = httpx.post(f"{proxy.root}/v1/messages", json=body)
    assert made.headers["x-smf-backend"] == "local"  # where the turn goes
    assert counted.status_code == 200 and counted.json()["input_tokens"] > 0
    assert counted.headers["x-smf-estimated"] == "true"
    assert "x-smf-backend" not in counted.headers
    path = "/v1/messages/count_tokens"
    assert servers["claude"].stats()["by_path"].get(path, 0) == before.get(path, 0)


def test_a_conversation_pinned_locally_is_never_counted_by_the_cloud(
    servers: dict[str, Running], tmp_path: Path
) -> None:
    """count_tokens planned the latest message alone, without the conversation's pin: a
    Claude Code session served locally whose follow-up alone would go to the cloud had its
    turn served locally and its whole conversation sent to Anthropic to be counted (found
    in review). It is counted where its turn goes: the pinned backend."""
    data = stack_config(servers, tmp_path, ["claude", "local"]).model_dump(mode="json")
    data["routes"]["coding"] = ["local", "claude"]  # prose goes to the cloud first
    session = {"x-claude-code-session-id": "pinned-to-local"}
    follow_up = [
        *ASK,
        {"role": "assistant", "content": "def reverse(items):\n    return items[::-1]"},
        {"role": "user", "content": "Write a short haiku about autumn leaves."},
    ]
    path = "/v1/messages/count_tokens"
    before = servers["claude"].stats()["by_path"].get(path, 0)
    with router(parse(data)) as proxy:
        records = collected(proxy)  # after the sticky table's sink: pinned once it has one
        turn = {"model": "auto", "max_tokens": 50}
        first = httpx.post(f"{proxy.url}/messages", json={**turn, "messages": ASK}, headers=session)
        records.wait(30)
        alone = explained(proxy, {"api": "messages", **turn, "messages": follow_up[-1:]})
        counted = httpx.post(
            f"{proxy.root}{path}", json={"model": "auto", "messages": follow_up}, headers=session
        )
        served = httpx.post(
            f"{proxy.url}/messages", json={**turn, "messages": follow_up}, headers=session
        )
    assert first.headers["x-smf-backend"] == "local"
    assert alone["backends"][0]["backend"] == "claude"  # where the follow-up alone would go
    assert served.headers["x-smf-backend"] == "local"  # the pin holds the turn
    assert counted.status_code == 200, counted.text
    assert (counted.headers["x-smf-backend"], counted.headers["x-smf-estimated"]) == (
        "local",
        "false",
    )
    assert servers["claude"].stats()["by_path"].get(path, 0) == before


def test_auto_is_classified_and_sticky_key_comes_from_the_session_header(
    proxy: RunningRouter,
) -> None:
    raw = anthropic_client(proxy).messages.with_raw_response.create(
        model="auto",
        max_tokens=100,
        messages=ASK,
        extra_headers={"x-claude-code-session-id": "session-1"},
    )
    assert raw.headers["x-smf-intent"] == "coding"
    assert raw.headers["x-smf-backend"] == "local"


def test_errors_come_back_in_anthropic_shape(proxy: RunningRouter) -> None:
    sdk = anthropic_client(proxy)
    with pytest.raises(anthropic.BadRequestError) as missing:
        sdk.messages.create(model="local", max_tokens=0, messages=ASK)  # type: ignore[arg-type]
    assert missing.value.body["type"] == "error"  # type: ignore[index]
    assert missing.value.body["error"]["type"] == "invalid_request_error"  # type: ignore[index]
    with pytest.raises(anthropic.NotFoundError) as unknown:
        sdk.messages.create(model="no-such-model", max_tokens=10, messages=ASK)  # type: ignore[arg-type]
    assert unknown.value.body["error"]["type"] == "not_found_error"  # type: ignore[index]
    raw = httpx.post(f"{proxy.root}/v1/messages", content=b"{not json")
    assert raw.status_code == 400 and raw.json()["type"] == "error"
    raw = httpx.post(f"{proxy.root}/v1/messages", json={"model": "local", "messages": ASK})
    required = "max_tokens: Field required"  # Anthropic's words, its envelope
    assert raw.status_code == 400 and raw.json()["error"]["message"] == required


def test_upstream_rejection_passes_through_unmodified(
    proxy: RunningRouter, servers: dict[str, Running]
) -> None:
    servers["claude"].control("faults", {"fault": "context_length"})
    try:
        raw = httpx.post(
            f"{proxy.root}/v1/messages",
            json={"model": "claude", "max_tokens": 10, "messages": ASK},
        )
    finally:
        servers["claude"].control("faults", {"fault": None})
    assert raw.status_code == 400
    body = raw.json()
    assert body["type"] == "error" and body["error"]["type"] == "invalid_request_error"
    assert body["error"]["message"].startswith("prompt is too long")


@pytest.mark.parametrize("stream", [False, True])
def test_a_vllm_refusal_gets_anthropics_error_type(
    proxy: RunningRouter, servers: dict[str, Running], stream: bool
) -> None:
    """vLLM's own /v1/messages refuses in Anthropic's envelope with its class names
    (`BadRequestError`), which reached Claude Code unchanged, where a translated request's
    refusal says `invalid_request_error` (found in review). Its message is kept."""
    servers["local"].control("faults", {"fault": "bad_request"})
    try:
        with pytest.raises(anthropic.BadRequestError) as refused:
            anthropic_client(proxy).messages.create(
                model="local", max_tokens=10, messages=ASK, stream=stream
            )
    finally:
        servers["local"].control("faults", {"fault": None})
    body: Any = refused.value.body
    assert body["type"] == "error" and body["error"]["type"] == "invalid_request_error"
    assert body["error"]["message"] == "The request was refused (the bad_request fault)."


def test_fallback_mid_conversation_moves_to_the_next_backend(
    servers: dict[str, Running], tmp_path: Path
) -> None:
    with stack(servers, tmp_path) as proxy:
        sdk = anthropic_client(proxy)
        first = sdk.messages.with_raw_response.create(model="auto", max_tokens=100, messages=ASK)
        assert first.headers["x-smf-backend"] == "local"
        history = [
            *ASK,
            {"role": "assistant", "content": first.parse().content[0].text},  # type: ignore[union-attr]
            {"role": "user", "content": "Now add type hints to it."},
        ]
        servers["local"].control("faults", {"fault": "server_error:503"})
        try:
            with sdk.messages.with_streaming_response.create(
                model="auto", max_tokens=100, messages=history, stream=True
            ) as second:
                assert second.headers["x-smf-backend"] == "cloud"
                assert second.headers["x-smf-attempts"] == "2"
                text = "".join(second.iter_text())
        finally:
            servers["local"].control("faults", {"fault": None})
    assert "event: message_stop" in text


@pytest.mark.parametrize(
    ("fault", "says"), [("cut_stream", ("cut", "broke")), ("error_event", ("Internal server",))]
)
def test_a_stream_broken_after_the_commit_point_raises_in_the_sdk(
    servers: dict[str, Running], tmp_path: Path, fault: str, says: tuple[str, ...]
) -> None:
    with stack(servers, tmp_path, ["local"]) as proxy:
        servers["local"].control("faults", {"fault": fault})
        try:
            with (
                pytest.raises(anthropic.APIStatusError) as broken,
                anthropic_client(proxy).messages.stream(
                    model="local", max_tokens=200, messages=ASK
                ) as s,
            ):
                for _ in s:
                    pass
        finally:
            servers["local"].control("faults", {"fault": None})
    assert any(word in str(broken.value) for word in says)


def test_a_native_stream_that_finished_its_answer_without_message_stop_completes(
    servers: dict[str, Running], tmp_path: Path
) -> None:
    """The upstream closed after the message_delta with the stop reason but before
    message_stop: the answer was whole, as a translated or chat stream without its end is
    taken, yet it ended in an error event, a 502 record and a breaker failure (found in
    review)."""
    with stack(servers, tmp_path, ["local"]) as proxy:
        records = Collect()
        proxy.components.gateway.sinks.append(records)
        servers["local"].control("faults", {"fault": "missing_done"})
        try:
            with anthropic_client(proxy).messages.stream(
                model="local", max_tokens=30, messages=ASK
            ) as s:
                kinds = [event.type for event in s]
                final = s.get_final_message()
        finally:
            servers["local"].control("faults", {"fault": None})
        record = records.wait(30)
    assert kinds[-1] == "message_stop" and final.stop_reason in ("end_turn", "max_tokens")
    assert record.outcome == "ok" and record.attempts[0].error_kind is None


@pytest.mark.parametrize("native", [False, True])
def test_a_messages_stream_the_client_leaves_records_estimated_output(
    tmp_path_factory: pytest.TempPathFactory, native: bool
) -> None:
    """message_start carries output_tokens 0 or 1; only the message_delta says the real
    count. A stream cut before it is estimated from the text sent, and marked so."""
    profile = "anthropic" if native else "vllm"
    with simulator(profile=profile, model="local-model", tokens_per_s=20) as local:
        config = config_for({"local": local}, tmp_path_factory.mktemp("left"))
        data = config.model_dump()
        data["backends"][0]["apis"] = ["messages"] if native else ["chat"]
        with router(parse(data)) as proxy:
            records = Collect()
            proxy.components.gateway.sinks.append(records)
            body = {
                "model": "local",
                "max_tokens": 400,
                "stream": True,
                "messages": [{"role": "user", "content": "Write a long essay about the sea."}],
            }
            deltas = 0
            with httpx.stream("POST", f"{proxy.url}/messages", json=body, timeout=30) as reply:
                for line in reply.iter_lines():
                    deltas += '"text_delta"' in line
                    if deltas == 12:
                        break  # the client leaves mid-answer
            record = records.wait(30)
    assert record.outcome == "cancelled"
    assert record.usage.estimated and record.usage.completion_tokens >= 6


def test_a_pdf_alone_is_classified_as_an_image_alone_is(
    proxy: RunningRouter, servers: dict[str, Running]
) -> None:
    """The router's placeholder for a document chat cannot carry was classified as the
    user's words: a PDF alone went to the reasoning route (found in review). The backend
    that speaks chat is still told a document was there."""
    pdf = {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0xLjQK"}
    png = {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}
    heard = {}
    for kind, source in (("document", pdf), ("image", png)):
        raw = anthropic_client(proxy).messages.with_raw_response.create(
            model="auto",
            max_tokens=20,
            messages=[{"role": "user", "content": [{"type": kind, "source": source}]}],  # type: ignore[misc, list-item]
        )
        heard[kind] = (raw.headers["x-smf-intent"], raw.headers["x-smf-confidence"])
    assert heard["document"] == heard["image"]
    anthropic_client(proxy).messages.create(
        model="cloud",
        max_tokens=20,
        messages=[{"role": "user", "content": [{"type": "document", "source": pdf}]}],  # type: ignore[misc, list-item]
    )
    sent = servers["cloud"].stats()["last_request"]["messages"]
    assert "a document was attached here" in sent[-1]["content"]
