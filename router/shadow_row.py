"""One shadow comparison as its ledger row: the job, what the judge said, what each call cost.

Pure: `router.shadow_replay` makes the calls and hands their facts here. Every call the shadow
makes is priced as a live request to that backend would be (a cloud judge bills its tokens
as surely as a cloud shadow), and none of it is the live route's spend: the shadow's cost
is `shadow_cost_usd`, the judge's `judge_cost_usd`. Each is priced by the pricer of the
config its call was made under, at the tier that config gives its backend: the running one
at row time may no longer know the backend (a reload removed it mid-call), and prices an
unknown backend at $0. The row's `shadow_tier` is that config's too: the one a job was
queued under may have had its target on the other tier (a reload moved it while the job
waited), and a cloud replay was stored as local, for `shadow report` to read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from router.comparison import Comparison, Reply
from router.record import Api, Record, Tier, Usage
from router.span_export import SpanLink


class Pricing(Protocol):
    def price(self, record: Record) -> tuple[float | None, float | None]: ...


@dataclass(frozen=True, slots=True)
class Job:
    """One queued replay: the request, the live answer (in memory only) and live facts."""

    record: Record
    body: bytes  # as the client sent it, in `api`; parsed as its replay starts
    live: Reply
    target: str
    api: Api = "chat"
    link: SpanLink | None = None  # the live request's span, which the replay's span links to
    size: int = 0  # bytes it holds, body and live answer, until its replay ends (`shadow_queue`)
    live_cut: bool = False  # the live answer was cut by an output limit (`shadow_reply`)


@dataclass(frozen=True, slots=True)
class Judged:
    """What the judge said, and what asking it took: `backend` None when it was not asked;
    `cost_usd` priced when it answered (`call_cost`, with the pricer of its call)."""

    verdict: str | None = None
    backend: str | None = None
    tier: Tier = "local"  # read before the call: a reload may remove the judge meanwhile
    usage: Usage | None = None
    latency_s: float = 0.0
    cost_usd: float | None = 0.0  # None: a cloud judge with no known price (router.pricing)


def call_cost(
    pricing: Pricing | None, record: Record, backend: str, tier: Tier, usage: Usage, took: float
) -> float | None:
    """What one of the shadow's calls cost (a local backend's by its time, `took`); 0
    without a pricer, None for a cloud backend with no known price (stored NULL)."""
    if pricing is None:
        return 0.0
    priced = Record(
        request_id=record.request_id,
        started_at=record.started_at,
        route=record.route,
        backend=backend,
        tier=tier,
        usage=usage,
        duration_s=took,
    )
    return pricing.price(priced)[0]


def _tokens(usage: Usage | None) -> int | None:
    return usage.prompt_tokens + usage.completion_tokens if usage is not None else None


def comparison_row(
    job: Job,
    tier: Tier,
    verdict: Comparison,
    latency: float,
    usage: Usage | None,
    judged: Judged,
    error: str | None,
    pricing: Pricing | None,
    now: float,
) -> dict[str, Any]:
    """The `shadow_comparisons` row of one replay (`tier`: the target's, and `pricing`: the
    pricer, both of the config the shadow's call was made under, not the one it was queued
    under; `usage`: the shadow's, None when it failed or gave none)."""
    record = job.record
    shadow_cost: float | None = 0.0
    if usage is not None:
        shadow_cost = call_cost(pricing, record, job.target, tier, usage, latency)
    return {
        "ts": now,
        "request_id": record.request_id,
        "intent": record.intent,
        "route": record.route,
        "live_backend": record.backend,
        "shadow_backend": job.target,
        "agreed": verdict.agreed,
        "method": verdict.method,
        "detail": verdict.detail[:300],
        "live_latency_s": record.duration_s,
        "shadow_latency_s": round(latency, 4),
        "live_tokens": record.usage.prompt_tokens + record.usage.completion_tokens,
        "shadow_tokens": _tokens(usage),
        "live_cost_usd": record.cost_usd,
        "shadow_cost_usd": shadow_cost,
        "judge": judged.verdict,
        "shadow_error": error,
        "live_tier": record.tier,
        "shadow_tier": tier,
        "judge_backend": judged.backend,
        "judge_tokens": _tokens(judged.usage),
        "judge_cost_usd": judged.cost_usd,
    }
