"""The attempt span of a call the client's hang-up ended keeps status UNSET, as its request
span does: a trace backend's error rate counts the backends' failures, not hang-ups. Before,
the request span said UNSET and its attempt ERROR (found in review). A hang-up after the
backend's long silence is the backend's failure for the breaker (`router.silence`), and
its span says ERROR too. Real sockets on 127.0.0.1 (ports 18000-18999)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest
from test_tracing_otlp import Receiver, attrs, receiving

from router import silence
from tests.canary.servers import free_port, router, simulator
from tests.harness import Collect, collected, config_for, sdk, wait_until

CODING = [{"role": "user", "content": "Write a Python function that adds two numbers."}]


@pytest.fixture
def traced(monkeypatch: pytest.MonkeyPatch) -> Iterator[Receiver]:
    """A receiver on a port of 18000-18999; a router started in the test exports to it (at
    its exit at the latest)."""
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    with receiving(pick=free_port) as receiver:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url)
        yield receiver


def _attempt_spans(receiver: Receiver) -> dict[str, Any]:
    """Each request's attempt span, by the request's id (one attempt each here)."""
    spans = receiver.spans()
    ids = {s.span_id: attrs(s)["smf.request_id"] for s in spans if s.kind == s.SPAN_KIND_SERVER}
    attempts = [s for s in spans if s.kind == s.SPAN_KIND_CLIENT]
    assert len(attempts) == len(ids)
    return {ids[s.parent_span_id]: s for s in attempts}


def _leave(client: openai.OpenAI, request_id: str) -> None:
    with pytest.raises(openai.APITimeoutError):
        client.chat.completions.create(
            model="local",
            messages=CODING,
            stream=True,
            extra_headers={"x-request-id": request_id},
        )


def _recorded(records: Collect, n: int) -> None:
    assert wait_until(lambda: len(records.records) == n, 15)
    assert {(r.outcome, r.status) for r in records.records} == {("cancelled", 499)}


def test_a_hang_up_leaves_the_attempt_span_unset_unless_the_backend_was_silent(
    traced: Receiver, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Left before the first token and before the silence threshold, left mid-stream: UNSET.
    Left after the threshold with nothing from the backend: ERROR, as the breaker counts it.
    `error.type` says `cancelled` in each, as the attempt's ledger row does."""
    monkeypatch.setattr(silence, "SILENT_S", 1.0)
    timeouts = {"first_token_s": 5.0, "idle_s": 5.0}
    with (
        simulator(profile="vllm", model="local-model", tokens_per_s=20) as local,
        router(config_for({"local": local}, tmp_path, timeouts=timeouts)) as proxy,
    ):
        records = collected(proxy)
        local.control("faults", {"fault": "no_response"})
        _leave(sdk(proxy, timeout=0.3), "early")
        _leave(sdk(proxy, timeout=2.0), "silent")
        _recorded(records, 2)
        local.control("faults", {"fault": None})
        with sdk(proxy).chat.completions.create(
            model="local",
            messages=CODING,
            stream=True,
            max_tokens=200,
            extra_headers={"x-request-id": "midway"},
        ) as stream:
            next(iter(stream))  # the first chunk, then the client leaves
        _recorded(records, 3)
    spans = _attempt_spans(traced)
    assert set(spans) == {"early", "silent", "midway"}
    for request_id, expected in (("early", "UNSET"), ("silent", "ERROR"), ("midway", "UNSET")):
        span = spans[request_id]
        assert span.status.code == getattr(span.status, f"STATUS_CODE_{expected}"), request_id
        assert attrs(span)["error.type"] == "cancelled", request_id
