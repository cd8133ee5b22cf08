"""Every shipped case's reference answer passes its own grader (the simulator relies on it)."""

from __future__ import annotations

import pytest

from evals.graders import grade, reference_answer
from evals.sandbox import run_python
from evals.suite import SHIPPED, Case, load

CASES = load(SHIPPED)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_reference_passes_its_grader(case: Case) -> None:
    verdict = grade(case, reference_answer(case), run_python)
    assert verdict.passed, verdict.reason
