"""Metrics from synthetic records, read back from a fresh registry."""

from __future__ import annotations

import gc
import sys
import types
from dataclasses import dataclass

import pytest
from prometheus_client import CollectorRegistry
from prometheus_client.parser import text_string_to_metric_families

from router.metrics import Metrics
from router.record import Attempt, Usage
from tests.observability.finished_records import local_coding_record


@pytest.fixture
def metrics() -> Metrics:
    return Metrics(CollectorRegistry())


def value(m: Metrics, name: str, **labels: str) -> float | None:
    return m.registry.get_sample_value(name, labels)


def test_request_counts_tokens_money_and_latency(metrics: Metrics) -> None:
    metrics.record_finished(local_coding_record())
    where = {"intent": "coding", "route": "coding", "backend": "local", "tier": "local"}
    assert value(metrics, "smf_router_requests_total", **where, outcome="ok", stream="true") == 1
    assert value(metrics, "smf_router_prompt_tokens_total", **where) == 100
    assert value(metrics, "smf_router_completion_tokens_total", **where) == 11
    assert value(metrics, "smf_router_cost_usd_total", **where) == pytest.approx(0.001)
    assert value(metrics, "smf_router_counterfactual_usd_total", **where) == pytest.approx(0.011)
    assert value(metrics, "smf_router_offloaded_usd_total", **where) == pytest.approx(0.010)
    lat = {"intent": "coding", "backend": "local", "tier": "local"}
    assert value(metrics, "smf_router_time_to_first_token_seconds_sum", **lat) == 0.5
    assert value(metrics, "smf_router_time_to_first_token_seconds_bucket", **lat, le="0.25") == 0
    assert value(metrics, "smf_router_time_to_first_token_seconds_bucket", **lat, le="0.5") == 1
    dur = value(metrics, "smf_router_request_duration_seconds_sum", **lat, stream="true")
    assert dur == 1.5
    # (1.5 - 0.5) s over the 10 tokens after the first
    tpot = value(
        metrics, "smf_router_time_per_output_token_seconds_sum", backend="local", tier="local"
    )
    assert tpot == pytest.approx(0.1)
    assert (
        value(metrics, "smf_router_errors_total", intent="coding", outcome="ok", kind="none")
        is None
    )


def test_cloud_request_offloads_nothing(metrics: Metrics) -> None:
    rec = local_coding_record(backend="cloud", tier="cloud", cost_usd=0.01, counterfactual_usd=0.01)
    metrics.record_finished(rec)
    where = {"intent": "coding", "route": "coding", "backend": "cloud", "tier": "cloud"}
    assert value(metrics, "smf_router_cost_usd_total", **where) == pytest.approx(0.01)
    assert value(metrics, "smf_router_offloaded_usd_total", **where) is None


def test_fallback_counted_from_failed_to_next_with_its_error_kind(metrics: Metrics) -> None:
    attempts = [
        Attempt("gpu2", "local", outcome="skipped"),
        Attempt("local", "local", outcome="error", error_kind="unreachable"),
        Attempt("cloud", "cloud", outcome="error", error_kind="weird-new-kind"),  # type: ignore[arg-type]
        Attempt("cloud2", "cloud"),
    ]
    metrics.record_finished(local_coding_record(backend="cloud2", tier="cloud", attempts=attempts))
    fb = "smf_router_fallbacks_total"
    assert value(metrics, fb, from_backend="local", to_backend="cloud", reason="unreachable") == 1
    assert value(metrics, fb, from_backend="cloud", to_backend="cloud2", reason="other") == 1
    assert value(metrics, fb, from_backend="gpu2", to_backend="local", reason="other") is None
    durations = "smf_router_attempt_duration_seconds_count"
    assert value(metrics, durations, backend="local", tier="local", outcome="error") == 1
    assert value(metrics, durations, backend="gpu2", tier="local", outcome="skipped") is None


def test_a_retry_on_the_same_backend_is_not_a_fallback(metrics: Metrics) -> None:
    """A short Retry-After retries the same backend: counted as local -> local it pushed the
    fallback ratio over 1 and fired SmfFallbackRateHigh (found in review)."""
    attempts = [
        Attempt("local", "local", outcome="error", error_kind="rate_limited"),
        Attempt("local", "local", outcome="error", error_kind="rate_limited"),
        Attempt("cloud", "cloud"),
    ]
    metrics.record_finished(local_coding_record(backend="cloud", tier="cloud", attempts=attempts))
    fb = "smf_router_fallbacks_total"
    assert (
        value(metrics, fb, from_backend="local", to_backend="local", reason="rate_limited") is None
    )
    assert value(metrics, fb, from_backend="local", to_backend="cloud", reason="rate_limited") == 1


def test_the_fallback_share_counts_requests_not_moves(metrics: Metrics) -> None:
    """SmfFallbackRateHigh divided moves by requests: one request that failed over twice
    read as 200% of requests needing a fallback (found in review)."""
    twice = [
        Attempt("local", "local", outcome="error", error_kind="unreachable"),
        Attempt("cloud", "cloud", outcome="error", error_kind="server_error"),
        Attempt("cloud2", "cloud"),
    ]
    metrics.record_finished(local_coding_record(backend="cloud2", tier="cloud", attempts=twice))
    metrics.record_finished(local_coding_record(request_id="r2"))
    shares = "smf_router_fallback_requests_total"
    where = {"intent": "coding", "route": "coding"}
    assert value(metrics, shares, **where, backend="cloud2", tier="cloud") == 1
    assert value(metrics, shares, **where, backend="local", tier="local") == 0  # shows as 0


def test_a_whole_reply_has_no_time_per_output_token(metrics: Metrics) -> None:
    """Its first byte is its last: (duration - ttft) / tokens put ~0 s into the histogram
    for every non-streamed request (found in review)."""
    metrics.record_finished(local_coding_record(stream=False, ttft_s=1.49, duration_s=1.5))
    tpot = "smf_router_time_per_output_token_seconds_count"
    assert value(metrics, tpot, backend="local", tier="local") is None


@pytest.mark.parametrize(
    ("outcome", "kind"),
    [("upstream_error", "stall"), ("upstream_error", "cut"), ("cancelled", "cancelled")],
)
def test_a_stream_that_did_not_end_well_has_no_time_per_output_token(
    metrics: Metrics, outcome: str, kind: str
) -> None:
    """A stream that stalled for `idle_s` after three tokens put ~30 s per token into the
    histogram, as if the backend decoded that slowly (found in review)."""
    three = Usage(prompt_tokens=100, completion_tokens=3)
    failed = local_coding_record(
        outcome=outcome, error_kind=kind, usage=three, ttft_s=0.2, duration_s=60.4
    )
    metrics.record_finished(failed)
    tpot = "smf_router_time_per_output_token_seconds_count"
    assert value(metrics, tpot, backend="local", tier="local") is None
    lat = {"intent": "coding", "backend": "local", "tier": "local"}
    assert value(metrics, "smf_router_time_to_first_token_seconds_count", **lat) == 1


def test_failed_request_counts_error_kind_and_unknown_labels_are_closed(metrics: Metrics) -> None:
    rec = local_coding_record(
        intent="free text from nowhere",
        backend=None,
        tier=None,
        route="",
        outcome="upstream_error",
        error_kind="timeout",
        status=504,
        ttft_s=None,
        usage=Usage(),
        cost_usd=0.0,
        counterfactual_usd=0.0,
    )
    metrics.record_finished(rec)
    labels = {"intent": "other", "route": "none", "backend": "none", "tier": "none"}
    got = value(
        metrics, "smf_router_requests_total", **labels, outcome="upstream_error", stream="true"
    )
    assert got == 1
    errors = value(
        metrics, "smf_router_errors_total", intent="other", outcome="upstream_error", kind="timeout"
    )
    assert errors == 1
    assert (
        value(
            metrics,
            "smf_router_time_to_first_token_seconds_count",
            intent="other",
            backend="none",
            tier="none",
        )
        is None
    )


def test_attempts_track_inflight_and_outcomes(metrics: Metrics) -> None:
    metrics.attempt_started("local", "local")
    metrics.attempt_started("local", "local")
    assert (
        value(metrics, "smf_router_backend_inflight_requests", backend="local", tier="local") == 2
    )
    metrics.attempt_finished("local", "local", "error", "overloaded")
    metrics.attempt_finished("local", "local", "ok")
    assert (
        value(metrics, "smf_router_backend_inflight_requests", backend="local", tier="local") == 0
    )
    a = "smf_router_attempts_total"
    assert (
        value(metrics, a, backend="local", tier="local", outcome="error", error_kind="overloaded")
        == 1
    )
    assert value(metrics, a, backend="local", tier="local", outcome="ok", error_kind="none") == 1


def test_backend_state_sets_exactly_one_circuit_state(metrics: Metrics) -> None:
    metrics.backend_state("local", "local", up=False, circuit="open")
    assert value(metrics, "smf_router_backend_up", backend="local", tier="local") == 0
    states = {
        s: value(
            metrics, "smf_router_backend_circuit_state", backend="local", tier="local", state=s
        )
        for s in ("closed", "open", "half_open")
    }
    assert states == {"closed": 0, "open": 1, "half_open": 0}
    metrics.backend_state("local", "local", up=True, circuit="closed")
    assert value(metrics, "smf_router_backend_up", backend="local", tier="local") == 1
    assert (
        value(
            metrics, "smf_router_backend_circuit_state", backend="local", tier="local", state="open"
        )
        == 0
    )


def test_capacity_keeps_gauges_that_were_not_reported(metrics: Metrics) -> None:
    metrics.capacity("local", running=3, waiting=1, kv_cache_usage=0.25)
    metrics.capacity("local", running=5, waiting=None, kv_cache_usage=None)
    assert value(metrics, "smf_router_backend_running_requests", backend="local") == 5
    assert value(metrics, "smf_router_backend_waiting_requests", backend="local") == 1
    assert value(metrics, "smf_router_backend_kv_cache_usage_ratio", backend="local") == 0.25


def test_classifier_canary_gating_and_shadow(metrics: Metrics) -> None:
    metrics.classified("math", 0.8, 0.0004)
    canary = {"pass_ratio": 0.25, "lower": 0.05, "ts": 1_700_000_000}
    metrics.canary_result("local", "math", **canary, floor=0.5)
    metrics.canary_result("local", "prose", **canary, floor=None)
    metrics.route_gated("local", "math", gated=True)
    metrics.shadow_compared("math", "cloud", "local", agreed=True)
    metrics.shadow_compared("math", "cloud", "local", agreed=None)
    metrics.shadow_dropped("queue_full")
    metrics.shadow_dropped("something odd")
    assert value(metrics, "smf_router_classifier_confidence_count", intent="math") == 1
    assert value(metrics, "smf_router_classifier_duration_seconds_bucket", le="0.0005") == 1
    assert value(metrics, "smf_router_canary_pass_ratio", backend="local", suite="math") == 0.25
    assert value(metrics, "smf_router_canary_floor_ratio", backend="local", suite="math") == 0.5
    lower = "smf_router_canary_pass_lower_bound_ratio"
    assert value(metrics, lower, backend="local", suite="math") == 0.05
    # a suite without a floor gates nothing: no floor series, so no margin row
    assert value(metrics, "smf_router_canary_floor_ratio", backend="local", suite="prose") is None
    ts = value(
        metrics, "smf_router_canary_last_run_timestamp_seconds", backend="local", suite="math"
    )
    assert ts == 1_700_000_000
    assert value(metrics, "smf_router_route_gated", backend="local", intent="math") == 1
    shadow = {"intent": "math", "live_backend": "cloud", "shadow_backend": "local"}
    assert value(metrics, "smf_router_shadow_comparisons_total", **shadow, result="agreed") == 1
    assert value(metrics, "smf_router_shadow_comparisons_total", **shadow, result="undecided") == 1
    assert value(metrics, "smf_router_shadow_dropped_total", reason="queue_full") == 1
    assert value(metrics, "smf_router_shadow_dropped_total", reason="other") == 1


@dataclass
class FakeLedger:
    queue_depth: int = 0
    pending_rows: int = 0
    last_flush_seconds: float = 0.0
    flush_running_seconds: float = 0.0
    dropped_total: int = 0
    written_total: int = 0


def test_ledger_numbers_are_read_at_scrape_time(metrics: Metrics) -> None:
    assert value(metrics, "smf_router_ledger_queue_depth") is None
    ledger = FakeLedger()
    metrics.set_ledger_source(ledger)
    ledger.queue_depth, ledger.last_flush_seconds, ledger.written_total = 7, 0.012, 40
    assert value(metrics, "smf_router_ledger_queue_depth") == 7
    assert value(metrics, "smf_router_ledger_pending_records") == 0
    ledger.pending_rows = 12
    assert value(metrics, "smf_router_ledger_pending_records") == 12
    assert value(metrics, "smf_router_ledger_last_flush_seconds") == 0.012
    assert value(metrics, "smf_router_ledger_flush_running_seconds") == 0
    ledger.flush_running_seconds = 95.5  # a write that hangs
    assert value(metrics, "smf_router_ledger_flush_running_seconds") == 95.5
    assert value(metrics, "smf_router_ledger_written_records_total") == 40
    assert value(metrics, "smf_router_ledger_dropped_records_total") == 0


def test_render_is_parseable_text_with_no_caller_or_request_id(metrics: Metrics) -> None:
    metrics.record_finished(local_coding_record(caller="alice", request_id="req-secret-42"))
    metrics.set_ledger_source(FakeLedger())
    body, content_type = metrics.render()
    assert content_type.startswith("text/plain")
    text = body.decode()
    assert "alice" not in text
    assert "req-secret-42" not in text
    names = {f.name for f in text_string_to_metric_families(text)}
    assert "smf_router_requests" in names
    assert "smf_router_ledger_dropped_records" in names


def test_two_instances_do_not_share_a_registry() -> None:
    a, b = Metrics(), Metrics()
    a.record_finished(local_coding_record())
    labels = {"intent": "coding", "route": "coding", "backend": "local", "tier": "local"}
    assert b.registry.get_sample_value("smf_router_prompt_tokens_total", labels) is None


CHANGE_ON_EVERY_READ = {
    "smf_router_ledger_dropped_records_total",  # the chatty ledger's count grows per read
    "smf_router_process_cpu_seconds_total",
    "smf_router_process_resident_memory_bytes",
    "smf_router_process_arrow_allocated_bytes",
    "smf_router_gc_collections_total",
}


def test_render_and_registry_show_the_same_samples(metrics: Metrics) -> None:
    from metrics_feed import ChattyLedger, feed

    metrics.set_ledger_source(ChattyLedger())
    feed(metrics, 0)
    body, _ = metrics.render()

    def samples(families: object) -> set[tuple[str, tuple[tuple[str, str], ...], float]]:
        return {
            (s.name, tuple(sorted(s.labels.items())), s.value)
            for f in families  # type: ignore[attr-defined]
            for s in f.samples
            if s.name not in CHANGE_ON_EVERY_READ
        }

    rendered = samples(text_string_to_metric_families(body.decode()))
    assert len(rendered) > 500
    assert rendered == samples(metrics.registry.collect())
    assert b'le="+Inf"' in body and b"_created" not in body


def test_the_process_own_memory_cpu_and_collections_are_exposed(metrics: Metrics) -> None:
    cpu, full = "smf_router_process_cpu_seconds_total", "smf_router_gc_collections_total"
    resident = value(metrics, "smf_router_process_resident_memory_bytes")
    assert resident is not None and 10 * 2**20 < resident < 8 * 2**30
    cpu_before, full_before = value(metrics, cpu), value(metrics, full, generation="2")
    assert cpu_before is not None and full_before is not None
    sum(i * i for i in range(300_000))  # some CPU
    gc.collect()  # one full collection
    assert (value(metrics, cpu) or 0) > cpu_before
    assert (value(metrics, full, generation="2") or 0) >= full_before + 1


def test_the_memory_arrow_holds_is_exposed_apart(metrics: Metrics) -> None:
    """A ledger merge's memory is Arrow's, outside the Python heap: the soak's 1 GB spike
    showed in RSS alone until a probe read Arrow's pool."""
    import pyarrow as pa

    name = "smf_router_process_arrow_allocated_bytes"
    before = value(metrics, name)
    assert before is not None
    held = pa.array(range(2_000_000), type=pa.int64())  # 16 MB in Arrow's pool
    assert (value(metrics, name) or 0) >= before + 15 * 2**20
    del held
    assert (value(metrics, name) or 0) < before + 2**20


def test_a_scrape_while_arrow_is_half_imported_reads_zero_not_an_error(
    metrics: Metrics, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ledger's first flush imports pyarrow in its thread; a scrape meanwhile found the
    module in sys.modules without its functions yet, and /metrics answered 500 (found while
    testing litellm backends)."""
    monkeypatch.setitem(sys.modules, "pyarrow", types.ModuleType("pyarrow"))
    assert value(metrics, "smf_router_process_arrow_allocated_bytes") == 0
