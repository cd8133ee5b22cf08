"""The record: one row per client request, the fact that ledger, metrics and shadow share.

Dispatch fills a `Record` as a request runs and hands it over once, when the reply is
finished or failed. Everything downstream (ledger, metrics, traces, shadow) reads it;
nothing writes back.
"""

from __future__ import annotations

import itertools
import os
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from router.failed_requests import Fingerprint

Tier = Literal["local", "cloud"]
Api = Literal["chat", "completions", "responses", "messages"]
CHAT_APIS: tuple[Api, ...] = ("chat", "completions")  # the two that stream chat chunks
Outcome = Literal["ok", "client_error", "upstream_error", "router_error", "cancelled"]
AttemptOutcome = Literal["ok", "error", "skipped"]
# The outcomes of a locally served request whose counterfactual (the cloud spend it
# displaced) is credited as offloaded: its answer reached the client (`ok`), or it was
# stopped mid-answer with no backend to blame (`cancelled`: the client left, or the router's
# drain ran out), when a cloud backend would have billed the prompt and the tokens produced
# just the same. A local failure displaced nothing: the client got an error, and its retry
# (often served by the cloud) is what pays. `router.pricing` prices by it, the report reads
# older rows by it (`router.ledger.rollups.COUNTERFACTUAL`).
CREDITED_OUTCOMES: tuple[Outcome, ...] = ("ok", "cancelled")

# What an attempt can end with (`router.dispatch`, `router.relay`): an upstream error's kind
# (a timeout's three), a cancellation, or a bug of ours while sending (`RouterFault`).
AttemptErrorKind = Literal[
    "unreachable",
    "timeout",
    "first_token_timeout",
    "stall",
    "rate_limited",
    "overloaded",
    "server_error",
    "context_too_long",
    "output_too_long",
    "rejected",
    "backend_refused",
    "malformed",
    "cut",
    "cancelled",
    "router_error",
]
# A request refused before it was classified (`router.api.refusal`): its error's code.
RefusalKind = Literal[
    "invalid_request",
    "forbidden",
    "model_not_found",
    "unsupported_content_encoding",
    "request_too_large",
    "request_timeout",
]
ErrorKind = Literal[
    AttemptErrorKind,
    # a request the plan left no backend to try: the router's own error code, or
    # invalid_request (a RefusalKind) for a 400 without one
    "no_backend_available",
    "context_length_exceeded",
    RefusalKind,
]
ShadowDropReason = Literal[
    "queue_full",
    "private",
    "vllm_fields",
    "not_allowed",
    "error",
    "timeout",
    "shutdown",
    "no_target",
    "untranslatable",
    "saturated",
    "rate_limited",
    "api_unsupported",
    "rate_zero",
    "target_changed",
]


@dataclass(slots=True)
class Attempt:
    """One call to one backend while executing a plan, or a backend it passed over
    (`skipped`, never called: `Dispatcher._passed_over`, and past a context-length refusal)."""

    backend: str
    tier: Tier
    outcome: AttemptOutcome = "ok"
    # an ErrorKind, or "cancelled"; a skipped one's, why: the plan's reason (`circuit_open`,
    # `quality_gate`, `private`, ... as explain names it), or `context_too_long`
    error_kind: str | None = None
    status: int | None = None
    duration_s: float = 0.0


@dataclass(slots=True)
class Usage:
    """Token counts normalised across APIs (see FACTS.md: usage names differ).

    `prompt_tokens` includes `cached_tokens`; `completion_tokens` includes
    `reasoning_tokens`, as in OpenAI's chat usage.
    """

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    reasoning_tokens: int = 0
    estimated: bool = False
    # prompt tokens written to a prompt cache (Anthropic bills them above the input rate);
    # included in `prompt_tokens`; priced apart, and the ledger's `cache_write_tokens`
    cache_write_tokens: int = 0


@dataclass(slots=True)
class Record:
    """Everything the router knows about one client request once it is over."""

    request_id: str
    started_at: float  # unix seconds
    api: Api = "chat"
    ended_at: float = 0.0
    caller: str = "anonymous"  # the router key's *name*, never the key
    requested_model: str = ""
    intent: str = ""
    confidence: float = 0.0
    intent_source: str = ""
    route: str = ""
    backend: str | None = None  # the backend that served, None if none did
    tier: Tier | None = None
    served_model: str | None = None
    attempts: list[Attempt] = field(default_factory=list)
    fallback_reason: str | None = None
    stream: bool = False
    status: int = 200
    outcome: Outcome = "ok"
    error_kind: str | None = None
    usage: Usage = field(default_factory=Usage)
    # False: no backend reported usage and there was nothing to estimate (a backend's 400, a
    # hang-up before the first token), so `usage`'s 0 tokens are no count (`Gateway.finish`)
    counted: bool = True
    ttft_s: float | None = None
    duration_s: float = 0.0
    # What this request actually cost (cloud price or local cost), and what the route's cloud
    # backend would have charged; None when that cloud price is unknown (router.pricing).
    cost_usd: float | None = 0.0
    counterfactual_usd: float | None = 0.0
    conversation: str | None = None  # a hash, never the text
    auto_routed: bool = False  # the router chose the backend: only then a conversation sticks
    detour: bool = False  # served only after a preferred backend's passing trouble: no sticking
    # its app's side request, a title call, a background task or a framework's routing call
    # (`classifier.side_request`): no turn of its conversation, it pins nothing
    # (`router.sticky_pins`)
    side_request: bool = False
    private: bool = False
    # vLLM's own output constraint the request carried (`router.vllm_fields`): a shadow
    # replays it only where it is honoured
    vllm_field: str | None = None
    prompt_text: str | None = None  # only when config.ledger.store_text is on
    completion_text: str | None = None
    # A keyed hash of the request's body, worked out only if a failure makes it matter
    # (`router.failed_requests.Fingerprint`, the plan's own): in memory only, for routing a
    # retry of a request a backend failed; no ledger column, never logged
    fingerprint: Fingerprint | None = field(default=None, repr=False, compare=False)

    @property
    def fallbacks(self) -> int:
        """How many times the request moved to another backend (see `backend_moves`)."""
        return len(backend_moves(self.attempts)) if len(self.attempts) > 1 else 0

    @property
    def refused(self) -> bool:
        """Answered before the router planned it (`router.api.refusal`), and not for a fault
        of its own: refused as the client's mistake (a bad body or model), or stopped while
        its body was read (the drain ran out). Only a plan names a route, so such a request
        has none: `route="none"` in the metrics. A bug of the router's met before the plan
        (the classifier, planning, translation) has none either, but is no refusal: the
        router failed a request it took to serve (`router_error`), as it fails one whose
        every backend failed, and both take the time they took as a latency."""
        return not self.route and self.outcome != "router_error"

    @property
    def unpriced(self) -> bool:
        """Served, with a cost or counterfactual the pricer could not know (None, which the
        ledger stores as NULL): the rows `router.ledger.rollups.UNPRICED` counts as the
        report's `unpriced_requests`, and `smf_router_unpriced_requests_total` counts."""
        return self.backend is not None and (
            self.cost_usd is None or self.counterfactual_usd is None
        )


def backend_moves(attempts: Iterable[Attempt]) -> list[tuple[Attempt, Attempt]]:
    """Each move from one backend to another among the attempts that ran: the fallbacks.
    A retry on the same backend (after a short Retry-After) is no fallback, and a skipped
    attempt never ran. Metrics, the record and the ledger count fallbacks with this."""
    tried = [a for a in attempts if a.outcome != "skipped"]
    return [(prev, nxt) for prev, nxt in itertools.pairwise(tried) if prev.backend != nxt.backend]


class _RequestIds:
    """Request ids shaped like `uuid4().hex` (32 hex digits) at a fraction of the cost.

    A random 80-bit prefix per process plus a 48-bit counter: unique across the processes
    that share a ledger, without `uuid4`'s urandom syscall and `UUID` object per request
    (~3 µs, seen with py-spy). A forked child draws a prefix of its own.
    """

    def __init__(self) -> None:
        self.reset()
        os.register_at_fork(after_in_child=self.reset)

    def reset(self) -> None:
        self._prefix = secrets.token_hex(10)
        self._counter = itertools.count()

    def next(self) -> str:
        return f"{self._prefix}{next(self._counter) & 0xFFFFFFFFFFFF:012x}"


new_request_id = _RequestIds().next
