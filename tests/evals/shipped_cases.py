"""The shipped canary cases, loaded once, and picked by id: what the runner and CLI tests
send, and what the simulator answers with their references."""

from __future__ import annotations

from evals.suite import SHIPPED, Case, load

SHIPPED_CASES = load(SHIPPED)


def pick(*ids: str) -> list[Case]:
    by_id = {c.id: c for c in SHIPPED_CASES}
    return [by_id[i] for i in ids]
