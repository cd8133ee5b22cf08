"""Which finished request may pin its conversation to its backend: a rule of the router's
routing, over the generic sticky table (`router.sticky`), which knows nothing of records."""

from __future__ import annotations

from router.record import Record
from router.sticky import StickyTable


def pins(record: Record, table: StickyTable) -> bool:
    """Whether auto-routed `record` may pin its conversation to its backend: a turn read
    as asking nothing (route reason `nothing_read`: source `default`, as a greeting
    alone, `classifier.greeting`) only keeps a pin to that backend (its TTL restarts). A
    chat's "Hi! Can you help me?" pinned it to the default route's backend, its math and
    prose local for the sticky TTL (users' probes): its backend is its first turn that
    asked something. Not below_min_confidence: an agent's session relies on its first
    pin. Read from the source: a record holds no intent or target for `route_reason`.

    Nor does its app's side request (`Record.side_request`: Claude Code's title request,
    Open WebUI's tags, fast-agent's router's call...) pin, though it may follow a pin:
    Claude Code's title request, sent beside a session's first turn with its session id,
    finished first and pinned every coding turn of a "Translate ..." session to the cloud
    (found in a live review)."""
    if record.intent_source != "default" and not record.side_request:
        return True
    return table.get(record.conversation or "") == record.backend  # both set: the caller
