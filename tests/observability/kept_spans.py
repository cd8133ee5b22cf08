"""Tracing on, with the spans it would export kept in memory instead, for the tests that read
what a span says."""

from __future__ import annotations

from router.span_export import SpanRecord
from router.tracing import Tracing
from router.tracing_env import Sampler


class Kept:
    """Stands in for the `SpanShipper`: keeps the spans submitted, exports nothing."""

    def __init__(self) -> None:
        self.spans: list[SpanRecord] = []

    def submit(self, span: SpanRecord) -> None:
        self.spans.append(span)


def tracing_on() -> tuple[Tracing, Kept]:
    kept = Kept()
    return Tracing(kept, Sampler()), kept  # type: ignore[arg-type]
