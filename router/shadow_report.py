"""The shadow report: per intent and backend pair, how often the shadow agreed, and advice.

`summarize` turns ledger rows into `PairSummary` values (pure); `from_ledger` reads them.
Agreement carries a Wilson 95% interval, printed as it is, rounded outward (`bounds`):
"41% (95% CI 34%–48%) of 230 compared". A "± x%" of half its width read 100% of 30 as
"± 6%", at least 94%, where the interval starts at 88% (found in review). The
recommendation only moves a route when the interval is clear of the threshold. Failed
replays (timeouts, errors, replies the engine aborted or the output limit cut) are left
out of the agreement, and the headline counts them apart ("(253 failed)"); the advice to
move a route to its cheaper shadow counts each as a disagreement (`served_interval`), so
it is given only when the shadow agreed on enough of the replays tried, failed or not.
Failures skew to the hard requests, leaving the easy ones to compare: "local agrees on
100% of 47" said "local could serve math" while 253 of 300 replays had failed (found in
review). A request local did not answer is one it did not answer as the cloud did. The
sample-size check reads the count of the interval the advice reads (`basis`): compared and
failed replays where it would move the route, so 5 compared with 295 failed is 300
replays that keep the route where it is, not "too few samples" (found in review); `--json`
gives that interval beside the compared one (`PairSummary.as_dict`).
Advice depends on which backend is local: the tiers come from the config when given, else
from the rows (stored since the `live_tier` and `shadow_tier` columns exist); a pair whose
tiers neither knows gets no advice, and says that it needs `--config`.

Rows are grouped by the route each request really took (the row's `route`), never by the
route named after its intent: a request the classifier was unsure of took
`classifier.default_route`, and a pinned one (`model: cloud`) the backend or route it named.
Such rows (route not the intent's own) are summarised apart and get no advice to move the
intent's route, whose traffic they are not; they say which route they took. Advice to move
a route also needs that route's first backend, which only the config knows: a pair live on
another backend of a configured route is that route's fallback or overflow traffic (a
local-first route's requests that went to the cloud), and was told "consider routing coding
to local first" of a route that already does. With the config such a pair gets no advice to
move; without it, nothing tells that traffic from the route's own, and the advice reads as
if the live backend were the route's first.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from classifier.intent import UNREAD
from router import money
from router.gating import wilson_interval

AGREE_THRESHOLD = 0.9
"""Agreement a backend needs (lower bound) before the report says it could take the traffic."""

MIN_SAMPLES = 20
"""Fewer than this in the count the advice reads (`basis`), and it says to keep shadowing."""

Basis = Literal["compared", "replays"]

COLUMNS = (
    "intent",
    "route",
    "live_backend",
    "shadow_backend",
    "agreed",
    "live_latency_s",
    "shadow_latency_s",
    "live_cost_usd",
    "shadow_cost_usd",
    "judge",
    "shadow_error",
    "live_tier",
    "shadow_tier",
    "judge_cost_usd",
    "live_tokens",
    "shadow_tokens",
    "judge_tokens",
)

NEEDS_TIERS = "no advice: the backends' tiers are unknown (run with --config)"
UNREAD_ADVICE = (
    "no advice: the classifier read nothing in these requests (intent unknown), so they"
    " took classifier.default_route; no setting routes `unknown` on its own"
)
OTHER_ROUTE_ADVICE = (
    "no advice to move the {intent} route: these requests took {route}"
    " (classifier.default_route for a low-confidence request, or a pinned model)"
)


@dataclass(frozen=True)
class PairSummary:
    intent: str
    live_backend: str
    shadow_backend: str
    samples: int  # compared and decided (agreed is true or false)
    agreed: int
    undecided: int
    errors: int
    agreement: float | None
    low: float
    high: float
    live_p50_s: float | None
    shadow_p50_s: float | None
    # None: some call of the group had tokens and no known price (`_cost`)
    live_cost_usd: float | None
    shadow_cost_usd: float | None
    judge_cost_usd: float | None  # asking the judge (0 in rows written before it was kept)
    judge: Mapping[str, int] = field(default_factory=dict)
    recommendation: str = ""
    route: str = ""  # the route the requests took ("" when the rows did not say)
    # what the advice read (`basis`): None where it gave none
    advice_basis: Basis | None = None

    @property
    def replays(self) -> int:
        """Replays compared or failed: the count of `served_interval` (undecided ones apart)."""
        return self.samples + self.errors

    def as_dict(self) -> dict[str, Any]:
        """The fields, and the failure-counted interval advice to move a route reads
        (`replay_low`, `replay_high` of `replay_agreement`, over `replays`): a script read
        only the compared one, and "keep math on cloud" beside a `low` of 0.92 (found in
        review)."""
        out = asdict(self)
        out["judge"] = dict(self.judge)
        low, high = served_interval(self)
        out["replays"] = self.replays
        out["replay_agreement"] = self.agreed / self.replays if self.replays else None
        out["replay_low"], out["replay_high"] = low, high
        return out


def _cost(rows: Sequence[Mapping[str, Any]], side: str) -> float | None:
    """The group's `side` ("live", "shadow", "judge") dollars; None when a call had tokens
    and no known price (a NULL cost: `router.pricing`). Summed as 0 it read as a free cloud
    backend (found in review). A NULL cost with no tokens is a call never made, or a row
    written before the column was kept: 0, as before. To `money.data`'s ten decimals, as
    the main report's dollars: at six, a local shadow's $3e-7 calls summed to 0."""
    total = 0.0
    for r in rows:
        cost = r.get(f"{side}_cost_usd")
        if cost is None:
            if r.get(f"{side}_tokens"):
                return None
            continue
        total += float(cost)
    return money.data(total)


def _p50(values: Sequence[float]) -> float | None:
    return round(statistics.median(values), 4) if values else None


def _pair(
    key: tuple[str, str, str, str],
    rows: Sequence[Mapping[str, Any]],
    tiers: Mapping[str, str],
    firsts: Mapping[str, str],
) -> PairSummary:
    decided = [r for r in rows if r.get("agreed") is not None]
    errors = sum(1 for r in rows if r.get("shadow_error"))
    agreed = sum(1 for r in decided if r["agreed"])
    n = len(decided)
    low, high = wilson_interval(agreed, n)
    judge: dict[str, int] = {}
    for r in rows:
        if r.get("judge"):
            judge[r["judge"]] = judge.get(r["judge"], 0) + 1
    ok = [r for r in rows if not r.get("shadow_error")]
    summary = PairSummary(
        intent=key[0],
        route=key[1],
        live_backend=key[2],
        shadow_backend=key[3],
        samples=n,
        agreed=agreed,
        undecided=len(rows) - n - errors,
        errors=errors,
        agreement=agreed / n if n else None,
        low=low,
        high=high,
        live_p50_s=_p50(
            [float(r["live_latency_s"]) for r in ok if r.get("live_latency_s") is not None]
        ),
        shadow_p50_s=_p50(
            [float(r["shadow_latency_s"]) for r in ok if r.get("shadow_latency_s") is not None]
        ),
        # every live request was paid for, whether or not its shadow failed
        live_cost_usd=_cost(rows, "live"),
        shadow_cost_usd=_cost(rows, "shadow"),
        judge_cost_usd=_cost(rows, "judge"),
        judge=judge,
    )
    return _with_advice(summary, tiers, firsts)


def tiers_of(
    rows: Iterable[Mapping[str, Any]], configured: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Each backend's tier: the config's when given (what routing does now), else the one
    its comparison rows stored."""
    stored: dict[str, str] = {}
    for row in rows:
        for side in ("live", "shadow"):
            name, tier = row.get(f"{side}_backend"), row.get(f"{side}_tier")
            if name is not None and tier:
                stored.setdefault(str(name), str(tier))
    return {**stored, **(configured or {})}


def summarize(
    rows: Iterable[Mapping[str, Any]],
    tiers: Mapping[str, str] | None = None,
    firsts: Mapping[str, str] | None = None,
) -> list[PairSummary]:
    """Group comparison rows by (intent, route taken, live, shadow) and summarise each group;
    `tiers` (from the config) win over those the rows stored; `firsts` (from the config too)
    is each route's first backend."""
    rows = list(rows)
    known = tiers_of(rows, tiers)
    groups: dict[tuple[str, str, str, str], list[Mapping[str, Any]]] = {}
    for row in rows:
        key = (
            str(row["intent"]),
            str(row.get("route") or ""),
            str(row["live_backend"]),
            str(row["shadow_backend"]),
        )
        groups.setdefault(key, []).append(row)
    return [_pair(key, groups[key], known, firsts or {}) for key in sorted(groups)]


def bounds(low: float, high: float) -> str:
    """'34%–48%': an interval in whole percents rounded outward, so that it holds the one
    computed. Rounded to nearest, a lower bound of 89.7% read "90%–100%" beside advice that
    it is not clear of 90% (the threshold is on the lower bound itself)."""
    return f"{math.floor(low * 100 + 1e-9)}%–{math.ceil(high * 100 - 1e-9)}%"


def ci(share: float, low: float, high: float) -> str:
    """'41% (95% CI 34%–48%)': the interval itself (the Wilson interval is not symmetric,
    least of all near 0 and 100%: a "±" of half its width misread it)."""
    return f"{share:.0%} (95% CI {bounds(low, high)})"


def served_interval(s: PairSummary) -> tuple[float, float]:
    """The Wilson interval of the share of replays that answered and agreed: each failed
    replay counted as a disagreement. What advice to move the route to the shadow reads."""
    return wilson_interval(s.agreed, s.replays)


def headline(s: PairSummary, tiers: Mapping[str, str]) -> str:
    """'math: local agrees with cloud on 41% (95% CI 34%–48%) of 230 compared (12 failed)'
    ('math via coding:' for math requests that took another route)."""
    label = s.intent if s.route in ("", s.intent) else f"{s.intent} via {s.route}"
    first, second = s.shadow_backend, s.live_backend
    if tiers.get(s.live_backend) == "local" and tiers.get(s.shadow_backend) != "local":
        first, second = second, first  # name the local backend first, whichever was live
    failed = f" ({s.errors} failed)" if s.errors else ""
    if s.agreement is None:
        return f"{label}: no decided comparison between {first} and {second} yet{failed}"
    return (
        f"{label}: {first} agrees with {second} on {ci(s.agreement, s.low, s.high)} "
        f"of {s.samples} compared{failed}"
    )


def advice(
    s: PairSummary,
    tiers: Mapping[str, str],
    threshold: float = AGREE_THRESHOLD,
    firsts: Mapping[str, str] | None = None,
) -> str:
    """What to do with the intent's route, given the interval (never a move on a thin
    sample); `firsts`, each route's first backend, when the config is known."""
    if (none := _no_advice(s, tiers, firsts or {})) is not None:
        return none
    if _moves(s, tiers):
        return _move_advice(s, threshold)
    live, shadow, intent = s.live_backend, s.shadow_backend, s.intent
    if s.samples < MIN_SAMPLES:
        return (
            f"too few samples to decide ({s.samples} compared, need {MIN_SAMPLES}); keep shadowing"
        )
    if s.low >= threshold:
        return f"keep {intent} on {live}"
    if s.high < threshold:
        prefer = s.judge.get("shadow", 0)
        judged = sum(s.judge.values())
        extra = f" (the judge preferred {shadow} in {prefer} of {judged})" if judged else ""
        return f"{live} and {shadow} often disagree on {intent}: review {intent} on {live}{extra}"
    return "not conclusive yet; keep shadowing"


def basis(
    s: PairSummary, tiers: Mapping[str, str], firsts: Mapping[str, str] | None = None
) -> Basis | None:
    """The count and interval `advice` reads, its sample-size check too: "replays" (compared
    and failed, `served_interval`) where it would move the route to its cheaper shadow,
    "compared" (`low`, `high` of `samples`) elsewhere; None where it gives no advice."""
    if _no_advice(s, tiers, firsts or {}) is not None:
        return None
    return "replays" if _moves(s, tiers) else "compared"


def _moves(s: PairSummary, tiers: Mapping[str, str]) -> bool:
    """Whether the advice is whether to move the route to its shadow: a cheaper one."""
    return tiers.get(s.shadow_backend) == "local" and tiers.get(s.live_backend) != "local"


def _no_advice(s: PairSummary, tiers: Mapping[str, str], firsts: Mapping[str, str]) -> str | None:
    """Why the pair gets no advice on its route, if it gets none."""
    live, shadow, intent, route = s.live_backend, s.shadow_backend, s.intent, s.route
    if intent == UNREAD:  # no route is keyed by it: "route unknown to local" means nothing
        return UNREAD_ADVICE
    first = firsts.get(route)  # None for a pinned backend: it has no fallback
    if first is not None and live != first:  # the route chose `first`; this is what it left
        where = (
            f"the {route} route starts with {first}"
            if route == intent
            else f"they took the {route} route, which starts with {first}"
        )
        return f"no advice: {live} served these {intent} requests as fallback or overflow ({where})"
    if route and route != intent:  # the default route's or a pin's: not the intent's route
        return OTHER_ROUTE_ADVICE.format(intent=intent, route=route)
    if live not in tiers or shadow not in tiers:  # "keep prose on cloud" or its opposite
        return NEEDS_TIERS
    return None


def _move_advice(s: PairSummary, threshold: float) -> str:
    """Whether the cheaper shadow could take the intent's route, on `served_interval`:
    failed replays count against it, so no advice moves a route while they could hide the
    disagreements (a failed replay of an easy request counts against it too: the bound
    errs toward keeping the route as it is). Its sample is the replays tried, failed ones
    too: 5 compared with 295 failed said "too few samples" where the 295 decide."""
    live, shadow, intent = s.live_backend, s.shadow_backend, s.intent
    tried = s.replays
    if tried < MIN_SAMPLES:
        return (
            f"too few samples to decide ({tried} replays compared or failed, need"
            f" {MIN_SAMPLES}); keep shadowing"
        )
    low, high = served_interval(s)
    if low >= threshold:
        return f"{shadow} could serve {intent}: consider routing {intent} to {shadow} first"
    if high < threshold:
        failed = f" ({shadow} failed {s.errors} of {tried} replays)" if s.errors else ""
        return f"keep {intent} on {live}{failed}"
    if not s.errors:
        return "not conclusive yet; keep shadowing"
    each = "each failed replay" if s.errors > 1 else "its failed replay"
    return (
        f"not conclusive yet: with {each} counted as a disagreement, {shadow} agrees on "
        f"{ci(s.agreed / tried, low, high)} of {tried}; keep shadowing"
    )


def _with_advice(
    s: PairSummary, tiers: Mapping[str, str], firsts: Mapping[str, str]
) -> PairSummary:
    text = f"{headline(s, tiers)} — {advice(s, tiers, firsts=firsts)}"
    fields = {**asdict(s), "judge": dict(s.judge), "recommendation": text}
    return PairSummary(**{**fields, "advice_basis": basis(s, tiers, firsts)})


def from_ledger(ledger: Any, since_days: int | None = None) -> list[dict[str, Any]]:
    """Comparison rows from a `router.ledger.Ledger` (optionally only the last N days)."""
    if since_days is not None and since_days < 1:  # 0 read as "all time", -3 as a SQL error
        raise ValueError(f"since_days must be at least 1, not {since_days}")
    where = f"WHERE ts >= now()::TIMESTAMP - INTERVAL {int(since_days)} DAY" if since_days else ""
    query = f"SELECT {', '.join(COLUMNS)} FROM shadow_comparisons {where}"
    return [dict(zip(COLUMNS, row, strict=True)) for row in ledger.sql(query)]
