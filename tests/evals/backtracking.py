"""A suite's regex that backtracks without end, and the answer it does so on: what grading
in a process of its own (`evals.grading`) is for. Shared by the grader's tests and the
router's canary tests."""

from __future__ import annotations

BACKTRACKS = r"(?:\w+\s?)+!$"
"""Searched in `SENTENCE`, which has no `!`, ``re`` tries every way to split each word among
the group's turns: 2^45 or so, longer than any test runs, on any machine."""

SENTENCE = "The park is north of the river and the zoo is east of it"
