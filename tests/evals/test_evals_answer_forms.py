"""The shipped `\\boxed{}` cases pass every form a correct answer is written in, and fail an
answer whose boxes disagree.

Found in review: `\\boxed{\\dfrac{99}{100}}`, `\\boxed{\\$694.00}`, `\\boxed{540.}`,
`\\boxed{\\mathbf{540}}` and `\\boxed{5 \\text{ cents}}` failed; `Maybe \\boxed{540} or
\\boxed{600}?` passed. The answers below are worked out by hand from each case's prompt (the
suites' `reference` texts are whole solutions), and every form is tried on every case.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from evals.graders import Answer, grade
from evals.suite import Case
from tests.evals import boxed_patterns
from tests.evals.shipped_cases import SHIPPED_CASES

NUMBERS: dict[str, tuple[str, str]] = {
    # case id: (answer, kind) where kind says which unit words are right after it
    "smf.math.gsm8k.03": ("540", "meters"),  # 3 sprints x 3 times x 60 m
    "smf.math.gsm8k.11": ("694", "dollars"),  # 3*68 + 2*80 + 6*55
    "smf.math.gsm8k.27": ("16", "dollars"),  # 60 servings / 15 = 4 cartons at $4
    "smf.math.gsm8k.40": ("8", "years"),  # Ben 2 x 1, Brandon 4 x 2
    "smf.math.gsm8k.58": ("57", "dollars"),  # 40 + 25% of 40 + 3 + 4
    "smf.math.hard.01": ("4", ""),  # 7^12 = 1 mod 13, 7^10 = 4
    "smf.math.hard.02": ("110", "paths"),  # C(10,4) - C(5,2)^2
    "smf.math.medium.01": ("99/100", ""),  # telescopes to 1 - 1/100
    "smf.math.medium.02": ("467", "integers"),  # 333 + 200 - 66
    "smf.math.expert.01": ("505", "zeros"),  # 405 + 81 + 16 + 3
    "smf.math.expert.02": ("115", ""),  # digits of 1267650600228229401496703205376
    "smf.reasoning.easy.03": ("9", "sheep"),  # all but 9 ran away
    "smf.reasoning.medium.03": ("5", "cents"),  # b + (b + 100) = 110 cents
    "smf.reasoning.hard.02": ("42", ""),  # n(n+1), n = 6
    "smf.reasoning.expert.02": ("11", "times"),  # every 12/11 hours, midnight included
}
NAMES = {
    "smf.reasoning.easy.01": "Cal",
    "smf.reasoning.easy.02": "Saturday",
    "smf.reasoning.medium.01": "Pell",
    "smf.reasoning.medium.02": "Bo",
    "smf.reasoning.hard.01": "Mixed",
    "smf.reasoning.expert.01": "Tess",
}
BY_ID = {case.id: case for case in SHIPPED_CASES}


def _boxed_cases() -> set[str]:
    return {case.id for case in SHIPPED_CASES if "boxed" in str(case.expected)}


def _thousands(number: str) -> list[str]:
    """`1234` as `1,234` and `1{,}234` (no separator below 1000)."""
    if "/" in number or int(number) < 1000:
        return []
    grouped = f"{int(number):,}"
    return [grouped, grouped.replace(",", "{,}")]


def numbers(answer: str) -> list[str]:
    """The answer as a number is written inside a box (before any unit)."""
    if "/" in answer:
        top, bottom = answer.split("/")
        fractions = [rf"\{name}{{{top}}}{{{bottom}}}" for name in ("frac", "dfrac", "tfrac")]
        return [
            *fractions,
            answer,
            rf"\frac {{ {top} }} {{ {bottom} }}",
            rf"\frac{{{top}}}{{{bottom}}}.",
        ]
    return [answer, f"{answer}.", f"{answer}.0", f"{answer}.00", *_thousands(answer)]


def renderings(answer: str, kind: str) -> list[str]:
    """Correct answers: the number alone, dressed, with its unit, as a dollar amount."""
    out: list[str] = []
    for number in numbers(answer):
        out += [rf"\boxed{{{number}}}", rf"\boxed{{ {number} }}", rf"$\boxed{{{number}}}$"]
        out += [rf"\boxed{{\{bold}{{{number}}}}}" for bold in ("mathbf", "textbf", "text")]
    if kind:
        out += [
            rf"\boxed{{{answer} \text{{ {kind}}}}}",
            rf"\boxed{{{answer}\text{{{kind}}}}}",
            rf"\boxed{{{answer}\,\text{{{kind}}}}}",
            rf"\boxed{{{answer} {kind}}}",
            rf"\boxed{{\text{{{answer} {kind}}}}}",
            rf"\boxed{{\mathbf{{{answer} \text{{ {kind}}}}}}}",
        ]
    if kind == "dollars":
        out += [rf"\boxed{{\${answer}}}", rf"\boxed{{${answer}}}", rf"\boxed{{\${answer}.00}}"]
        out += [rf"\boxed{{\mathbf{{\${answer}.00}}}}", rf"\boxed{{\$\textbf{{{answer}}}}}"]
    out.append(rf"\boxed{{{dressed(answer, kind)}}}")  # the right box of a hedge below
    if kind == "cents":
        out += [rf"\boxed{{{answer}¢}}", rf"\boxed{{{answer}\text{{¢}}}}"]
    return out


def wrong(answer: str) -> str:
    """A wrong answer of the same shape."""
    if "/" in answer:
        top, bottom = (int(part) for part in answer.split("/"))
        return rf"\frac{{{top - 1}}}{{{bottom - 1}}}"
    return str(int(answer) + 1)


def dressed(answer: str, kind: str) -> str:
    """A correct box's content in its fullest form: currency, decimals, unit."""
    if kind == "dollars":
        return rf"\$ {answer}.00 \text{{ dollars}}"
    return rf"\mathbf{{{answer} \text{{ {kind}}}}}" if kind else rf"\mathbf{{{answer}}}"


def hedges(right: str, other: str) -> list[str]:
    """Answers with the right box and a disagreeing one, in either order."""
    return [
        rf"Maybe \boxed{{{right}}} or \boxed{{{other}}}? Final: \boxed{{{other}}}",
        rf"Maybe \boxed{{{other}}} or \boxed{{{right}}}? Final: \boxed{{{right}}}",
        rf"So \boxed{{{right}}} ... actually \boxed{{{other}}}.",
        rf"First guess \boxed{{\text{{{other}}}}}; checking again, \boxed{{\mathbf{{{right}}}}}.",
    ]


NUMBER_FORMS = [
    (cid, form) for cid, (ans, kind) in NUMBERS.items() for form in renderings(ans, kind)
]
NUMBER_HEDGES = [
    (cid, text)
    for cid, (ans, kind) in NUMBERS.items()
    for text in hedges(ans, wrong(ans)) + hedges(dressed(ans, kind), wrong(ans))[:1]
]
NAME_HEDGES = [(cid, text) for cid, name in NAMES.items() for text in hedges(name, "Zed")]


def _graded(case_id: str, text: str) -> bool:
    return grade(BY_ID[case_id], Answer(content=f"Working it out step by step. {text}")).passed


def test_every_boxed_case_has_its_answer_worked_out_here() -> None:
    """A new `\\boxed{}` case must come with its answer, or no form of it is tried."""
    assert _boxed_cases() == set(NUMBERS) | set(NAMES)


@pytest.mark.parametrize("case_id", sorted(NUMBERS))
def test_the_reference_boxes_the_answer_worked_out_here(case_id: str) -> None:
    """The hand-worked answer is the one the suite's author boxed (fractions as `\\frac`)."""
    answer = NUMBERS[case_id][0]
    boxed = re.findall(r"\\boxed\{(.*)\}", BY_ID[case_id].reference or "")
    top, _, bottom = answer.partition("/")
    assert boxed[-1:] == ([rf"\frac{{{top}}}{{{bottom}}}"] if bottom else [answer])


@pytest.mark.parametrize(
    ("case_id", "text"), NUMBER_FORMS, ids=[f"{c}:{t}" for c, t in NUMBER_FORMS]
)
def test_a_correct_form_passes(case_id: str, text: str) -> None:
    assert _graded(case_id, text), text


@pytest.mark.parametrize(
    ("case_id", "text"), NUMBER_HEDGES, ids=[f"{c}:{t}" for c, t in NUMBER_HEDGES]
)
def test_a_numeric_hedge_fails(case_id: str, text: str) -> None:
    assert not _graded(case_id, text), text


@pytest.mark.parametrize(("case_id", "text"), NAME_HEDGES, ids=[f"{c}:{t}" for c, t in NAME_HEDGES])
def test_a_named_answer_beside_another_fails(case_id: str, text: str) -> None:
    """`\\boxed{Cal}` then `\\boxed{Zed}`: only the listed wrong names failed before."""
    assert not _graded(case_id, text), text


@pytest.mark.parametrize("case_id", sorted(NAMES))
def test_a_named_answer_passes_plain_or_dressed(case_id: str) -> None:
    name = NAMES[case_id]
    for text in (
        rf"\boxed{{{name}}}",
        rf"\boxed{{\text{{{name}}}}}",
        rf"\boxed{{\textbf{{{name}}}}}",
    ):
        assert _graded(case_id, text), text


@pytest.mark.parametrize("case_id", sorted(NUMBERS))
def test_near_misses_still_fail(case_id: str) -> None:
    """Widening took forms, not values: a digit more or less, a fraction, a second number in
    the same box, a currency or unit the question does not ask for."""
    answer, kind = NUMBERS[case_id]
    if "/" in answer:
        misses = [
            r"\boxed{\frac{98}{99}}",
            r"\boxed{\frac{99}{1000}}",
            r"\boxed{0.999}",
            r"\boxed{9/100}",
        ]
    else:
        misses = [
            rf"\boxed{{{answer}0}}",
            rf"\boxed{{1{answer}}}",
            rf"\boxed{{{answer}.5}}",
            rf"\boxed{{-{answer}}}",
            rf"\boxed{{{answer} \text{{ or }} {wrong(answer)}}}",
            rf"\boxed{{{answer}, {wrong(answer)}}}",
            rf"\boxed{{{answer} \text{{ or {wrong(answer)}}}}}",
        ]
    if kind == "cents":
        misses += [rf"\boxed{{\${answer}}}", rf"\boxed{{{answer} \text{{ dollars}}}}"]
    if kind == "dollars":
        misses += [rf"\boxed{{{answer} \text{{ cents}}}}", rf"\boxed{{\${answer}.01}}"]
    for text in misses:
        assert not _graded(case_id, text), text


NOT_UNITS = ("thousand", "hundred", "million", "dozen", "minus nine", "plus one", "squared")
OTHER_UNITS = ("percent", "kilometers", "dollars", "cents", "days")


@pytest.mark.parametrize("case_id", sorted(NUMBERS))
def test_a_scale_an_operator_or_another_unit_after_the_number_fails(case_id: str) -> None:
    """Any words after the number passed: `\\boxed{540 thousand}` for 540 meters and
    `\\boxed{4 minus nine}` for a remainder of 4 (found in review), and `must_not_match`,
    built from the same pattern, took them for the answer beside a right box. Each case
    takes only its own unit's words (none where the answer has no unit)."""
    answer, kind = NUMBERS[case_id]
    words = [w for w in (*NOT_UNITS, *OTHER_UNITS) if w != kind]
    for word in words:
        for text in (
            rf"\boxed{{{answer} {word}}}",
            rf"\boxed{{{answer} \text{{ {word}}}}}",
            rf"{renderings(answer, kind)[0]}, that is \boxed{{{answer} {word}}}",
        ):
            assert not _graded(case_id, text), text


UNIT_SPELLINGS = {
    "smf.math.gsm8k.03": ["m", "metres", "meters per week", "meters a week"],
    "smf.math.gsm8k.40": ["years old", "year", "yrs"],
    "smf.math.hard.02": ["lattice paths"],
    "smf.math.medium.02": ["numbers"],
    "smf.math.expert.01": ["trailing zeros", "zeroes"],
    "smf.reasoning.expert.02": ["overlaps"],
    "smf.reasoning.medium.03": ["cent", "¢"],
    "smf.math.gsm8k.11": ["dollar", "USD"],
}


@pytest.mark.parametrize("case_id", sorted(UNIT_SPELLINGS))
def test_the_cases_own_unit_passes_in_its_spellings(case_id: str) -> None:
    """Narrowed to its own unit, a case still takes the ways a correct answer spells it."""
    answer = NUMBERS[case_id][0]
    for word in UNIT_SPELLINGS[case_id]:
        for text in (rf"\boxed{{{answer} {word}}}", rf"\boxed{{{answer}\,\text{{{word}}}}}"):
            assert _graded(case_id, text), text


@pytest.mark.parametrize("case_id", sorted(NUMBERS))
def test_agreeing_boxes_and_the_quoted_instruction_pass(case_id: str) -> None:
    """Only disagreement fails: the same answer boxed twice in two forms passes, and so does
    an empty `\\boxed{}` quoted from the instruction (it holds no answer)."""
    answer, kind = NUMBERS[case_id]
    first, last = renderings(answer, kind)[0], renderings(answer, kind)[-1]
    text = rf"You asked for the answer inside \boxed{{}}. So {first}, that is {last}."
    assert _graded(case_id, text), text


def test_the_cases_are_still_graded_by_regex_match() -> None:
    """The suites stay smf-bench's format: patterns, no grader of our own."""
    cases: list[Case] = [BY_ID[cid] for cid in _boxed_cases()]
    assert {case.evaluator for case in cases} == {"regex_match"}
    assert all(case.metadata.get("must_not_match") for case in cases)


def _built(case_id: str) -> str:
    """The inner pattern `boxed_patterns` builds from the case's hand-worked answer."""
    if case_id in NAMES:
        return boxed_patterns.name(NAMES[case_id])
    answer, kind = NUMBERS[case_id]
    if "/" in answer:
        top, bottom = map(int, answer.split("/"))
        value = boxed_patterns.fraction(top, bottom, str(top / bottom))
    else:
        value = boxed_patterns.integer(int(answer))
    return boxed_patterns.numeric(value, kind)


@pytest.mark.parametrize("case_id", sorted({*NUMBERS, *NAMES}))
def test_each_shipped_pattern_is_the_builders(case_id: str) -> None:
    """The long patterns are built, not typed: a new case is written with the builder."""
    case, inner = BY_ID[case_id], _built(case_id)
    assert case.expected == boxed_patterns.boxed(inner)
    assert case.metadata["must_not_match"] == [boxed_patterns.other_box(inner)]


def test_the_builder_groups_thousands_as_a_boxed_answer_writes_them() -> None:
    """No shipped answer reaches 1000, so `integer`'s grouping (and `_thousands`) ran on no
    case: a case built for 1234567 passes it grouped by `,`, `{,}` or `\\,`, and not grouped
    wrong. Grouping is all or nothing with one separator: `1234,567`, `1,234567` and
    `1,234{,}567` passed as 1234567 while each separator was optional on its own."""
    inner = boxed_patterns.numeric(boxed_patterns.integer(1234567))
    metadata = {"must_not_match": [boxed_patterns.other_box(inner)]}
    expected = boxed_patterns.boxed(inner)
    case = Case("big", "big", "math", "easy", "p", "regex_match", expected, metadata=metadata)

    def passes(text: str) -> bool:
        return grade(case, Answer(content=f"So the answer is {text}")).passed

    assert _thousands("1234567") == ["1,234,567", "1{,}234{,}567"]
    for number in [*numbers("1234567"), r"1\,234\,567"]:
        assert passes(rf"\boxed{{{number}}}"), number
    for number in ("1,23,4567", "12,345,67", "1.234.567", "1,234,568"):
        assert not passes(rf"\boxed{{{number}}}"), number
    for number in ("1234567", "1,234,567", "1{,}234{,}567", r"1\,234\,567", "1,234,567.00"):
        assert passes(rf"\boxed{{{number}}}"), number
    grouped_part_way = ("1234,567", "1,234567", "1{,}234567", r"1234\,567", "1234567,")
    mixed = ("1,234{,}567", r"1{,}234\,567", r"1\,234,567")
    for number in (*grouped_part_way, *mixed):
        assert not passes(rf"\boxed{{{number}}}"), number


def _boxes(n: int) -> Callable[[str], bool]:
    """Whether `\\boxed{text}` passes a case built for `n` (`boxed_patterns.integer`)."""
    inner = boxed_patterns.numeric(boxed_patterns.integer(n))
    metadata = {"must_not_match": [boxed_patterns.other_box(inner)]}
    expected = boxed_patterns.boxed(inner)
    case = Case("neg", "neg", "math", "easy", "p", "regex_match", expected, metadata=metadata)
    return lambda text: grade(case, Answer(content=f"So the answer is \\boxed{{{text}}}")).passed


def test_the_builder_groups_a_negative_number_after_its_sign() -> None:
    """`integer` tested `n < 1000` on the signed value, so -1234 was built ungrouped and
    `\\boxed{-1,234}` failed; the magnitude is grouped now, the sign in front. Six digits
    tell it from grouping the signed text (its seven characters cut 1 + 3 + 3, the sign alone
    in front: `-,123,456`), which four and five digits group alike."""
    passes = _boxes(-1234)
    for number in ("-1234", "-1,234", "-1{,}234", r"-1\,234", "-1,234.00"):
        assert passes(number), number
    for number in ("1234", "1,234", "-1,2345", "-12,34", "-1,235", "--1,234"):
        assert not passes(number), number
    passes = _boxes(-123456)
    for number in ("-123456", "-123,456", "-123{,}456", r"-123\,456", "-123,456.0"):
        assert passes(number), number
    for number in ("123,456", "-,123,456", "-12,3456", "-1,23,456", "-123,457"):
        assert not passes(number), number
