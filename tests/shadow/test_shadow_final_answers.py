"""Math and reasoning answers written the ways models write them: the same answer agrees,
a different one does not (found in review: `$\\frac{1}{2}$` and `$\\frac{3}{2}$` agreed as
"2", and `\\boxed{\\$18}` disagreed with 18)."""

from __future__ import annotations

from typing import Any

import pytest

from router.comparison import Reply, compare, final_answer

BODY: dict[str, Any] = {"messages": [{"role": "user", "content": "Solve it."}]}


def _agreed(intent: str, live: str, shadow: str) -> bool | None:
    result = compare(intent, BODY, Reply(live), Reply(shadow))
    assert result.method == "final_answer"
    return result.agreed


SAME = [
    ("math", "Final answer: \\(\\frac{3}{4}\\)", "Final answer: 0.75"),
    ("math", "The answer is $\\frac{1}{2}$.", "\\boxed{0.5}"),
    ("math", "\\boxed{\\dfrac{1}{2}}", "\\boxed{\\dfrac12}"),
    ("math", "\\boxed{\\$18}", "The answer is 18."),
    ("math", "\\boxed{18 \\text{ cm}}", "\\boxed{18}"),
    ("math", "\\boxed{90^\\circ}", "\\boxed{90}"),
    ("math", "The angle is \\boxed{90^{\\circ}}.", "The answer is 90°."),
    ("math", "\\boxed{1{,}000}", "\\boxed{1000}"),
    ("math", "The answer is 1,234,567.", "\\boxed{1234567}"),
    ("math", "\\boxed{50\\%}", "\\boxed{50}"),
    ("math", "\\boxed{50\\%}", "\\boxed{0.5}"),
    ("math", "The answer is 50%.", "The answer is 0.5."),
    ("math", "**Answer:** 12", "So she has 12 apples left."),
    ("math", "**Final answer**: 12", "Answer: 12"),
    ("math", "The answer is 7 apples, because 3 + 4 = 7.", "\\boxed{7}"),
    ("math", "The answer is 10 (since 2*5=10).", "The answer is 10"),
    ("math", "Final Answer: The final answer is $1024$. I hope it is correct.", "1024"),
    ("math", "I think the answer is: 2^10 = 1024", "\\boxed{1024}"),
    ("math", "\\boxed{x = 5}", "\\boxed{5}"),
    ("math", "\\boxed{-\\frac{1}{2}}", "\\boxed{-0.5}"),
    ("math", "\\boxed{3\\frac{1}{2}}", "\\boxed{3.5}"),
    ("math", "x = −3", "x = -3"),
    ("math", "\\boxed{(2, 3)}", "\\boxed{(2,3)}"),
    ("math", "\\boxed{\\frac{\\sqrt{3}}{2}}", "\\boxed{\\frac{\\sqrt3}{2}}"),
    ("math", "\\boxed{- \\frac{1}{2}}", "The answer is -0.5."),
    ("reasoning", "\\boxed{\\textbf{(C)}}", "The answer is C."),
    ("reasoning", "Answer: **Alice**", "Answer: Alice"),
    ("reasoning", "The answer is Alice. She lied twice.", "\\boxed{\\text{Alice}}"),
]

DIFFERENT = [
    # two-part answers agreed on one part (found in review of the first fix)
    ("math", "\\boxed{x=2 \\text{ or } x=3}", "\\boxed{x=4 \\text{ or } x=3}"),
    ("math", "\\boxed{-2 \\text{ and } 3}", "\\boxed{-2 \\text{ and } 4}"),
    ("math", "\\boxed{x = 2, y = 3}", "\\boxed{x = 5, y = 3}"),
    ("math", "The answer is 12 and 15.", "The answer is 12 and 18."),
    ("math", "The answer is 10:30 AM.", "The answer is 10:45 AM."),
    ("math", "The answer is 2–5.", "The answer is 2–7."),
    ("math", "The answer is 2 to 5.", "The answer is 2 to 7."),
    ("math", "The answer is 5 ≤ x ≤ 9.", "The answer is 5 ≤ x ≤ 7."),
    ("math", "The answer is 8 hours and 20 minutes.", "The answer is 8 hours and 40 minutes."),
    ("math", "\\boxed{3 i}", "\\boxed{3}"),
    ("math", "The answer is 1.5 million.", "The answer is 1.5 billion."),
    ("math", "The answer is $\\frac{1}{2}$.", "The answer is $\\frac{3}{2}$."),
    ("math", "\\boxed{\\frac{1}{3}}", "\\boxed{0.33}"),
    ("math", "The answer is .5", "The answer is 5"),
    ("math", "\\boxed{0.5}", "\\boxed{50}"),
    ("math", "\\boxed{2, 3}", "\\boxed{23}"),
    ("math", "\\boxed{5\\sqrt{2}}", "\\boxed{5}"),
    ("math", "\\boxed{5 \\sqrt{2}}", "\\boxed{5}"),
    ("math", "\\boxed{2x}", "\\boxed{2}"),
    ("math", "\\boxed{-3}", "\\boxed{3}"),
    ("math", "\\boxed{18 \\text{ cm}}", "\\boxed{19}"),
    ("math", "\\boxed{1,000}", "\\boxed{1}"),
    ("math", "The answer is 25%.", "The answer is 0.5."),
    ("reasoning", "Answer: **Alice**", "Answer: Bob"),
    ("reasoning", "The answer is Dr. Smith.", "The answer is Dr. Jones."),
]


@pytest.mark.parametrize(("intent", "live", "shadow"), SAME)
def test_one_answer_written_two_ways_agrees(intent: str, live: str, shadow: str) -> None:
    assert _agreed(intent, live, shadow) is True
    assert _agreed(intent, shadow, live) is True


@pytest.mark.parametrize(("intent", "live", "shadow"), DIFFERENT)
def test_different_answers_do_not_agree(intent: str, live: str, shadow: str) -> None:
    assert _agreed(intent, live, shadow) is False
    assert _agreed(intent, shadow, live) is False


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("The answer is $\\frac{3}{2}$.", "1.5"),
        ("\\boxed{\\$1{,}250.50}", "1250.5"),
        ("The answer is 50%.", "50%"),
        ("The answer is 1e3", "1000"),
        ("The answer is " + "9" * 500, "9" * 500),  # too long to be read as a number
        ("Answer:", None),  # nothing after it, and no number anywhere
    ],
)
def test_final_answer_values(text: str, want: str | None) -> None:
    assert final_answer(text) == want
