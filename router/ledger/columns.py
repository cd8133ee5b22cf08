"""The columns of the ledger's row tables (canary and shadow rows), by name and type.

Free of PyArrow on purpose: `LedgerWriter.submit_row` checks a row's keys on the event loop,
possibly before the flush thread has imported Arrow (~0.2 s); `schema` builds the Arrow
schemas from these same lists.
"""

from __future__ import annotations

Columns = tuple[tuple[str, str], ...]

CANARY_RESULTS: Columns = (
    ("run_id", "string"),
    ("ts", "timestamp"),
    ("backend", "string"),
    ("suite", "string"),
    ("case_id", "string"),
    ("difficulty", "string"),
    ("status", "string"),
    ("failure_kind", "string"),
    ("latency_s", "float64"),
    # What the case's call cost (`router.canary_spend`): the backend's tier, its usage (the
    # router's estimate when it reported none: `tokens_estimated`), and its price as a live
    # request's to that backend, NULL when no cloud price is known. A case that got no reply
    # has NULL tokens and cost 0; files written before these columns read all five as NULL.
    ("tier", "string"),
    ("prompt_tokens", "int64"),
    ("completion_tokens", "int64"),
    ("tokens_estimated", "bool"),
    ("cost_usd", "float64"),
)

# One row per canary run per backend: when, how many cases, and why a backend was skipped.
CANARY_RUNS: Columns = (
    ("run_id", "string"),
    ("ts", "timestamp"),
    ("backend", "string"),
    ("suites", "string"),
    ("cases", "int32"),
    ("passed", "int32"),
    ("failed", "int32"),
    ("errors", "int32"),
    ("skipped_reason", "string"),
    ("duration_s", "float64"),
    # The server asked: its model and base URL (masked), so a router following the rounds
    # judges only those of the server a backend points at now (files written before these
    # columns read them as NULL).
    ("model", "string"),
    ("base_url", "string"),
    ("server", "string"),  # router.canary_judge.fingerprint: the one that decides
)

# One row per backend as a router's canary run is about to ask its first case: a run killed
# before any of its rounds landed left no trace, and each restart of a crash loop ran a full
# run at once (`router.canary_starts`). Reports and the gates read `canary_runs` alone.
CANARY_STARTS: Columns = (
    ("run_id", "string"),
    ("ts", "timestamp"),
    ("backend", "string"),
    ("model", "string"),
    ("base_url", "string"),
    ("server", "string"),
    ("writer", "string"),  # the router that ran it: its host's name and `host:port`
)

SHADOW_COMPARISONS: Columns = (
    ("ts", "timestamp"),
    ("request_id", "string"),
    ("intent", "string"),
    ("live_backend", "string"),
    ("shadow_backend", "string"),
    ("agreed", "bool"),
    ("method", "string"),
    ("detail", "string"),
    ("live_latency_s", "float64"),
    ("shadow_latency_s", "float64"),
    ("live_tokens", "int64"),
    ("shadow_tokens", "int64"),
    ("shadow_cost_usd", "float64"),
    ("route", "string"),
    ("live_cost_usd", "float64"),
    ("judge", "string"),
    ("shadow_error", "string"),
    # The backends' tiers when compared, so `shadow report` can advise without the config
    # (files written before these columns read them as NULL).
    ("live_tier", "string"),
    ("shadow_tier", "string"),
    # What the judge (`shadow.judge_backend`) was asked to judge with, and what that cost:
    # its tokens are billed like any call's (files written before these read them as NULL).
    ("judge_backend", "string"),
    ("judge_tokens", "int64"),
    ("judge_cost_usd", "float64"),
)

ROW_COLUMNS: dict[str, Columns] = {
    "canary_results": CANARY_RESULTS,
    "canary_runs": CANARY_RUNS,
    "canary_starts": CANARY_STARTS,
    "shadow_comparisons": SHADOW_COMPARISONS,
}
