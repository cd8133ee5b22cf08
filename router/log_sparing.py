"""One log line now and then for a flood of the same news, saying how many were held back.

A line a client (or a dead collector) can cause at will is news the first time; written per
event it grows the log at the flood's rate (a client with no key wrote one WARNING line per
oversized request head, ~33 a second, found in review). `Sparing` lets one through per
interval and counts the rest, so the next line that passes says how many it stands for.
Used by the 431, 400 and upgrade lines (`router.api.request_head`) and the OTLP exporter's
failure lines (`router.span_export.ExportLogLimiter`).
"""

from __future__ import annotations


class Sparing:
    """At most one line every `interval_s` seconds; the others are counted in `held`.
    Not locked: each user calls it from one thread (the event loop, the export thread)."""

    __slots__ = ("held", "interval_s", "next_at")

    def __init__(self, interval_s: float) -> None:
        self.interval_s = interval_s
        self.next_at: float | None = None  # when the next line may pass; None: at once
        self.held = 0  # lines held back since the last one that passed

    def passes(self, now: float) -> int | None:
        """None if a line at `now` (a monotonic time) is to be held back, and it is counted;
        else how many were held back before it, and a new interval starts."""
        if self.next_at is not None and now < self.next_at:
            self.held += 1
            return None
        held, self.held = self.held, 0
        self.next_at = now + self.interval_s
        return held
