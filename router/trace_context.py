"""W3C Trace Context (level 1): the caller's `traceparent` and `tracestate` read, and both
written on each backend call, so that the trace and the vendors' entries go on together.

Not the SDK's `TraceContextTextMapPropagator`, though it follows the same rules: it reads
into and writes from the SDK's `Context` and span objects, which `router.tracing` keeps off
the request path (docs/benchmarks.md). Measured, its extract took ≈6 µs and each inject ≈4 µs
(≈14 µs a request with a fallback, against ≈0.6 µs here), about what the rest of a
request's tracing costs; and it logs a warning for every malformed `tracestate`, a line
per request that any client can send.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import NamedTuple

# version-traceid-parentid-flags. Version 00 is exactly this; a later one may add fields
# after a "-", which are ignored. Lower-case hex only: upper case is invalid.
_TRACEPARENT = re.compile(r"([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?")
# The spec lets a vendor drop a longer `tracestate` rather than cut it (its 32 entries of at
# most 256 characters could make 8 KiB).
TRACESTATE_MAX_CHARS = 512
_PRINTABLE = re.compile(r"[\x20-\x7e]*")  # what a list member may hold, OWS and commas too
# A list member, `key=value`, as level 1 writes its grammar (the SDK's reading is the same)
_MEMBER = re.compile(
    r"([a-z][_0-9a-z\-*/]{0,255}|[a-z0-9][_0-9a-z\-*/]{0,240}@[a-z][_0-9a-z\-*/]{0,13})"
    r"=([\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e])"
)
TRACESTATE_MAX_ENTRIES = 32


class Parent(NamedTuple):
    """The caller's span, as its `traceparent` named it, and its `tracestate` to forward."""

    trace_id: int
    span_id: int
    sampled: bool
    tracestate: str | None


def parse(headers: Mapping[str, str] | None) -> Parent | None:
    """The caller's span from its request headers (lower-case names, a repeated header's
    values joined with commas, as `router.api.headers` gives them); None when there is no
    valid `traceparent`, and then its `tracestate` is not read either (the spec's rule)."""
    value = headers.get("traceparent") if headers else None
    if not headers or not value:
        return None
    match = _TRACEPARENT.fullmatch(value.strip(" \t"))
    if match is None:
        return None
    version, trace_hex, span_hex, flags, extra = match.groups()
    if version == "ff" or (version == "00" and extra is not None):
        return None  # ff is no version; 00 has no fifth field
    trace_id, span_id = int(trace_hex, 16), int(span_hex, 16)
    if not trace_id or not span_id:
        return None
    return Parent(trace_id, span_id, bool(int(flags, 16) & 1), _tracestate(headers))


def _tracestate(headers: Mapping[str, str]) -> str | None:
    """The caller's `tracestate` as it came, to forward unchanged (the router adds no entry
    of its own); dropped when over `TRACESTATE_MAX_CHARS`, or when it holds a character no
    entry may (none outside printable ASCII), which an HTTP client would refuse to send."""
    value = headers.get("tracestate", "").strip(" \t")
    if not value or len(value) > TRACESTATE_MAX_CHARS or not _PRINTABLE.fullmatch(value):
        return None
    return value


def tracestate_entries(tracestate: str) -> tuple[tuple[str, str], ...]:
    """The `(key, value)` entries of a `tracestate` as forwarded (`_tracestate`), for the
    spans the router exports; none at all when a member is malformed, a key repeats or there
    are over 32, as the SDK reads a header (the backends still get it as it came: theirs to
    read). Empty members (`a=1,,b=2`) are allowed, as the spec does."""
    entries: dict[str, str] = {}
    for member in tracestate.split(","):
        member = member.strip(" \t")
        if not member:
            continue
        match = _MEMBER.fullmatch(member)
        if match is None or match.group(1) in entries:
            return ()
        entries[match.group(1)] = match.group(2)
    if len(entries) > TRACESTATE_MAX_ENTRIES:
        return ()
    return tuple(entries.items())


def inject(
    headers: dict[str, str], trace_id: int, span_id: int, sampled: bool, tracestate: str | None
) -> None:
    """Add `traceparent` (version 00, the one this router speaks) and the caller's
    `tracestate` to the headers of a backend call made under span `span_id`."""
    headers["traceparent"] = f"00-{trace_id:032x}-{span_id:016x}-{'01' if sampled else '00'}"
    if tracestate:
        headers["tracestate"] = tracestate
