"""Whose failure a request that ended in an error was: its record's `outcome` and kind.

`client_error` is the client's to fix, `upstream_error` a backend's failure that no fallback
saved (or every backend skipped), `router_error` a bug of ours. The metrics count the last
two as failures (alert `SmfRequestsFailing`, the server span's status ERROR); the ledger,
the report's `error_rate` and the shadow (which replays `ok` requests only) count every one
that is not `ok` alike.

A backend's context-length refusal (`ContextTooLong`, `OutputTooLong`) that ends the request
is the client's, as the router's own refusal of a prompt no window holds is
(`BadRequestTooLong`): the client gets its 400 and shortens the request (a Codex stream
gets it in-band, `router.translate.responses_refusal`, and compacts its history on it).
Counted as the upstream's, a Codex session whose prompt outgrew the window paged
SmfRequestsFailing (found in review).
"""

from __future__ import annotations

from collections.abc import Sequence

from router.attempt_errors import (
    ContextTooLong,
    OutputTooLong,
    Rejected,
    RouterFault,
    UpstreamError,
)
from router.errors import NoBackendAvailable, RouterError, error_kind
from router.record import Attempt, Outcome, Record, backend_moves

# The attempt kinds of a backend's context-length refusal: the client's when they end it.
CONTEXT_KINDS = frozenset({ContextTooLong.kind, OutputTooLong.kind})


def before_commit(error: RouterError, record: Record) -> tuple[Outcome, str | None]:
    """The outcome and kind of a request no backend committed to, ended with `error`."""
    if isinstance(error, RouterFault):
        return "router_error", error.kind  # a bug of ours met on the way to a backend
    if isinstance(error, ContextTooLong):
        return _refused_for_length(error, record.attempts)
    # A backend's 4xx that passes through (`Rejected`) is the client's too, as README says:
    # counted as the upstream's, it showed beside real outages on the dashboards. Not after
    # a backend's failure moved the plan on: its being down sent it where it was refused.
    # Every backend skipped is theirs, its 429 (each waiting out a rate limit) as its 503.
    clients = not isinstance(error, UpstreamError | NoBackendAvailable) or (
        isinstance(error, Rejected) and not _failed_before(record.attempts)
    )
    outcome: Outcome = "client_error" if 400 <= error.status < 500 and clients else "upstream_error"
    return outcome, error_kind(error)


def after_commit(error: UpstreamError) -> Outcome:
    """The outcome of a committed answer that `error` ended in-band (`router.relay`): the
    serving backend's context-length refusal is the client's there too, and an adapter's
    bug ours, as before the commit."""
    if isinstance(error, RouterFault):
        return "router_error"
    if isinstance(error, ContextTooLong):
        return "client_error"
    return "upstream_error"


def _refused_for_length(
    error: ContextTooLong, attempts: Sequence[Attempt]
) -> tuple[Outcome, str | None]:
    """A context-length refusal ended the request: the client got it, the plan's first
    backend verdict (`router.plan_error.most_meaningful`). It is the client's
    when the plan's last word was a refusal for length. When it was a backend's failure,
    the request is recorded as that failure: past a prompt's refusal, dispatch tries only a
    backend whose window is larger or unknown (any, past an output limit's), one that could
    have served it but failed (a 5xx, a timeout, a bug of ours). A backend that failed
    before the refusal is not blamed: the one after it judged the request, and refused it."""
    last = next((a for a in reversed(attempts) if a.outcome == "error"), None)
    if last is None or last.error_kind in CONTEXT_KINDS:
        return "client_error", error.kind
    if last.error_kind == RouterFault.kind:
        return "router_error", last.error_kind
    return "upstream_error", last.error_kind


def _failed_before(attempts: Sequence[Attempt]) -> bool:
    """Whether a backend's failure moved the plan on to the one that ended it. A refusal for
    length is none: that backend judged the client's request and moved it to a larger
    window, as a prompt no window holds is the client's, so a 4xx there is the client's as
    one without a fallback is (before, `fallback_reason` alone decided, and a cloud's 400 for
    a bad parameter past local's refusal for length was `upstream_error`). A retry on the
    same backend moves nothing (`backend_moves`). Nor is a chat backend's refusal of a type
    it cannot be sent (`Uncarried`, kind `rejected`: the plan's only move past a 4xx): a
    request no backend could carry is the client's, as it was refused before the plan."""
    judged = (*CONTEXT_KINDS, Rejected.kind)
    return any(prev.error_kind not in judged for prev, _ in backend_moves(attempts))
