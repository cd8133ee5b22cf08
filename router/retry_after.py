"""How long a backend asked to be left alone: its `Retry-After` (or `retry-after-ms`) read
as seconds, bounded. Read for every 429 and 503 a backend answers (`router.upstream_errors`,
the litellm adapter) and passed on to clients (`router.api.errors`)."""

from __future__ import annotations

import email.utils
import math
import time
from datetime import UTC
from typing import Any

# The longest wait passed on to a client: past an hour a number only says "not now", and
# an unbounded one (`1e300`) made a 40-digit header, `inf` a 500 where it is rendered.
MAX_RETRY_AFTER_S = 3600.0


def retry_after(headers: Any, now: float | None = None) -> float | None:
    """Seconds from `retry-after-ms` or `retry-after` (seconds, or an HTTP date as RFC 9110
    allows: dropped, the client's SDK retried at once what the backend asked to wait for),
    at most `MAX_RETRY_AFTER_S`; None when absent or neither a finite number nor a date."""
    ms = _seconds(headers.get("retry-after-ms"))
    if ms is not None:
        return min(ms / 1000, MAX_RETRY_AFTER_S)
    text = headers.get("retry-after")
    value = _seconds(text)
    if value is None and text:
        value = _until_date(text, time.time() if now is None else now)
    return None if value is None else min(value, MAX_RETRY_AFTER_S)


def _until_date(text: str, now: float) -> float | None:
    """Seconds from `now` to an HTTP date (`Thu, 03 Dec 2026 02:48:22 GMT`), 0 when past."""
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # RFC 9110 dates are GMT; one without a zone is read so
        when = when.replace(tzinfo=UTC)
    return max(0.0, when.timestamp() - now)


def _seconds(text: str | None) -> float | None:
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return max(0.0, value) if math.isfinite(value) else None
