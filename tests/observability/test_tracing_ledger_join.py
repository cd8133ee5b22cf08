"""What a request span says of what its ledger row holds: the backends the plan passed over,
the conversation, the backend that answered, the tokens counted (or none), and the caller's
`tracestate` on every span.

Found in a live review with a real collector: a backend skipped (waiting out a 429) left no
mark on the trace, and a 503 whose every backend was skipped had no attempt span at all; no
span named the conversation, so a trace backend could not group a session's turns; a
backend's 400 passed through left the request span without `smf.backend`; a request nothing
was counted for said 0 tokens, and an estimate looked like a count; the caller's
`tracestate` reached the backends but no exported span. The real router on the simulators,
exporting to a real OTLP/HTTP receiver, and its ledger's DuckDB files.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_tracing_otlp import Receiver, attrs, receiving

from router.config import Config, parse
from router.ledger import Ledger
from tests.harness import (
    INTENTS,
    Collect,
    RunningRouter,
    collected,
    config_for,
    router,
    simulator,
    wait_until,
)

CODING = [{"role": "user", "content": "Write a Python function that parses YAML."}]
TRACE = "0af7651916cd43dd8448eb211c80319c"
CALLER = f"00-{TRACE}-b7ad6b7169203331-01"
SKIPPED = "smf.backend_skipped"
ANSWERED = ("smf.backend", "smf.tier", "gen_ai.provider.name", "gen_ai.response.model")
TOKENS = ("gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens", "smf.tokens_estimated")


@pytest.fixture
def traced(monkeypatch: pytest.MonkeyPatch) -> Iterator[Receiver]:
    """An OTLP receiver; a router started in the test exports to it (at its exit at the
    latest)."""
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    with receiving() as receiver:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url)
        yield receiver


def _requests(receiver: Receiver) -> dict[str, Any]:
    """Each request span, by its request id."""
    spans = [s for s in receiver.spans() if s.kind == s.SPAN_KIND_SERVER]
    return {attrs(s)["smf.request_id"]: s for s in spans}


def _rows(proxy: RunningRouter, columns: str) -> dict[str, tuple[Any, ...]]:
    """`columns` of every row of the router's ledger, by request id (flushed first)."""
    assert proxy.components.ledger is not None
    proxy.components.ledger.flush()
    with Ledger(Path(proxy.components.config.ledger.path)) as ledger:
        rows = ledger.sql(f"SELECT request_id, {columns} FROM records")
    return {row[0]: row[1:] for row in rows}


def _send(proxy: RunningRouter, request_id: str, **extra: Any) -> httpx.Response:
    headers = {"x-request-id": request_id, **extra.pop("headers", {})}
    body = {"model": extra.pop("model", "auto"), "messages": CODING, **extra}
    return httpx.post(f"{proxy.url}/chat/completions", json=body, headers=headers, timeout=10)


def _waiting_config(servers: dict[str, Any], tmp_path: Path) -> Config:
    """Every route local first, then the cloud; `local_only` the local alone. A 429's
    `Retry-After` over 0.5 s (`config_for`'s `retry_after_max_s`) is a wait: the next
    requests pass the local by."""
    routes = {i: ["local", "cloud"] for i in INTENTS} | {"local_only": ["local"]}
    return config_for(servers, tmp_path, routes=routes, resilience={"enabled": True})


def test_each_backend_passed_over_is_an_event_on_the_request_span(
    traced: Receiver, tmp_path: Path
) -> None:
    """Once the local asked to wait, a request served by the cloud, and one whose every
    backend was skipped, each carry one event per backend passed over, naming it and why, as
    the ledger's `attempts` do; `smf.attempts` still counts the backends called. The last is
    a 429, not a 503: a rate limit's wait alone keeps its one backend away
    (`router.refusals`)."""
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
        router(_waiting_config({"local": local, "cloud": cloud}, tmp_path)) as proxy,
    ):
        records = collected(proxy)
        local.control("faults", {"fault": "rate_limit:30"})
        assert _send(proxy, "asked-to-wait").status_code == 200  # local's 429, then the cloud
        assert _send(proxy, "passed-by").status_code == 200
        refused = _send(proxy, "none-left", headers={"x-smf-route": "local_only"})
        assert refused.status_code == 429
        assert refused.json()["error"]["code"] == "rate_limit_exceeded"
        assert wait_until(lambda: len(records.records) == 3, 15)
        rows = _rows(proxy, "attempts")
    spans = _requests(traced)
    assert not spans["asked-to-wait"].events  # local was called: an attempt span says so
    assert attrs(spans["asked-to-wait"])["smf.attempts"] == 2
    for request_id, called in (("passed-by", 1), ("none-left", 0)):
        span = spans[request_id]
        (event,) = span.events
        assert event.name == SKIPPED
        assert attrs(event) == {
            "smf.backend": "local",
            "smf.tier": "local",
            "smf.skip_reason": "rate_limited",
        }
        assert span.start_time_unix_nano <= event.time_unix_nano <= span.end_time_unix_nano
        assert attrs(span)["smf.attempts"] == called
        skips = [a for a in rows[request_id][0] if a["outcome"] == "skipped"]  # as the ledger
        assert [(a["backend"], a["error_kind"]) for a in skips] == [("local", "rate_limited")]


def test_a_window_passed_over_after_a_refusal_for_length_is_an_event_when_it_was(
    traced: Receiver, tmp_path: Path
) -> None:
    """`local` refuses the prompt as too long; `local_small`, next, has a window no larger,
    so it is passed over then, not by the plan: one event names it and `context_too_long`,
    after the refused attempt's span ends, as the ledger's `attempts` say."""
    with (
        simulator(profile="vllm", model="local-model", fault="context_length") as big,
        simulator(profile="vllm", model="local_small-model") as small,
    ):
        data = config_for({"local": big, "local_small": small}, tmp_path).model_dump(mode="json")
        data["backends"][0]["context_window"] = 262144
        data["backends"][1]["context_window"] = 8192
        with router(parse(data)) as proxy:
            records = collected(proxy)
            assert _send(proxy, "too-long").status_code == 400
            assert wait_until(lambda: len(records.records) == 1, 15)
            rows = _rows(proxy, "attempts")
        assert small.completions() == 0
    (span,) = _requests(traced).values()
    (tried,) = [
        s
        for s in traced.spans()
        if s.parent_span_id == span.span_id and s.kind == s.SPAN_KIND_CLIENT
    ]
    (event,) = span.events
    assert event.name == SKIPPED
    assert attrs(event) == {
        "smf.backend": "local_small",
        "smf.tier": "local",
        "smf.skip_reason": "context_too_long",
    }
    assert tried.end_time_unix_nano <= event.time_unix_nano <= span.end_time_unix_nano
    assert attrs(span)["smf.attempts"] == 1
    attempts = [(a["backend"], a["outcome"], a["error_kind"]) for a in rows["too-long"][0]]
    assert attempts == [
        ("local", "error", "context_too_long"),
        ("local_small", "skipped", "context_too_long"),
    ]


def test_the_request_span_names_the_ledgers_conversation_never_the_session_id(
    traced: Receiver, tmp_path: Path
) -> None:
    """`gen_ai.conversation.id` is the ledger row's `conversation`, the keyed hash: one for
    a session's turns, another for another session; the session id itself is on no span."""
    sessions = {"turn-1": "lf-session-4711", "turn-2": "lf-session-4711", "other": "lf-9"}
    with (
        simulator(profile="vllm", model="local-model") as local,
        router(config_for({"local": local}, tmp_path)) as proxy,
    ):
        for request_id, session in sessions.items():
            sent = _send(proxy, request_id, headers={"x-smf-session-id": session})
            assert sent.status_code == 200
        rows = _rows(proxy, "conversation")
    spans = _requests(traced)
    named = {rid: attrs(spans[rid])["gen_ai.conversation.id"] for rid in sessions}
    assert named == {rid: rows[rid][0] for rid in sessions}
    assert named["turn-1"] == named["turn-2"] != named["other"]
    said = [str(v) for s in traced.spans() for v in attrs(s).values()]
    assert not any("lf-session" in v or "lf-9" in v or "parses YAML" in v for v in said)


def test_a_backend_that_answered_is_named_and_tokens_are_as_the_ledger_counted_them(
    traced: Receiver, tmp_path: Path
) -> None:
    """A backend's 400 passed through names that backend (its provider and model too); a
    hang-up before the first byte names none. Neither counted a token: no token attributes.
    A reply without usage has the router's estimate, marked `smf.tokens_estimated` as its
    ledger row's `tokens_estimated`; a counted one is marked false."""
    with (
        simulator(profile="vllm", model="local-model") as local,
        router(config_for({"local": local}, tmp_path)) as proxy,
    ):
        records: Collect = collected(proxy)
        local.control("faults", {"fault": "bad_request"})
        assert _send(proxy, "refused").status_code == 400
        local.control("faults", {"fault": "hold"})  # at the backend until the client leaves
        with pytest.raises(httpx.ReadTimeout):
            httpx.post(
                f"{proxy.url}/chat/completions",
                json={"model": "auto", "messages": CODING},
                headers={"x-request-id": "left"},
                timeout=0.5,
            )
        assert wait_until(lambda: len(records.records) == 2, 15)
        local.control("faults", {"fault": "no_usage"})
        assert _send(proxy, "estimated").status_code == 200
        local.control("faults", {"fault": None})
        assert _send(proxy, "counted").status_code == 200
        columns = "prompt_tokens, completion_tokens, tokens_estimated, outcome, backend"
        rows = _rows(proxy, columns)
    spans = {rid: attrs(span) for rid, span in _requests(traced).items()}
    assert rows["refused"][3:] == ("client_error", None)  # the ledger names no server
    refused, left = spans["refused"], spans["left"]
    assert [refused.get(key) for key in ANSWERED] == ["local", "local", "vllm", "local-model"]
    assert not set(ANSWERED) & set(left)
    assert left["smf.outcome"] == "cancelled"
    assert not set(TOKENS) & (set(refused) | set(left))
    for request_id, estimated in (("estimated", True), ("counted", False)):
        span, row = spans[request_id], rows[request_id]
        assert row[2] is estimated
        counts = [span[key] for key in TOKENS]
        assert counts == [row[0], row[1], estimated] and row[0] > 0 and row[1] > 0


def test_exported_spans_carry_the_callers_tracestate(
    traced: Receiver, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Every span of a request carries the caller's `tracestate`, as the SDK's children
    inherit it, so vendors' sampling entries (`ot=th:...`) survive the router; one that is no
    valid list (a malformed member, a key twice, more than 32 members: the SDK's rules)
    still reaches the backend but no span, with no log line quoting it."""
    sent = {
        "kept": "ot=th:8, vendor=abc",
        "bad": "Bad Entry",
        "twice": "a=1,a=2",
        "many": ",".join(f"k{n}=1" for n in range(33)),
    }
    with (
        simulator(profile="vllm", model="local-model") as local,
        router(config_for({"local": local}, tmp_path)) as proxy,
        caplog.at_level(logging.WARNING),
    ):
        for request_id, tracestate in sent.items():
            headers = {"traceparent": CALLER, "tracestate": tracestate}
            assert _send(proxy, request_id, headers=headers).status_code == 200
    by_span = {s.span_id: s for s in traced.spans()}
    request_of = {s.span_id: attrs(s)["smf.request_id"] for s in _requests(traced).values()}
    states: dict[str, set[str]] = {request_id: set() for request_id in sent}
    for span in by_span.values():
        root = span if span.span_id in request_of else by_span[span.parent_span_id]
        states[request_of[root.span_id]].add(span.trace_state)
    assert len(by_span) == 16  # each: the request, classify, its attempt, ledger
    assert states == {"kept": {"ot=th:8,vendor=abc"}, "bad": {""}, "twice": {""}, "many": {""}}
    assert "Bad Entry" not in caplog.text
