"""How the shipped suites' `\\boxed{}` patterns are written (evals/suites/math, reasoning).

Each boxed case's `expected` is `boxed(inner)` and its one `must_not_match` is
`other_box(inner)`: any non-empty `\\boxed{...}` that is not the answer fails the case,
wherever it stands (a hedge). `test_evals_answer_forms` checks that every shipped pattern is
the one these functions build from its hand-worked answer, so a new case is written with
them rather than by hand: build its patterns with `numeric`/`name` and `boxed`/`other_box`
and paste them into the suite (a new unit goes into `UNIT_WORDS` first).
"""

from __future__ import annotations

WRAP = r"(?:\\(?:math|text)(?:bf|rm)?\{\s*)?"  # \mathbf{540}, \text{Cal}
CURRENCY = r"(?:\\?\$\s*)?"
UNIT_WORDS = {
    "dollars": r"(?:dollars?|usd)",
    "cents": r"(?:cents?|¢)",
    "meters": r"(?:m|meters?|metres?)(?:\s(?:per|a|each)\sweek)?",
    "years": r"(?:years?|yrs?)(?:\sold)?",
    "paths": r"(?:lattice\s)?paths?",
    "integers": r"(?:integers?|numbers?)",
    "zeros": r"(?:trailing\s)?zero(?:e?s)?",
    "sheep": r"sheep",
    "times": r"(?:times|overlaps)",
}
"""The words a case's answer may carry after its number, by unit: each case takes only its
own. Any words at all (`[a-z]+(?:\\s[a-z]+)*`) passed `\\boxed{540 thousand}` for 540 and
`\\boxed{4 minus nine}` for 4 (found in review): a scale, an operator or another unit after
the number makes another answer."""


def _unit(words: str, glued: str = "") -> str:
    """An optional unit after the number: `\\text{ cents}` (after `\\,` or `~`) or a word."""
    spaced = r"\s*(?:(?:\\[,;:! ]|~)\s*)?\\(?:text|mathrm)\{\s*" + words + r"\s*\}"
    return "(?:" + spaced + r"|\s+" + words + (r"|\s*" + glued if glued else "") + ")?"


THOUSANDS = ("", ",", r"\{,\}", r"\\,")  # none, `1,234`, `1{,}234`, `1\,234`


def integer(n: int) -> str:
    """`n`, `n.`-free: `.0`/`.00` allowed, thousands separated by `,`, `{,}` or `\\,`.

    Grouping is all or nothing, one separator throughout: an alternative per separator, so
    `1234,567`, `1,234567` and `1,234{,}567` (a separator optional group by group would take
    them all as 1234567) match none. A negative number is grouped as its magnitude, the sign
    in front (`-1,234`): grouping read the signed value, so -1234 was never grouped."""
    sign, digits = "-" if n < 0 else "", str(abs(n))
    if abs(n) < 1000:
        return sign + digits + r"(?:\.0*)?"
    cut = len(digits) % 3 or 3
    groups = [digits[i : i + 3] for i in range(cut, len(digits), 3)]
    ways = "|".join(sep + sep.join(groups) for sep in THOUSANDS)
    return sign + digits[:cut] + "(?:" + ways + r")(?:\.0*)?"


def fraction(top: int, bottom: int, decimal: str) -> str:
    """`\\frac`/`\\dfrac`/`\\tfrac`{top}{bottom}, `top/bottom` or the decimal."""
    frac = r"\\[dt]?frac\s*\{\s*" + str(top) + r"\s*\}\s*\{\s*" + str(bottom) + r"\s*\}"
    slash = str(top) + r"\s*/\s*" + str(bottom)
    return "(?:" + frac + "|" + slash + "|" + decimal.replace(".", r"\.") + r"0*)\.?"


def numeric(value: str, unit: str = "") -> str:
    """A number in a box, dressed, with its unit's words (`UNIT_WORDS[unit]`; none when
    `unit` is empty) and, for dollars, a currency sign."""
    sign = CURRENCY if unit == "dollars" else ""
    glued = r"(?:¢|\\textcent)" if unit == "cents" else ""
    words = _unit(UNIT_WORDS[unit], glued) if unit else ""
    return r"\s*" + sign + WRAP + sign + value + words + r"\s*(?:\}\s*)?\}"


def name(word: str) -> str:
    """A name in a box, dressed (`\\text{Cal}`), a full stop allowed."""
    return r"\s*" + WRAP + word + r"\.?\s*(?:\}\s*)?\}"


def boxed(inner: str) -> str:
    return r"\\boxed\{" + inner


def other_box(inner: str) -> str:
    """Any non-empty box that is not the answer (an empty one is the instruction quoted)."""
    return r"\\boxed\{(?!\s*\})(?!" + inner + ")"
