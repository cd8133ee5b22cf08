"""What the canary's calls cost: each case's tokens and dollars, for its `canary_results` row.

The canary asks every backend, a paid cloud one too, every `interval_s` for as long as the
router runs; its calls were recorded without tokens or cost, so what they cost was in no
report. Each call that got a reply is now counted as a live request's would be: the
backend's usage, else the router's estimate of it (`tokens_estimated`, as `Gateway.finish`
estimates a live request's), priced by `router.pricing` as a live request to that backend
(a local backend's cost by the call's time). The pricer is the one of the config the
backend's round started under, whose settings the round's calls are made with: a reload
meanwhile does not price a call by another backend's price, nor at $0 by a config that no
longer knows it. A call that got no reply (no reply in time, refused, an HTTP error) is
billed nothing, as a failed live attempt is not; nor is a 200 that holds no answer (an
error in its place, which a live attempt fails on, or no choices at all). A reply the runner
could not grade (cut by the engine, malformed) was served, and is counted. None of it is
live spend: the report says it apart (`router.report_canary`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from evals.asked import ASKED
from evals.endpoint import Ask
from evals.results import CaseResult
from router.config import Backend as BackendSettings
from router.ledger.usage import usage_of
from router.record import Record, Usage
from router.relay import Tally
from router.reply_checks import answerless, misshapen
from router.request_size import estimate_prompt_tokens, estimate_tokens


class Pricing(Protocol):
    def price(self, record: Record) -> tuple[float | None, float | None]: ...


@dataclass(slots=True)
class Calls:
    """What one case's calls took: their usage (summed) and their time on the backend."""

    usage: Usage = field(default_factory=Usage)
    took: float = 0.0


def reply_usage(body: dict[str, Any], payload: Any) -> Usage | None:
    """The usage of a reply: the backend's, else the router's estimate from the prompt and
    the text generated (as a live request's: `estimated`); None for a reply that is no
    answer (not an object; an `error` in place of one, which a live attempt fails on and
    never bills, or no choices: `answerless`), or that says no usage and holds no answer to
    count (choices nobody can read). A 200 with `{"error": ...}` had its prompt estimated
    and priced, a call that answered nothing billed (found in review)."""
    if not isinstance(payload, dict) or answerless(payload):
        return None
    said = usage_of("chat", payload.get("usage"))
    if said is not None:
        return said
    if misshapen(payload, "", "message") is not None:
        return None
    tally = Tally()
    tally.see(payload)
    return Usage(
        prompt_tokens=estimate_prompt_tokens("chat", body),
        completion_tokens=estimate_tokens(tally.output_chars),
        estimated=True,
    )


class Spend:
    """One backend's round: the usage and time of each case's calls (`wrap`), and each
    result's spend columns (`columns`), priced by `pricing` (None: at $0)."""

    def __init__(self, backend: BackendSettings, pricing: Pricing | None) -> None:
        self.backend = backend
        self.pricing = pricing
        self.calls: dict[tuple[str, str], Calls] = {}

    def wrap(self, send: Ask) -> Ask:
        """`send`, counting each reply's usage for the case the runner is asking (`ASKED`)."""

        async def sending(body: dict[str, Any]) -> Any:
            asked = ASKED.get()
            began = time.monotonic()
            payload = await send(body)  # no reply (it raised): nothing billed
            usage = reply_usage(body, payload)
            if asked is not None and usage is not None:
                key = (asked.case.suite, asked.case.id)
                self._add(self.calls.setdefault(key, Calls()), usage, time.monotonic() - began)
            return payload

        return sending

    @staticmethod
    def _add(calls: Calls, usage: Usage, took: float) -> None:
        """A case asked more than once costs each of its calls."""
        u = calls.usage
        u.prompt_tokens += usage.prompt_tokens
        u.completion_tokens += usage.completion_tokens
        u.cached_tokens += usage.cached_tokens
        u.cache_write_tokens += usage.cache_write_tokens
        u.reasoning_tokens += usage.reasoning_tokens
        u.estimated = u.estimated or usage.estimated
        calls.took += took

    def columns(self, result: CaseResult) -> dict[str, Any]:
        """The spend columns of `result`'s `canary_results` row: NULL tokens and $0 for a
        case that got no reply (or was never asked)."""
        calls = self.calls.get((result.suite, result.id))
        if calls is None:
            return {"tier": self.backend.tier, "cost_usd": 0.0}
        u = calls.usage
        return {
            "tier": self.backend.tier,
            "prompt_tokens": u.prompt_tokens,
            "completion_tokens": u.completion_tokens,
            "tokens_estimated": u.estimated,
            "cost_usd": self.cost(calls),
        }

    def cost(self, calls: Calls) -> float | None:
        """What the calls cost, as a live request to the backend that took `calls.took`
        seconds would; None for a cloud backend with no known price (stored NULL)."""
        if self.pricing is None:
            return 0.0
        priced = Record(
            request_id="canary",
            started_at=0.0,
            backend=self.backend.name,
            tier=self.backend.tier,
            usage=calls.usage,
            duration_s=calls.took,
        )
        return self.pricing.price(priced)[0]
