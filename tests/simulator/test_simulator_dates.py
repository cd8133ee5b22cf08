"""A date, a phone number or a pair of times is no sum unless the ask asks for one.

Three or more numbers joined by hyphens were read as a subtraction: a column of query
results' dates (`2020-01-01`) asked to be summarized got "Working through the problem
step by step gives the result $\\boxed{42}$" (`07` is no Python literal), a phone number
"Computing 555-123-4567 step by step gives -4135", and a spaced pair of times
(`10:30 - 11:45`) "Computing 30 - 11 step by step gives 19". Asked ("What is",
"compute", "calculate"), numbers so joined are a sum as before.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable

import pytest

from router.simulator import SimThread
from tests.simulator.calls import no_sum, said


@pytest.mark.parametrize(
    "ask",
    [
        "The launch is planned for 2027-07-04. Write a short announcement.",
        "Her birthday is 04-07-2027, remind me.",
        "The meeting runs 10:30-11:45 in room B.",
        "The meeting runs 10:30 - 11:45 in room B.",
        "Call the front desk at 555-123-4567 tomorrow.",
        "Summarize the log: deploy finished at 2027-07-04T10:30:00-05:00.",
        "Summarize the log: deploy finished at 2027-07-04 10:30:00+02:00.",
        "Summarize the query results:\n- 2020-01-01\n- 2020-01-02\n- 2020-01-03",
        "Summarize the query results:\n* 2020-01-01\n* 2020-01-02\n* 2020-01-03",
    ],
)
def test_dates_times_and_phone_numbers_are_no_sum(
    start_sim: Callable[..., SimThread], ask: str
) -> None:
    """Written in a sentence, a list or a log line, each gets prose."""
    assert no_sum(said(start_sim(), ask)), ask


def test_a_column_of_dates_to_summarize_gets_prose(start_sim: Callable[..., SimThread]) -> None:
    """A query result's column of 300 dates, one a line, is summarized, not computed."""
    start = datetime.date(2020, 1, 1)
    dates = "\n".join(str(start + datetime.timedelta(days=i)) for i in range(300))
    answer = said(start_sim(), f"Summarize the query results:\n{dates}")
    assert no_sum(answer) and answer.endswith(".")


@pytest.mark.parametrize(
    ("ask", "computed"),
    [
        ("What is 10-3-2?", "Computing 10-3-2 step by step gives 5."),
        ("compute 20-5-5", "Computing 20-5-5 step by step gives 10."),
        ("Please calculate 100-20-30 for me.", "Computing 100-20-30 step by step gives 50."),
        ("Take 9-4-1 + 2.", "Computing 9-4-1 + 2 step by step gives 6."),
    ],
)
def test_a_computation_asked_of_three_numbers_joined_is_computed(
    start_sim: Callable[..., SimThread], ask: str, computed: str
) -> None:
    """Asked, or part of a longer expression, numbers joined by hyphens are a sum."""
    assert said(start_sim(), ask).startswith(computed)


def test_an_expression_too_deep_to_parse_gets_an_answer(
    start_sim: Callable[..., SimThread],
) -> None:
    """`1 - ` written 20,000 times nests deeper than Python's parser goes: a RecursionError
    there was the simulator's 500 ("simulator bug"), where a server answers."""
    assert said(start_sim(), "What is " + "1 - " * 20000 + "1?")
