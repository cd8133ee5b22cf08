"""What the request span says and carries: its status (the router's failures only), the
request id, and the W3C trace context (`traceparent` and `tracestate`) for the backends.

Found in review: a backend's 400 passed through and a client that hung up marked the server
span ERROR, so trace error rates counted them as the router's failures; no span named its
request id; `tracestate` never reached a backend, a later `traceparent` version started a new
trace, and upper-case hex, which the spec forbids, was taken.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_tracing_otlp import Receiver, attrs, receiving

from router.config import Backend
from router.record import Outcome, Record
from router.trace_context import TRACESTATE_MAX_CHARS, TRACESTATE_MAX_ENTRIES, tracestate_entries
from router.tracing import Tracing
from tests.harness import (
    Collect,
    Running,
    config_for,
    router,
    send_json,
    simulator,
    upstream,
    wait_until,
)

LOCAL = Backend(name="local", tier="local", base_url="http://h/v1", model="m")
"""The backend an attempt is made with (`Tracing.start_attempt`), where which one is moot."""

TRACE = "0af7651916cd43dd8448eb211c80319c"
PARENT = "b7ad6b7169203331"
BODY = {"model": "local", "messages": [{"role": "user", "content": "hi"}]}
REPLY = {
    "id": "c",
    "object": "chat.completion",
    "created": 0,
    "model": "local-model",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "hello"}, "finish_reason": "stop"}
    ],
    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
}


@pytest.fixture
def traced(monkeypatch: pytest.MonkeyPatch) -> Iterator[Receiver]:
    """An OTLP receiver; a router started in the test exports to it (at its exit at the
    latest)."""
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    with receiving() as receiver:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url)
        yield receiver


@pytest.fixture
def heard() -> Iterator[tuple[Running, list[dict[str, str]]]]:
    """A chat backend that answers every call and keeps the headers each one came with."""
    calls: list[dict[str, str]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", 0)))
            calls.append({k.lower(): v for k, v in self.headers.items()})
            send_json(self, 200, json.dumps(REPLY).encode())

        def log_message(self, *args: object) -> None:
            pass

    with upstream(Handler) as server:
        yield server, calls


def server_spans(receiver: Receiver) -> list[Any]:
    return [s for s in receiver.spans() if s.kind == s.SPAN_KIND_SERVER]


def test_a_backends_400_and_a_client_that_left_leave_the_server_span_status_unset(
    traced: Receiver, tmp_path: Path
) -> None:
    """OTel's HTTP conventions: a server span's status stays unset on a 4xx, and a hang-up
    (recorded 499) is no failure of the router's either. `error.type` still says what ended
    them. The refused attempt's client span stays ERROR (for a client, a 4xx is one); the
    one the hang-up ended is UNSET too, as its request span (it said ERROR: found in
    review)."""
    with (
        simulator(profile="vllm", model="local-model") as local,
        router(config_for({"local": local}, tmp_path)) as proxy,
    ):
        collect = Collect()
        proxy.components.gateway.sinks.append(collect)
        local.control("faults", {"fault": "bad_request"})
        refused = httpx.post(f"{proxy.url}/chat/completions", json=BODY, timeout=10)
        local.control("faults", {"fault": "hold"})  # at the backend until the client leaves
        with pytest.raises(httpx.ReadTimeout):
            httpx.post(f"{proxy.url}/chat/completions", json=BODY, timeout=0.5)
        assert wait_until(lambda: len(collect.records) == 2, 15)
        local.control("faults", {"fault": None})
    assert refused.status_code == 400
    ended = [(r.outcome, r.status) for r in collect.records]
    assert ended == [("client_error", 400), ("cancelled", 499)]
    spans = {attrs(s)["smf.outcome"]: s for s in server_spans(traced)}
    assert set(spans) == {"client_error", "cancelled"}
    client_ended = [("client_error", 400, "rejected"), ("cancelled", 499, "cancelled")]
    for outcome, status, kind in client_ended:
        span = spans[outcome]
        assert span.status.code == span.status.STATUS_CODE_UNSET, outcome
        assert attrs(span)["error.type"] == kind
        assert attrs(span)["http.response.status_code"] == status
    attempts = {attrs(s)["error.type"]: s for s in traced.spans() if s.kind == s.SPAN_KIND_CLIENT}
    assert set(attempts) == {"rejected", "cancelled"}
    assert attempts["rejected"].status.code == attempts["rejected"].status.STATUS_CODE_ERROR
    assert attempts["cancelled"].status.code == attempts["cancelled"].status.STATUS_CODE_UNSET


UNSET, ERROR = "STATUS_CODE_UNSET", "STATUS_CODE_ERROR"


@pytest.mark.parametrize(
    ("outcome", "kind", "status", "expected"),
    [
        ("ok", None, 200, UNSET),
        ("client_error", "rejected", 400, UNSET),  # a backend's 400, passed through
        ("client_error", "invalid_request", 400, UNSET),
        ("cancelled", "cancelled", 499, UNSET),  # the client left
        ("cancelled", "cancelled", 503, ERROR),  # the router's drain ran out
        ("upstream_error", "timeout", 504, ERROR),
        ("upstream_error", "context_length_exceeded", 400, ERROR),  # after a fallback
        ("router_error", "router_error", 500, ERROR),
    ],
)
def test_the_server_span_is_error_only_when_the_router_failed_the_request(
    traced: Receiver, outcome: Outcome, kind: str | None, status: int, expected: str
) -> None:
    tracing = Tracing.from_env({"OTEL_EXPORTER_OTLP_ENDPOINT": traced.url})
    record = Record("r", 0.0, outcome=outcome, error_kind=kind, status=status)
    tracing.finish_request(tracing.start_request("chat", "auto"), record)
    tracing.shutdown()
    (span,) = traced.spans()
    assert span.status.code == getattr(span.status, expected)
    assert attrs(span).get("error.type") == kind


def test_the_request_span_names_the_request_id_of_the_reply_and_the_ledger(
    traced: Receiver, tmp_path: Path
) -> None:
    """The id an operator holds (a ledger row's, a log line's, a client's `x-request-id`)
    finds the trace: the client's own when it gave one, else the router's."""
    with (
        simulator(profile="vllm", model="local-model") as local,
        router(config_for({"local": local}, tmp_path)) as proxy,
    ):
        collect = Collect()
        proxy.components.gateway.sinks.append(collect)
        chat = f"{proxy.url}/chat/completions"
        given = httpx.post(chat, json=BODY, headers={"x-request-id": "ticket-4711"}, timeout=10)
        made = httpx.post(chat, json=BODY, timeout=10)
        assert wait_until(lambda: len(collect.records) == 2, 15)
    ids = [given.headers["x-request-id"], made.headers["x-request-id"]]
    assert ids[0] == "ticket-4711" and ids[1]
    assert [r.request_id for r in collect.records] == ids
    assert sorted(attrs(s)["smf.request_id"] for s in server_spans(traced)) == sorted(ids)


def test_the_callers_tracestate_reaches_the_backend_with_a_later_versions_trace(
    traced: Receiver, heard: tuple[Running, list[dict[str, str]]], tmp_path: Path
) -> None:
    """A `traceparent` of a later version is read for its first four fields (W3C Trace
    Context: its other fields are ignored), and the caller's `tracestate` goes to the backend
    beside the attempt's `traceparent`, unchanged."""
    backend, calls = heard
    tracestate = "vendor=abc, rojo=00f067aa0ba902b7"
    caller = {"traceparent": f"01-{TRACE}-{PARENT}-01-later-field", "tracestate": tracestate}
    with router(config_for({"local": backend}, tmp_path)) as proxy:
        reply = httpx.post(f"{proxy.url}/chat/completions", json=BODY, headers=caller, timeout=10)
    assert reply.status_code == 200
    (request,) = server_spans(traced)
    (attempt,) = [s for s in traced.spans() if s.kind == s.SPAN_KIND_CLIENT]
    assert (request.trace_id.hex(), request.parent_span_id.hex()) == (TRACE, PARENT)
    (sent,) = calls
    assert sent["traceparent"] == f"00-{TRACE}-{attempt.span_id.hex()}-01"
    assert sent["tracestate"] == tracestate


LONGEST = "k=" + "v" * (TRACESTATE_MAX_CHARS - 2)


@pytest.mark.parametrize(
    ("traceparent", "tracestate", "continued", "forwarded"),
    [
        (f"00-{TRACE}-{PARENT}-01", "vendor=abc", True, "vendor=abc"),
        (f"01-{TRACE}-{PARENT}-01", "vendor=abc", True, "vendor=abc"),  # a later version
        (f"cc-{TRACE}-{PARENT}-01-what-comes-next", None, True, None),
        (f"00-{TRACE}-{PARENT}-01-extra", "vendor=abc", False, None),  # 00 has four fields
        (f"cc-{TRACE}-{PARENT}-01x", None, False, None),  # a fifth field begins with "-"
        (f"ff-{TRACE}-{PARENT}-01", "vendor=abc", False, None),  # ff is no version
        (f"00-{TRACE.upper()}-{PARENT}-01", "vendor=abc", False, None),  # lower-case only
        (f"00-{TRACE}-{PARENT.upper()}-01", None, False, None),
        (f"00-{'0' * 32}-{PARENT}-01", None, False, None),
        ("garbage", "vendor=abc", False, None),  # no valid parent: its tracestate is not read
        (f"00-{TRACE}-{PARENT}-01", LONGEST, True, LONGEST),
        (f"00-{TRACE}-{PARENT}-01", LONGEST + "v", True, None),  # over 512: dropped whole
        (f"00-{TRACE}-{PARENT}-01", "vendor=caf\u00e9", True, None),  # not sendable
        (f"00-{TRACE}-{PARENT}-01", "   ", True, None),
    ],
)
def test_w3c_trace_context_is_read_and_forwarded_as_level_1_says(
    traced: Receiver,
    traceparent: str,
    tracestate: str | None,
    continued: bool,
    forwarded: str | None,
) -> None:
    tracing = Tracing.from_env({"OTEL_EXPORTER_OTLP_ENDPOINT": traced.url})
    headers = {"traceparent": traceparent} | ({"tracestate": tracestate} if tracestate else {})
    root = tracing.start_request("chat", "auto", headers=headers)
    attempt = tracing.start_attempt(root, LOCAL)
    sent: dict[str, str] = {}
    tracing.inject(attempt, sent)
    tracing.end(attempt)
    tracing.end(root)
    tracing.shutdown()
    assert (root.trace_id == int(TRACE, 16)) is continued
    assert (root.parent_id == int(PARENT, 16)) is continued
    assert sent["traceparent"] == f"00-{root.trace_id:032x}-{attempt.span_id:016x}-01"
    assert sent.get("tracestate") == forwarded


@pytest.mark.parametrize(
    ("tracestate", "entries"),
    [
        ("a=1, b=2", (("a", "1"), ("b", "2"))),
        ("a=1,,b=2", (("a", "1"), ("b", "2"))),  # an empty member is allowed
        ("a=1,a=2", ()),  # a key twice: no list
        (",".join(f"k{n}=1" for n in range(TRACESTATE_MAX_ENTRIES)), None),
        (",".join(f"k{n}=1" for n in range(TRACESTATE_MAX_ENTRIES + 1)), ()),  # 33 members
    ],
)
def test_a_tracestate_the_sdk_would_not_read_gives_the_spans_no_entries(
    tracestate: str, entries: tuple[tuple[str, str], ...] | None
) -> None:
    """The entries the exported spans carry are none for a list the SDK's own reading
    refuses (`TraceState.from_header`): a key repeated, more than 32 members."""
    read = tracestate_entries(tracestate)
    assert read == entries if entries is not None else len(read) == TRACESTATE_MAX_ENTRIES
