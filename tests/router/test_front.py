"""The raw ASGI front for the model APIs: hang-ups, bugs and fall-through to FastAPI."""

from __future__ import annotations

import json
import logging
import select
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from router import relay as relay_module
from router.api import body as body_module
from router.api import front
from router.app import RouterApp, create_app
from tests.harness import (
    Attempts,
    Collect,
    Running,
    RunningRouter,
    breaks_on_call,
    config_for,
    router,
    simulator,
)

BODY = {"model": "local", "messages": [{"role": "user", "content": "Tell me a long story."}]}


@pytest.fixture(scope="module")
def slow() -> Iterator[Running]:
    # 10 tokens a second: a 300-token answer would stream for 30 s.
    with simulator(profile="vllm", model="local-model", tokens_per_s=10) as local:
        yield local


@pytest.fixture
def proxy(slow: Running, tmp_path: Path) -> Iterator[RunningRouter]:
    with router(config_for({"local": slow}, tmp_path)) as running:
        yield running


def test_a_client_that_hangs_up_mid_stream_cancels_the_relay(proxy: RunningRouter) -> None:
    collect = Collect()
    proxy.components.gateway.sinks.append(collect)
    body = {**BODY, "stream": True, "max_tokens": 300, "ignore_eos": True}
    with (
        httpx.Client(timeout=10) as client,
        client.stream("POST", f"{proxy.url}/chat/completions", json=body) as response,
    ):
        assert response.status_code == 200
        assert response.headers["content-type"] == "text/event-stream; charset=utf-8"
        next(response.iter_bytes())
    record = collect.wait(15)  # far sooner than the 30 s the stream would have taken
    assert record.outcome == "cancelled"
    assert record.attempts[0].error_kind == "cancelled"
    # not 200 and no kind, as it was: the ledger would say the answer was delivered
    assert (record.status, record.error_kind) == (499, "cancelled")


def test_a_bug_answers_500_in_openai_shape_and_is_logged(
    proxy: RunningRouter, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any, **kwargs: Any) -> None:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(proxy.components.gateway, "prepare", broken)
    with caplog.at_level(logging.ERROR, logger="smf_router"):
        response = httpx.post(f"{proxy.url}/chat/completions", json=BODY, timeout=10)
    assert response.status_code == 500
    assert response.json()["error"]["type"] == "server_error"
    assert "ZeroDivisionError" not in response.text
    assert any(r.exc_info and r.exc_info[0] is ZeroDivisionError for r in caplog.records)


@pytest.mark.parametrize("path", ["chat/completions", "messages"])
def test_a_bug_past_the_refusals_answers_500_with_the_request_id_it_logs(
    proxy: RunningRouter,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    path: str,
) -> None:
    """A bug that escapes even the refusal (handing its record on fails) is answered by
    `serve`'s last resort: its 500 had no `x-request-id` (found in review), so a user had
    no id to quote, and its log line none to find it by."""

    def broken(*args: Any, **kwargs: Any) -> None:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(proxy.components.gateway, "refused", broken)
    body = {**BODY, "model": "no-such-model", "max_tokens": 5}  # refused: its record is handed on
    with caplog.at_level(logging.ERROR, logger="smf_router"):
        own = httpx.post(
            f"{proxy.url}/{path}", json=body, headers={"x-request-id": "report-7"}, timeout=10
        )
        made = httpx.post(f"{proxy.url}/{path}", json=body, timeout=10)
    assert (own.status_code, made.status_code) == (500, 500), made.text
    assert own.headers.get("x-request-id") == "report-7"
    assert made.headers.get("x-request-id")
    if path == "messages":  # and under Anthropic's name, in Anthropic's envelope
        assert made.headers.get("request-id") == made.headers["x-request-id"]
        assert made.json()["error"]["type"] == "api_error"
    logged = [r.getMessage() for r in caplog.records if r.exc_info]
    assert any("report-7" in line for line in logged), logged
    assert any(made.headers["x-request-id"] in line for line in logged), logged


@pytest.mark.parametrize("stream", [False, True])
def test_a_bug_after_the_backend_answered_still_finishes_the_record_once(
    proxy: RunningRouter, monkeypatch: pytest.MonkeyPatch, stream: bool
) -> None:
    def broken(*args: Any, **kwargs: Any) -> None:
        raise ZeroDivisionError("a bug")

    collect, attempts = Collect(), Attempts()
    proxy.components.gateway.sinks.append(collect)
    proxy.components.gateway.dispatcher.observers.append(attempts)
    monkeypatch.setattr(front, "_raw", broken)  # building the reply's headers fails
    body = {**BODY, "stream": stream, "max_tokens": 3}
    response = httpx.post(f"{proxy.url}/chat/completions", json=body, timeout=10)
    assert response.status_code == 500
    record = collect.wait(30)
    assert record.outcome == "router_error" and record.status == 500
    assert record.backend == "local"  # the attempt that succeeded is in the record
    time.sleep(0.2)
    assert len(collect.records) == 1
    assert attempts.running == 0 and attempts.ended == ["router_error"]  # none left running


def test_only_exact_hot_posts_take_the_front() -> None:
    post = {"type": "http", "method": "POST", "path": "/v1/chat/completions"}
    assert front.hot_api(post) == "chat"
    assert front.hot_api({**post, "path": "/v1/completions"}) == "completions"
    assert front.hot_api({**post, "path": "/v1/responses"}) == "responses"
    assert front.hot_api({**post, "path": "/v1/messages"}) == "messages"
    assert front.hot_api({**post, "path": "/v1/messages/count_tokens"}) is None
    assert front.hot_api({**post, "method": "GET"}) is None
    assert front.hot_api({**post, "path": "/v1/chat/completions/"}) is None
    assert front.hot_api({"type": "lifespan"}) is None


async def test_other_requests_fall_through_to_fastapi(tmp_path: Path) -> None:
    with simulator(profile="vllm", model="local-model") as local:
        app = create_app(config_for({"local": local}, tmp_path))
        assert isinstance(app, RouterApp)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
            wrong_method = await client.get("/v1/chat/completions")
            models = await client.get("/v1/models")
    assert wrong_method.status_code == 405
    assert wrong_method.json()["error"]["type"] == "invalid_request_error"
    assert models.status_code == 200


STREAMS = {
    "chat/completions": {**BODY, "stream": True, "max_tokens": 300},
    "completions": {"model": "local", "prompt": "Tell me a long story.", "stream": True},
    "responses": {"model": "local", "input": "Tell me a long story.", "stream": True},
    "messages": {**BODY, "stream": True, "max_tokens": 300},
}


@pytest.mark.parametrize("path", list(STREAMS))
def test_a_client_gone_before_the_first_token_still_leaves_a_record(
    slow: Running, tmp_path: Path, path: str
) -> None:
    """The client hangs up while the router waits for the first token: the attempt is
    cancelled then (no backend served), and the request is in the ledger, once. The first
    token is 20 s away and the router waits 30 s for it, so however slow a loaded machine
    is to notice the hang-up, the token cannot come first (with 1 s it once did)."""
    collect = Collect()
    slow.control("faults", {"fault": "slow_first_token:20"})
    try:
        late = config_for({"local": slow}, tmp_path, timeouts={"first_token_s": 30, "total_s": 60})
        with router(late) as proxy:
            proxy.components.gateway.sinks.append(collect)
            with pytest.raises(httpx.ReadTimeout):
                httpx.post(f"{proxy.url}/{path}", json=STREAMS[path], timeout=0.3)
            record = collect.wait(15.0)
            time.sleep(0.2)  # a second record would come now, while the router still runs
    finally:
        slow.control("faults", {"fault": None})
    assert (record.outcome, record.status, record.error_kind) == ("cancelled", 499, "cancelled")
    assert record.backend is None
    assert [(a.backend, a.error_kind) for a in record.attempts] == [("local", "cancelled")]
    assert len(collect.records) == 1


def test_a_client_gone_before_the_first_byte_stops_the_work(tmp_path: Path) -> None:
    """The router noticed a hang-up only once it streamed: it waited out the primary's
    first-token deadline, then opened a new, billed cloud attempt for nobody; a whole reply
    was generated to its end, holding its backend slot, and recorded `ok` (found in review)."""
    with (
        simulator(profile="vllm", model="local-model", tokens_per_s=20) as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
        router(config_for({"local": local, "cloud": cloud}, tmp_path)) as proxy,
    ):
        collect, attempts = Collect(), Attempts()
        proxy.components.gateway.sinks.append(collect)
        proxy.components.gateway.dispatcher.observers.append(attempts)
        local.control("faults", {"fault": "slow_first_token:5"})  # past its 2 s deadline
        streamed = {**BODY, "model": "coding", "stream": True}
        whole = {**BODY, "model": "coding", "max_tokens": 100, "ignore_eos": True}
        for body in (streamed, whole):
            with pytest.raises(httpx.ReadTimeout):
                httpx.post(f"{proxy.url}/chat/completions", json=body, timeout=0.5)
        end = time.monotonic() + 15  # the old code recorded the whole reply after ~10 s
        while len(collect.records) < 2 and time.monotonic() < end:
            time.sleep(0.05)
        local.control("faults", {"fault": None})
        cloud_requests = cloud.completions()
    ended = [(r.stream, r.outcome, r.status, r.backend) for r in collect.records]
    assert ended == [(True, "cancelled", 499, None), (False, "cancelled", 499, None)]
    assert attempts.started == ["local", "local"] and cloud_requests == 0
    assert attempts.running == 0  # both slots released


def test_messages_errors_leave_in_anthropic_shape(
    proxy: RunningRouter, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any, **kwargs: Any) -> None:
        raise ZeroDivisionError("a bug")

    body = {**BODY, "model": "nope", "max_tokens": 5}
    unknown = httpx.post(f"{proxy.url}/messages", json=body, timeout=10)
    monkeypatch.setattr(proxy.components.gateway, "prepare", broken)
    bug = httpx.post(f"{proxy.url}/messages", json=BODY, timeout=10)
    assert unknown.status_code == 404
    assert unknown.json()["type"] == "error"
    assert unknown.json()["error"]["type"] == "not_found_error"
    assert "nope" in unknown.json()["error"]["message"]
    assert bug.status_code == 500
    assert bug.json()["type"] == "error"
    assert bug.json()["error"]["type"] == "api_error" and bug.json()["error"]["message"]


@pytest.mark.parametrize(
    ("path", "last_event"), [("messages", "event: error"), ("responses", "event: response.failed")]
)
def test_a_bug_mid_stream_ends_it_with_the_apis_error_event(
    proxy: RunningRouter, monkeypatch: pytest.MonkeyPatch, path: str, last_event: str
) -> None:
    def broken(*args: Any, **kwargs: Any) -> None:
        raise ZeroDivisionError("a bug")

    collect = Collect()
    proxy.components.gateway.sinks.append(collect)
    monkeypatch.setattr(relay_module.events, "see", broken)  # reading an upstream event fails
    body = {**STREAMS[path], "max_tokens": 3, "max_output_tokens": 3}
    response = httpx.post(f"{proxy.url}/{path}", json=body, timeout=10)
    assert response.status_code == 200
    events = [e for e in response.text.split("\n\n") if e.strip()]
    assert events[-1].startswith(last_event), events[-1]
    assert "ZeroDivisionError" not in response.text
    record = collect.wait(30)
    assert record.outcome == "router_error" and record.status == 500
    assert record.attempts[0].error_kind == "router_error"


def test_a_bug_mid_responses_stream_ends_it_under_the_responses_own_id(
    proxy: RunningRouter, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The relay ends its own broken stream, so the `response.failed` event names the
    response the client has been reading and numbers itself after the events it saw."""
    monkeypatch.setattr(relay_module.events, "see", breaks_on_call(4, relay_module.events.see))
    body = {**STREAMS["responses"], "max_output_tokens": 20}
    response = httpx.post(f"{proxy.url}/responses", json=body, timeout=10)
    datas = [
        json.loads(line[6:]) for line in response.text.splitlines() if line.startswith("data: ")
    ]
    created, failed = datas[0], datas[-1]
    assert created["type"] == "response.created" and failed["type"] == "response.failed"
    assert failed["response"]["id"] == created["response"]["id"] != "resp_router"
    assert failed["sequence_number"] > max(d["sequence_number"] for d in datas[:-1])


def test_a_body_that_stops_arriving_is_answered_408_and_the_connection_closed(
    proxy: RunningRouter, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(body_module, "BODY_STALL_S", 0.5)
    head = (
        b"POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\n"
        b"content-type: application/json\r\ncontent-length: 100\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", int(proxy.root.rpartition(":")[2]))) as client:
        client.settimeout(10)
        client.sendall(head + b'{"model":')  # and then nothing, the socket left open
        answer = b""
        while chunk := client.recv(4096):  # until the router closes the connection
            answer += chunk
    status, _, rest = answer.partition(b"\r\n")
    assert status == b"HTTP/1.1 408 Request Timeout"
    assert b"connection: close" in rest.lower()
    assert json.loads(rest.partition(b"\r\n\r\n")[2])["error"]["code"] == "request_timeout"


def test_a_body_trickling_in_below_the_minimum_rate_is_answered_408(
    proxy: RunningRouter, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One byte every 0.3 s never trips a 1 s gap limit, and a 100-byte body would hold its
    task for half a minute (a real trickler: hours): the average rate bounds it too."""
    monkeypatch.setattr(body_module, "BODY_STALL_S", 1.0)
    monkeypatch.setattr(body_module, "BODY_MIN_RATE", 10)
    head = (
        b"POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\n"
        b"content-type: application/json\r\ncontent-length: 100\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", int(proxy.root.rpartition(":")[2]))) as client:
        client.settimeout(10)
        client.sendall(head)
        for _ in range(100):  # bounded: the body's length
            readable, _, _ = select.select([client], [], [], 0.3)
            if readable:
                break  # the router answered before the body was complete
            client.sendall(b" ")
        answer = b""
        while chunk := client.recv(4096):  # until the router closes the connection
            answer += chunk
    status, _, rest = answer.partition(b"\r\n")
    assert status == b"HTTP/1.1 408 Request Timeout"
    assert b"bytes/s" in rest.partition(b"\r\n\r\n")[2]
