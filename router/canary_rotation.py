"""Which cases a canary round runs: a rotating sample, going on where the last round ended.

Each round runs the next `sample_per_suite` cases of each suite. Where the rotation stood
lived in the `Canary` alone, and `smf-router canary run` makes a new one in each process:
every CronJob round ran the same first cases of each suite, and the gate windows filled
with repeats of three prompts (found in review). A canary given the ledger now starts after
the cases of the latest round there (its `canary_results`), so one-shot processes rotate as
a router's loop does, and a restarted router does not start over either. That round is
looked for day by day, newest first, back to `RECALL_DAYS` (30) or `retention_days` when
shorter, as the gates' recall walks (`recall_days`): only yesterday and today were read, and
after a longer gap (a router stopped over a weekend, rounds every few days, `canary run` by
hand weekly) every suite started at its first case again (found in review).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from evals.suite import Case
from router.ledger.recent import RecentRows, recall_days

log = logging.getLogger("smf_router.canary")


def by_suite(cases: Sequence[Case]) -> dict[str, list[Case]]:
    """Each suite's cases, in the order given, suites by name."""
    suites: dict[str, list[Case]] = {}
    for case in cases:
        suites.setdefault(case.suite, []).append(case)
    return dict(sorted(suites.items()))


def rotating_sample(cases: Sequence[Case], per_suite: int, offsets: dict[str, int]) -> list[Case]:
    """The next `per_suite` cases of each suite, wrapping around; advances `offsets`."""
    sample: list[Case] = []
    for suite, members in by_suite(cases).items():
        start = offsets.get(suite, 0) % len(members)
        take = min(per_suite, len(members))
        sample.extend(members[(start + i) % len(members)] for i in range(take))
        offsets[suite] = (start + take) % len(members)
    return sample


def resumed_offsets(cases: Sequence[Case], rows: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """Where each suite's rotation goes on after the latest round among `rows` (rows of
    `canary_results`): the case after the end of its sample there. A suite that round did
    not run, or ran whole, starts at its first case."""
    rows = list(rows)
    if not rows:
        return {}
    latest = max(rows, key=lambda row: row["ts"])["run_id"]
    ran = {(row["suite"], row["case_id"]) for row in rows if row["run_id"] == latest}
    offsets: dict[str, int] = {}
    for suite, members in by_suite(cases).items():
        taken = {i for i, case in enumerate(members) if (suite, case.id) in ran}
        ends = [i for i in taken if (i + 1) % len(members) not in taken]
        if ends:  # one end, unless the suite changed since that round
            offsets[suite] = (max(ends) + 1) % len(members)
    return offsets


def resume(ledger: Path, cases: Sequence[Case], now: float, retention_days: int) -> dict[str, int]:
    """`resumed_offsets` from the ledger's latest round (blocking reads): the days of
    `canary_results` on disk, newest first, one at a time (`recall_days`), up to the first
    that holds any row. A backend's rows of a round share its `ts` and so its day, each with
    the whole sample: the latest round is on that day, and a recent one costs today's files
    alone. None back to `RECALL_DAYS` (or `retention_days`, when shorter): the rotation
    starts at each suite's first case. Unreadable, it is logged and starts there too."""
    results = RecentRows(ledger, "canary_results")
    rows: list[dict[str, Any]] = []
    try:
        for day in recall_days(ledger, "canary_results", now, retention_days):
            rows = results.read(day, day)  # a one-off: its files are not kept
            if rows:
                break
    except Exception as exc:  # a fresh start is no reason to lose the round
        log.warning(
            "canary: the latest round in the ledger is unreadable (%s); the sample "
            "starts at each suite's first case",
            exc,
        )
        return {}
    return resumed_offsets(cases, rows)
