"""A long text is read for a sum in time in proportion to its length.

Every simulated request is read for a sum (`router.simulator.arithmetic`). A line of
`12:45-` 166,666 times (1 MB) took 8 s to read, as each pair of times copied its line up
to itself to look for a list's mark, 100,000 `1`s 136 s and 100,000 `(` 68 s, as a pattern
was tried again from each character of a run it had failed on (found in a review). Each
read here takes milliseconds now; the timeouts are far above that and far below the old.
"""

from __future__ import annotations

import pytest

from router.simulator.arithmetic import evaluate_first, math_answer, sum_written

MB = 1_000_000


@pytest.mark.timeout(30)  # ~4.5 s a read of 3 MB; before, 42 s for the first
def test_a_long_line_of_times_is_read_in_linear_time() -> None:
    text = "12:45-" * (3 * MB // 6)
    assert not sum_written(text)
    assert evaluate_first(text) is None


@pytest.mark.timeout(20)  # milliseconds each; before, 136 s, 68 s and 39 s
@pytest.mark.parametrize("text", ["1" * 100_000, "(" * 100_000, ". " * 50_000])
def test_a_long_run_no_sum_is_written_in_is_read_in_linear_time(text: str) -> None:
    assert not sum_written(text)
    assert evaluate_first(text) is None


@pytest.mark.parametrize(
    "ask",
    [
        "* 2020-01-01",  # a list's mark leads into the date: no operator
        "\n" + " " * 40 + "* 2020-01-01",  # indented
        "- see the notes from the meeting about the launch, planned for 2020-01-01",
    ],
)
def test_a_list_items_date_is_no_sum(ask: str) -> None:
    """The line's start is looked for a bounded distance back: a list's mark far before
    the date on its line is not read as the item's, and a long line is no list item."""
    assert not sum_written(ask)


def test_an_operator_far_into_a_long_line_leads_into_a_sum() -> None:
    """On a line that starts further back than the look-back's bound, an operator before a
    range is read as one, not as a list's mark."""
    assert sum_written("x" * 200 + " 2 * 3-5")
    assert math_answer("x" * 200 + " 2 * 3-5").startswith("Computing 2 * 3-5")


@pytest.mark.parametrize(
    ("ask", "computed"),
    [
        ("What is 1.5+2?", "1.5+2"),
        ("Evaluate (1+2)*3 please.", "(1+2)*3"),
        ("((( and then 4*5", "4*5"),
        ("1234567+1", "1234567+1"),
    ],
)
def test_an_expression_after_a_run_that_ends_in_none_is_read_whole(ask: str, computed: str) -> None:
    """A run of an expression's characters that no number ends is passed over at once; the
    expression after it is read whole, from its first digit or parenthesis."""
    found = evaluate_first(ask)
    assert found is not None and found[0].strip() == computed
