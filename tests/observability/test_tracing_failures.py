"""Spans of what failed where no reply was served: a request the router failed while it
planned it, and the batch a collector that never answers held at the router's exit."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_span_export_settings import hanging_collector
from test_tracing_otlp import attrs, receiving

from router import gateway
from router.tracing import Tracing
from router.translate import exchange
from tests.harness import config_for, router, simulator, wait_until

TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT = "00f067aa0ba902b7"
CALLER = {"traceparent": f"00-{TRACE}-{PARENT}-01"}
BODY = {"model": "auto", "messages": [{"role": "user", "content": "What is 1234 + 4321?"}]}


def _bug(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("a bug met while planning")


@pytest.mark.parametrize("raising", ["plan", "classify"])
def test_a_request_failed_while_planned_ends_its_span_with_status_error(
    raising: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A bug raised after the request span began (in `plan`, or in the classifier) got its
    client a 500, but nobody ended the span: the `classify` child went out, an orphan, and
    the 500 that `SmfRequestsFailing` counted had no span with status ERROR; with the
    classifier raising, nothing went out at all (found in review)."""
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    if raising == "plan":
        monkeypatch.setattr(gateway, "plan", _bug)
    else:
        monkeypatch.setattr(gateway.classifier, "classify", _bug)
    with (
        receiving() as receiver,
        simulator(profile="vllm", model="local-model") as local,
    ):
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url)
        with router(config_for({"local": local}, tmp_path)) as proxy:
            reply = httpx.post(f"{proxy.url}/chat/completions", json=BODY, headers=CALLER)
    assert reply.status_code == 500
    spans = {s.name: s for s in receiver.spans()}  # the router's exit flushed them
    assert set(spans) == {"chat auto", "classify"}
    request, classify = spans["chat auto"], spans["classify"]
    assert (request.trace_id.hex(), request.parent_span_id.hex()) == (TRACE, PARENT)
    assert classify.parent_span_id == request.span_id
    assert request.status.code == request.status.STATUS_CODE_ERROR
    assert attrs(request)["error.type"] == "router_error"
    assert attrs(request)["smf.outcome"] == "router_error"
    assert attrs(request)["http.response.status_code"] == 500
    # the reply's id leads to the trace, as a served request's does (found in review)
    assert attrs(request)["smf.request_id"] == reply.headers["x-request-id"]
    if raising == "classify":
        assert classify.status.code == classify.status.STATUS_CODE_ERROR
        assert attrs(classify)["error.type"] == "router_error"
    else:
        assert classify.status.code == classify.status.STATUS_CODE_UNSET


def test_the_batch_a_silent_collector_holds_at_exit_is_counted_lost(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """At exit the batch whose export was still blocked on a collector that never answers
    was neither counted in `export_failed` nor in the log line: "tracing dropped 249 spans
    at exit" of 400 lost (found in review)."""
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    env = {"OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "10", "OTEL_BSP_SCHEDULE_DELAY": "600000"}
    with (
        hanging_collector() as url,
        caplog.at_level(logging.WARNING, logger="smf_router.span_export"),
    ):
        tracing = Tracing.from_env({"OTEL_EXPORTER_OTLP_ENDPOINT": url, **env})
        shipper = tracing._shipper
        assert shipper is not None
        for _ in range(10):  # a full batch: its export begins, and hangs
            tracing.end(tracing.start_request("chat", "auto"))
        assert wait_until(lambda: shipper._export_began is not None, 10)
        for _ in range(15):  # queued behind it
            tracing.end(tracing.start_request("chat", "auto"))
        tracing.shutdown()
    assert shipper.export_failed == 25
    assert "tracing dropped 25 spans at exit" in caplog.text


def test_a_bug_of_ours_while_sending_names_no_backend_on_the_request_span(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A bug met while the router made a backend's request (`RouterFault`, before a byte was
    sent) gave the attempt the fault's own 500 as the backend's status: the request span
    then named that backend and its tier (`smf.backend`, `gen_ai.provider.name`) as if it
    had answered 500 (found in review). It answered nothing: no status, no backend."""
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    monkeypatch.setattr(exchange, "to_chat", _bug)  # called within `building`
    body = {"model": "auto", "max_tokens": 20, "messages": BODY["messages"]}
    with (
        receiving() as receiver,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url)
        with router(config_for({"cloud": cloud}, tmp_path)) as proxy:
            reply = httpx.post(f"{proxy.root}/v1/messages", json=body, headers=CALLER)
    assert reply.status_code == 500
    (request,) = [s for s in receiver.spans() if s.name == "chat auto"]
    said = attrs(request)
    assert said["smf.outcome"] == "router_error"
    assert not {"smf.backend", "smf.tier", "gen_ai.provider.name"} & set(said)
