"""Every simulator fault × streaming or not × with or without a fallback backend.

The primary (`local`) carries the fault; `cloud` is healthy. Each case states what the
client must see and how many attempts each backend must have received. What the faults are
recorded as (each attempt's error kind, the fallback reason): test_fault_records.py.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import openai
import pytest

from tests.harness import Running, RunningRouter, wait_for
from tests.router.faulty_pair import ask, faulty_pair


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
    with faulty_pair(tmp_path_factory.mktemp("faults")) as pair:
        yield pair


def _requests(server: Running) -> int:
    return server.completions()


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
        served, error = ask(client, "coding" if fallback else "local", stream)
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
        _check_retry_advice(fault, error.status_code, error.response.headers)
        body = error.response.json()
        assert set(body["error"]) >= {"message", "type", "code"}
        if expect.code:
            assert body["error"]["code"] == expect.code
    if fault != "down":
        assert _requests(local) - before_local == expect.local_attempts
    assert _requests(cloud) - before_cloud == (1 if expect.served_by == "cloud" else 0)


def _check_retry_advice(fault: str, status: int, headers: httpx.Headers) -> None:
    """After a rate limit the client may retry once the backend's wait is over; after a
    fast failure (a 5xx answer, a reset, a cut: the 502s; an overload naming no wait, the
    503) the SDK's own 5xx rule retries, as against the backend itself; after a deadline
    (the 504s) or a refusal the router already tried every fallback and says a retry is
    futile."""
    if status in (502, 503):
        assert "x-should-retry" not in headers
        return
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
        _, error = ask(client, "coding", stream=False)
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
        _, error = ask(client, "local", stream=False)
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
        served, error = ask(client, "coding", stream=True)
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
