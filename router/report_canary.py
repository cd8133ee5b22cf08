"""The report's canary line: what the canary's calls cost, said apart from live spend, and
a warning when some of those calls had no known price.

The canary asks every backend, a paid cloud one too, every round for as long as it runs:
its calls were in the ledger without tokens or cost, and in no report (a cloud bill the
report did not explain). `canary_results` rows carry them now (`router.canary_spend`).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from router import money
from router.money import usd

if TYPE_CHECKING:
    from router.ledger.query import Ledger

_COST = money.summable("cost_usd")  # one past any sum is left out (`router.report_oversized`)

# Per window: calls with tokens, their tokens, the dollars by tier (NULL costs left out),
# calls whose tokens had no known price, and graded results written before the ledger kept
# any of it (every spend column NULL: an answer came, its cost is not known).
_SPEND = f"""
SELECT count(*) FILTER (WHERE prompt_tokens IS NOT NULL)::BIGINT,
       coalesce(sum(prompt_tokens), 0)::BIGINT, coalesce(sum(completion_tokens), 0)::BIGINT,
       count(*) FILTER (WHERE tokens_estimated)::BIGINT,
       {money.exact_sum(f"CASE WHEN tier = 'cloud' THEN {_COST} END")},
       {money.exact_sum(f"CASE WHEN tier = 'local' THEN {_COST} END")},
       count(*) FILTER (WHERE cost_usd IS NULL AND prompt_tokens + completion_tokens > 0)::BIGINT,
       count(*) FILTER (WHERE cost_usd IS NULL AND prompt_tokens IS NULL
                        AND status IN ('pass', 'fail'))::BIGINT
FROM canary_results WHERE ts >= ? AND ts < ?
"""


def spend(ledger: Ledger, since: datetime, until: datetime) -> dict[str, Any]:
    """What the canary's calls of the window cost, kept apart from live spend (never in
    `cloud_usd`, `counterfactual_usd` nor the offload: no client asked for them)."""
    row = ledger.sql(_SPEND, [since, until])[0]
    calls, prompt, completion, estimated, cloud, local, unpriced, unrecorded = row
    return {
        "calls": int(calls or 0),
        "prompt_tokens": int(prompt or 0),
        "completion_tokens": int(completion or 0),
        "estimated_calls": int(estimated or 0),  # tokens the router estimated (no usage said)
        # 0, not null, when no call was priced (`unpriced` counts those left out), unlike
        # the report's request dollars, which are null when wholly unknown
        "cloud_usd": money.data(float(cloud or 0.0)),
        "local_usd": money.data(float(local or 0.0)),
        "unpriced": int(unpriced or 0),
        "unrecorded": int(unrecorded or 0),
    }


def line(side: dict[str, Any]) -> str | None:
    """The table's and HTML's line, when the window had canary calls (or results written
    before their spend was kept); None otherwise."""
    if not side["calls"] and not side["unrecorded"]:
        return None
    tokens = side["prompt_tokens"] + side["completion_tokens"]
    notes = []
    if side["unpriced"]:
        notes.append(f"{side['unpriced']:,} with no known price left out")
    if side["estimated_calls"]:
        notes.append(f"{side['estimated_calls']:,} with estimated tokens")
    if side["unrecorded"]:
        notes.append(f"{side['unrecorded']:,} answered before the ledger kept their cost")
    return (
        f"canary, apart from the above: {side['calls']:,} call(s), {tokens:,} tokens,"
        f" cloud {usd(side['cloud_usd'])}, local {usd(side['local_usd'])}"
        + (f" ({'; '.join(notes)})" if notes else "")
    )


def warning(side: dict[str, Any]) -> list[str]:
    """One line when some canary calls' dollars are unknown (`spend`)."""
    n = side["unpriced"]
    if not n:
        return []
    return [
        f"{n} canary call(s) with no known cloud price: left out of the canary dollars; give"
        " the backend a `price` in the config (`smf-router config check` names it)"
    ]
