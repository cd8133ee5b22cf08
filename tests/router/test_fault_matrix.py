"""Every simulator fault × streaming or not × with or without a fallback backend.

The primary (`local`) carries the fault; `cloud` is healthy. Each case states what the
client must see and how many attempts each backend must have received.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import openai
import pytest

from router import dispatch, relay
from router.record import Usage
from tests.harness import (
    Attempts,
    Collect,
    Running,
    RunningRouter,
    config_for,
    router,
    simulator,
    wait_for,
)

FAST = {"connect_s": 1, "first_token_s": 1.2, "idle_s": 0.8, "total_s": 2.5}


@dataclass(frozen=True)
class Expect:
    served_by: str | None  # None: the client gets an error
    status: int | None = None  # HTTP status of the error (non-stream, or before commit)
    code: str | None = None
    mid_stream_error: bool = False  # stream committed, then ended with an in-band error
    local_attempts: int = 1


OK_LOCAL = Expect("local")
FALLBACK = Expect("cloud")

# fault -> (non-stream with fallback, non-stream alone, stream with fallback, stream alone)
MATRIX: dict[str, tuple[Expect, Expect, Expect, Expect]] = {
    "rate_limit:5": (
        FALLBACK,
        Expect(None, 429, "rate_limit_exceeded"),
        FALLBACK,
        Expect(None, 429),
    ),
    "rate_limit:0.1": (
        Expect("cloud", local_attempts=2),
        Expect(None, 429, local_attempts=2),
        Expect("cloud", local_attempts=2),
        Expect(None, 429, local_attempts=2),
    ),
    "rate_limit_no_retry_after": (FALLBACK, Expect(None, 429), FALLBACK, Expect(None, 429)),
    "server_error": (FALLBACK, Expect(None, 502), FALLBACK, Expect(None, 502)),
    "server_error:503": (FALLBACK, Expect(None, 503), FALLBACK, Expect(None, 503)),
    "reset": (FALLBACK, Expect(None, 502), FALLBACK, Expect(None, 502)),
    "no_response": (FALLBACK, Expect(None, 504), FALLBACK, Expect(None, 504)),
    "slow_first_token:5": (FALLBACK, Expect(None, 504), FALLBACK, Expect(None, 504)),
    # headers at once, then keep-alive comments: only a stream waits for its first event
    "queued:5": (OK_LOCAL, OK_LOCAL, FALLBACK, Expect(None, 504)),
    # opening events at once, then silence past idle_s (0.8 s) before the first token: the
    # held stream is a stall, and falls back (a whole reply is not delayed)
    "late_first_token:3": (OK_LOCAL, OK_LOCAL, FALLBACK, Expect(None, 504)),
    "stall:3": (
        FALLBACK,
        Expect(None, 504),
        Expect("local", mid_stream_error=True),
        Expect("local", mid_stream_error=True),
    ),
    "cut_stream": (
        FALLBACK,
        Expect(None, 502, "upstream_cut"),
        Expect("local", mid_stream_error=True),
        Expect("local", mid_stream_error=True),
    ),
    "malformed_chunk": (
        FALLBACK,
        Expect(None, 502),
        Expect("local", mid_stream_error=True),
        Expect("local", mid_stream_error=True),
    ),
    "missing_done": (OK_LOCAL, OK_LOCAL, OK_LOCAL, OK_LOCAL),
    # vLLM's in-band `data: {"error": ...}`: before the first event it is a failed attempt
    "error_event:0": (FALLBACK, Expect(None, 502), FALLBACK, Expect(None, 502)),
    "error_event": (
        FALLBACK,
        Expect(None, 502),
        Expect("local", mid_stream_error=True),
        Expect("local", mid_stream_error=True),
    ),
    # vLLM's engine dropping the request (shutdown, sleep): after its role chunk when no
    # token came yet, so the role chunk alone must not commit the stream
    "abort:0": (FALLBACK, Expect(None, 502, "upstream_cut"), FALLBACK, Expect(None, 502)),
    "abort": (
        FALLBACK,
        Expect(None, 502, "upstream_cut"),
        Expect("local", mid_stream_error=True),
        Expect("local", mid_stream_error=True),
    ),
    "context_length": (
        FALLBACK,
        Expect(None, 400, "context_length_exceeded"),
        FALLBACK,
        Expect(None, 400, "context_length_exceeded"),
    ),
    "down": (FALLBACK, Expect(None, 502), FALLBACK, Expect(None, 502)),
}

CASES = [
    pytest.param(
        fault,
        stream,
        fallback,
        MATRIX[fault][2 * stream + (not fallback)],
        id=f"{fault}-{'stream' if stream else 'plain'}-{'fallback' if fallback else 'alone'}",
    )
    for fault in MATRIX
    for stream in (False, True)
    for fallback in (True, False)
]


@pytest.fixture(scope="module")
def setup(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[dict[str, Running], RunningRouter]]:
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        backends = {"local": local, "cloud": cloud}
        config = config_for(backends, tmp_path_factory.mktemp("faults"))
        data = config.model_dump()
        for backend in data["backends"]:
            backend["timeouts"] = FAST
        from router.config import parse

        with router(parse(data)) as running:
            yield backends, running


def _requests(server: Running) -> int:
    return server.completions()


def _run(client: openai.OpenAI, model: str, stream: bool) -> tuple[str | None, Any]:
    """Returns (backend that served, error or None)."""
    messages = [{"role": "user", "content": "Write a Python function that adds two numbers."}]
    try:
        if not stream:
            raw = client.chat.completions.with_raw_response.create(model=model, messages=messages)  # type: ignore[arg-type]
            assert raw.parse().choices[0].message.content is not None
            return raw.headers["x-smf-backend"], None
        with client.chat.completions.with_streaming_response.create(
            model=model,
            messages=messages,
            stream=True,  # type: ignore[arg-type]
        ) as response:
            backend = response.headers["x-smf-backend"]
            try:
                finished = [c for c in response.parse() if c.choices and c.choices[0].finish_reason]
            except openai.APIError as error:
                return backend, ("mid", error)
            assert finished, "a stream ended without a finish_reason yet looked complete"
            return backend, None
    except openai.APIStatusError as error:
        return None, error


@pytest.mark.parametrize(("fault", "stream", "fallback", "expect"), CASES)
def test_fault(
    setup: tuple[dict[str, Running], RunningRouter],
    fault: str,
    stream: bool,
    fallback: bool,
    expect: Expect,
) -> None:
    backends, proxy = setup
    local, cloud = backends["local"], backends["cloud"]
    local.control("reset", {})
    before_local, before_cloud = _requests(local), _requests(cloud)
    # `down` closes the port itself (control included) until `for_s` runs out.
    local.control("faults", {"fault": fault} if fault != "down" else {"down": True, "for_s": 1.0})
    client = openai.OpenAI(base_url=proxy.url, api_key="none", max_retries=0, timeout=30)
    try:
        served, error = _run(client, "coding" if fallback else "local", stream)
    finally:
        if fault == "down":
            wait_for(f"{local.root}/health")
        local.control("faults", {"fault": None})
    if expect.mid_stream_error:
        assert served == expect.served_by and error and error[0] == "mid"
    elif expect.served_by:
        assert error is None, f"expected an answer from {expect.served_by}, got {error}"
        assert served == expect.served_by
    else:
        assert isinstance(error, openai.APIStatusError), f"expected an error, got {served}"
        assert error.status_code == expect.status
        _check_retry_advice(fault, error.response.headers)
        body = error.response.json()
        assert set(body["error"]) >= {"message", "type", "code"}
        if expect.code:
            assert body["error"]["code"] == expect.code
    if fault != "down":
        assert _requests(local) - before_local == expect.local_attempts
    assert _requests(cloud) - before_cloud == (1 if expect.served_by == "cloud" else 0)


def _check_retry_advice(fault: str, headers: httpx.Headers) -> None:
    """After a rate limit the client may retry once the backend's wait is over; after
    anything else the router already tried every fallback and says so."""
    if not fault.startswith("rate_limit"):
        assert headers.get("x-should-retry") == "false"
        return
    assert "x-should-retry" not in headers
    wait = fault.partition(":")[2]
    if not wait:
        assert "retry-after" not in headers and "retry-after-ms" not in headers
        return
    assert headers["retry-after-ms"] == str(round(float(wait) * 1000))
    assert headers["retry-after"] == str(math.ceil(float(wait)))


def test_a_rate_limited_plan_tells_the_sdk_the_soonest_wait(
    setup: tuple[dict[str, Running], RunningRouter],
) -> None:
    """Both backends rate-limited: the client hears the shorter wait, and the OpenAI SDK
    (retries on) honours it and tries again instead of giving up."""
    backends, proxy = setup
    local, cloud = backends["local"], backends["cloud"]
    local.control("faults", {"fault": "rate_limit:3"})
    cloud.control("faults", {"fault": "rate_limit:0.6"})
    before = _requests(cloud)
    client = openai.OpenAI(base_url=proxy.url, api_key="none", max_retries=1, timeout=30)
    try:
        _, error = _run(client, "coding", stream=False)
    finally:
        local.control("faults", {"fault": None})
        cloud.control("faults", {"fault": None})
    assert isinstance(error, openai.RateLimitError)
    assert error.response.headers["retry-after-ms"] == "600"
    assert _requests(cloud) - before == 2  # the SDK's retry went through the router again


@pytest.mark.parametrize(("wait", "expected"), [("inf", None), ("nan", None), ("1e300", "3600")])
def test_a_retry_after_that_is_no_sensible_wait_is_dropped_or_capped(
    setup: tuple[dict[str, Running], RunningRouter], wait: str, expected: str | None
) -> None:
    """`Retry-After: inf` made a 500 (rendering the header overflowed), `1e300` a 40-digit
    header and `nan` a retry at once (found in review)."""
    backends, proxy = setup
    local = backends["local"]
    local.control("faults", {"fault": f"rate_limit:{wait}"})
    client = openai.OpenAI(base_url=proxy.url, api_key="none", max_retries=0, timeout=30)
    try:
        _, error = _run(client, "local", stream=False)
    finally:
        local.control("faults", {"fault": None})
    assert isinstance(error, openai.RateLimitError)
    assert error.response.headers.get("retry-after") == expected
    if expected is not None:
        assert error.response.headers["retry-after-ms"] == f"{expected}000"


def test_malformed_json_from_client_is_a_400(
    setup: tuple[dict[str, Running], RunningRouter],
) -> None:
    _, proxy = setup
    response = httpx.post(
        f"{proxy.url}/chat/completions",
        content=b"{not json",
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 400
    assert response.json()["error"]["type"] == "invalid_request_error"


def test_an_upstream_past_its_first_token_deadline_is_closed_not_left_generating(
    setup: tuple[dict[str, Running], RunningRouter],
) -> None:
    """A queued upstream sends headers and keep-alives; after the fallback the router must
    close it, or it generates for nobody (and its keep-alives keep the idle timer away)."""
    backends, proxy = setup
    local = backends["local"]
    local.control("reset", {})
    local.control("faults", {"fault": "queued:5"})
    client = openai.OpenAI(base_url=proxy.url, api_key="none", max_retries=0, timeout=30)
    try:
        served, error = _run(client, "coding", stream=True)
        assert (served, error) == ("cloud", None)
        abandoned = 0
        for _ in range(60):  # the simulator notices at its next keep-alive (0.25 s)
            abandoned = local.stats()["abandoned"]
            if abandoned:
                break
            time.sleep(0.05)
    finally:
        local.control("faults", {"fault": None})
    assert abandoned == 1


def test_an_unforeseen_failure_in_an_attempt_falls_back_and_is_counted_finished(
    setup: tuple[dict[str, Running], RunningRouter], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Any exception, not only an upstream error: otherwise the backend's in-flight count
    never comes down (it ends up "saturated" for good) and the client gets a 500."""
    _, proxy = setup
    send = dispatch.exchange.send

    async def broken_on_local(backend: Any, *args: Any) -> Any:
        if backend.settings.name == "local":
            raise AttributeError("'str' object has no attribute 'get'")
        return await send(backend, *args)

    counter = Attempts()
    observers = proxy.components.gateway.dispatcher.observers
    monkeypatch.setattr(dispatch.exchange, "send", broken_on_local)
    observers.append(counter)
    try:
        client = openai.OpenAI(base_url=proxy.url, api_key="none", max_retries=0, timeout=30)
        served, error = _run(client, "coding", stream=False)
    finally:
        observers.remove(counter)
    assert (served, error) == ("cloud", None)
    assert counter.started == ["local", "cloud"]
    assert ("local", "malformed") in counter.finished and len(counter.finished) == 2


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
def test_a_reply_cut_mid_body_is_recorded_as_cut_not_unreachable(
    setup: tuple[dict[str, Running], RunningRouter], stream: bool
) -> None:
    """The backend answered 200 and then its connection closed mid-answer. It was reached,
    so the attempt is `cut`: an operator reading the error kinds must be able to tell that
    from a box that is off (both were `unreachable` before)."""
    backends, proxy = setup
    local = backends["local"]
    counter = Attempts()
    observers = proxy.components.gateway.dispatcher.observers
    local.control("faults", {"fault": "cut_stream"})
    observers.append(counter)
    try:
        client = openai.OpenAI(base_url=proxy.url, api_key="none", max_retries=0, timeout=30)
        _run(client, "coding", stream)
    finally:
        observers.remove(counter)
        local.control("faults", {"fault": None})
    assert counter.finished[0] == ("local", "cut")


@pytest.mark.parametrize(("model", "reason"), [("coding", "server_error"), ("local", None)])
def test_a_fallback_reason_is_recorded_only_when_a_fallback_ran(
    setup: tuple[dict[str, Running], RunningRouter], model: str, reason: str | None
) -> None:
    """A backend failing alone moved nowhere: its row and span said `fallback_reason`
    server_error with one attempt (found in review)."""
    backends, proxy = setup
    records = Collect()
    proxy.components.gateway.sinks.append(records)
    backends["local"].control("faults", {"fault": "server_error"})
    try:
        client = openai.OpenAI(base_url=proxy.url, api_key="none", max_retries=0, timeout=30)
        _run(client, model, stream=False)
        record = records.wait(5.0)
    finally:
        proxy.components.gateway.sinks.remove(records)
        backends["local"].control("faults", {"fault": None})
    assert (record.fallback_reason, record.fallbacks) == (reason, 1 if reason else 0)


def test_silence_after_the_opening_events_is_a_stall(
    setup: tuple[dict[str, Running], RunningRouter],
) -> None:
    """Once a held stream opened, the wait for its first token is bounded by idle_s between
    pieces (a reasoning model keeps it alive), and silence past it is a stall."""
    backends, proxy = setup
    counter = Attempts()
    observers = proxy.components.gateway.dispatcher.observers
    backends["local"].control("faults", {"fault": "late_first_token:3"})
    observers.append(counter)
    try:
        client = openai.OpenAI(base_url=proxy.url, api_key="none", max_retries=0, timeout=30)
        assert _run(client, "coding", stream=True) == ("cloud", None)
    finally:
        observers.remove(counter)
        backends["local"].control("faults", {"fault": None})
    assert counter.finished[0] == ("local", "stall")


def test_a_steady_stream_past_the_total_deadline_is_a_timeout_not_a_stall(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Tokens keep coming, 8 a second, until the 2.5 s total limit: the stall timer is what
    fires (its wait was cut to the time left), but a client, the ledger and the circuit
    must hear "timeout"."""
    with simulator(profile="vllm", model="slow-model", tokens_per_s=8) as slow:
        config = config_for({"slow": slow}, tmp_path_factory.mktemp("deadline"))
        data = config.model_dump()
        data["backends"][0]["timeouts"] = FAST
        from router.config import parse

        with router(parse(data)) as proxy:
            records = Collect()
            proxy.components.gateway.sinks.append(records)
            body = {
                "model": "slow",
                "stream": True,
                "max_tokens": 200,
                "messages": [{"role": "user", "content": "Write a long essay about the sea."}],
            }
            reply = httpx.post(f"{proxy.url}/chat/completions", json=body, timeout=30)
            record = records.wait(2.0)  # finished after the last byte was sent
    assert reply.status_code == 200 and "total time limit" in reply.text
    assert record.error_kind == "timeout"


def test_usage_of_reads_a_usage_that_is_not_an_object_as_none() -> None:
    """What kept a malformed upstream usage ("n/a") from raising in `Gateway.finish` and
    losing the record (the simulator cannot send one, so this is checked where it broke)."""
    assert relay.usage_of("chat", "n/a") is None
    assert relay.usage_of("chat", {"prompt_tokens": "many", "completion_tokens": 3}) == Usage(
        prompt_tokens=0, completion_tokens=3
    )
    named_otherwise = relay.usage_of("chat", {"input_tokens": 5, "output_tokens": 2})
    assert named_otherwise == Usage(prompt_tokens=5, completion_tokens=2)
