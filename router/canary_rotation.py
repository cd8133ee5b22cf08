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

Each suite goes on after its own latest round: the walk goes on until every suite among the
cases has rows, or to the bound. It stopped at the newest day holding any row and took that
day's latest round for all: after a one-off `canary run --config subset.yaml` on the same
ledger, every suite that run left out (all of them, were its suites no longer configured)
started at its first case again though an older day held its latest round (found in
re-review). Keeping only the configured suites' rows would still do so to those a subset
left out. A suite no round ran (one just added) walks a start to the bound, in the one
pass that resolves every suite (each day on disk read once): at the defaults, 4.5 s over
30 uncompacted days, 0.9 s compacted. Once: its first round writes its rows, and later
starts find them there. The ledger cannot bound it further: no row says which suites a
round's config had, and a round without the suite may be a one-off subset run (above).

Rows stamped later than now (by more than `CLOCK_SKEW_S`) are left out, and no day after
now's is read: a round stamped in the future (a clock ahead, then stepped back) stayed the
latest until the clock caught up, and every round since ran the same sample (found in
re-review).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from evals.suite import Case
from router.ledger.recent import RecentRows

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
    """Where each suite's rotation goes on after its latest round among `rows` (rows of
    `canary_results`): the case after the end of its sample there. A suite no round ran,
    or whose latest ran whole, starts at its first case."""
    rows = list(rows)
    latest: dict[str, Mapping[str, Any]] = {}
    for row in rows:
        known = latest.get(row["suite"])
        if known is None or row["ts"] > known["ts"]:
            latest[row["suite"]] = row
    ran = {
        (row["suite"], row["case_id"])
        for row in rows
        if row["run_id"] == latest[row["suite"]]["run_id"]
    }
    offsets: dict[str, int] = {}
    for suite, members in by_suite(cases).items():
        taken = {i for i, case in enumerate(members) if (suite, case.id) in ran}
        ends = [i for i in taken if (i + 1) % len(members) not in taken]
        if ends:  # one end, unless the suite changed since that round
            offsets[suite] = (max(ends) + 1) % len(members)
    return offsets


def resume(ledger: Path, cases: Sequence[Case], now: float, retention_days: int) -> dict[str, int]:
    """`resumed_offsets` from each suite's latest round in the ledger (blocking reads): the
    days of `canary_results` on disk, newest first, one at a time (`RecentRows.days_back`),
    until each suite of `cases` has rows, only rows of the suites still without. A backend's
    rows of a round share its `ts` and so its day, each with the whole sample: a suite's
    latest round is on the first day holding its rows, and a recent round of every suite
    costs today's files alone. Rows stamped later than `now` (`stamped_by`) are left
    out. None back to `RECALL_DAYS` (or `retention_days`, when shorter): the rotation
    starts at each suite's first case. Unreadable, it is logged and starts there too (a
    table it may not list too, logged as `RecentRows` logs a file it skips)."""
    results = RecentRows(ledger, "canary_results")
    missing = set(by_suite(cases))
    rows: list[dict[str, Any]] = []
    try:
        for day in results.days_back(now, retention_days):
            if not missing:
                break
            found = [
                row
                for row in results.read(day, day, now)  # a one-off: its files are not kept
                if row["suite"] in missing
            ]
            rows.extend(found)
            missing -= {row["suite"] for row in found}
    except Exception as exc:  # a fresh start is no reason to lose the round
        log.warning(
            "canary: the latest round in the ledger is unreadable (%s); the sample "
            "starts at each suite's first case",
            exc,
        )
        return {}
    return resumed_offsets(cases, rows)
