"""A finished request's record, a local coding request that streamed, with any field changed:
what the metrics tests feed `Metrics.record_finished`."""

from __future__ import annotations

from router.record import Attempt, Record, Usage


def local_coding_record(**kw: object) -> Record:
    base: dict[str, object] = {
        "request_id": "r1",
        "started_at": 1_700_000_000.0,
        "intent": "coding",
        "confidence": 0.9,
        "route": "coding",
        "backend": "local",
        "tier": "local",
        "stream": True,
        "attempts": [Attempt("local", "local", duration_s=2.0)],
        "usage": Usage(prompt_tokens=100, completion_tokens=11),
        "ttft_s": 0.5,
        "duration_s": 1.5,
        "cost_usd": 0.001,
        "counterfactual_usd": 0.011,
    }
    base.update(kw)
    return Record(**base)  # type: ignore[arg-type]
