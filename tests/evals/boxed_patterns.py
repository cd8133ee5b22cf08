"""How the shipped suites' `\\boxed{}` patterns are written (evals/suites/math, reasoning).

Each boxed case's `expected` is `boxed(inner)` and its one `must_not_match` is
`other_box(inner)`: any non-empty `\\boxed{...}` that is not the answer fails the case,
wherever it stands (a hedge). `test_evals_answer_forms` checks that every shipped pattern is
the one these functions build from its hand-worked answer, so a new case is written with
them rather than by hand.
"""

from __future__ import annotations

WRAP = r"(?:\\(?:math|text)(?:bf|rm)?\{\s*)?"  # \mathbf{540}, \text{Cal}
CURRENCY = r"(?:\\?\$\s*)?"
WORDS = r"[a-z]+(?:\s[a-z]+)*"
UNIT_WORDS = {"dollars": r"(?:dollars?|usd)", "cents": r"(?:cents?|¢)"}


def _unit(words: str, glued: str = "") -> str:
    """An optional unit after the number: `\\text{ cents}` (after `\\,` or `~`) or a word."""
    spaced = r"\s*(?:(?:\\[,;:! ]|~)\s*)?\\(?:text|mathrm)\{\s*" + words + r"\s*\}"
    return "(?:" + spaced + r"|\s+" + words + (r"|\s*" + glued if glued else "") + ")?"


THOUSANDS = ("", ",", r"\{,\}", r"\\,")  # none, `1,234`, `1{,}234`, `1\,234`


def integer(n: int) -> str:
    """`n`, `n.`-free: `.0`/`.00` allowed, thousands separated by `,`, `{,}` or `\\,`.

    Grouping is all or nothing, one separator throughout: an alternative per separator, so
    `1234,567`, `1,234567` and `1,234{,}567` (a separator optional group by group would take
    them all as 1234567) match none."""
    digits = str(n)
    if n < 1000:
        return digits + r"(?:\.0*)?"
    cut = len(digits) % 3 or 3
    groups = [digits[i : i + 3] for i in range(cut, len(digits), 3)]
    ways = "|".join(sep + sep.join(groups) for sep in THOUSANDS)
    return digits[:cut] + "(?:" + ways + r")(?:\.0*)?"


def fraction(top: int, bottom: int, decimal: str) -> str:
    """`\\frac`/`\\dfrac`/`\\tfrac`{top}{bottom}, `top/bottom` or the decimal."""
    frac = r"\\[dt]?frac\s*\{\s*" + str(top) + r"\s*\}\s*\{\s*" + str(bottom) + r"\s*\}"
    slash = str(top) + r"\s*/\s*" + str(bottom)
    return "(?:" + frac + "|" + slash + "|" + decimal.replace(".", r"\.") + r"0*)\.?"


def numeric(value: str, kind: str = "count") -> str:
    """A number in a box, dressed, with a unit word (`kind` dollars and cents take only
    theirs: the unit is the trap there) and, for dollars, a currency sign."""
    sign = CURRENCY if kind == "dollars" else ""
    glued = r"(?:¢|\\textcent)" if kind == "cents" else ""
    unit = _unit(UNIT_WORDS.get(kind, WORDS), glued)
    return r"\s*" + sign + WRAP + sign + value + unit + r"\s*(?:\}\s*)?\}"


def name(word: str) -> str:
    """A name in a box, dressed (`\\text{Cal}`), a full stop allowed."""
    return r"\s*" + WRAP + word + r"\.?\s*(?:\}\s*)?\}"


def boxed(inner: str) -> str:
    return r"\\boxed\{" + inner


def other_box(inner: str) -> str:
    """Any non-empty box that is not the answer (an empty one is the instruction quoted)."""
    return r"\\boxed\{(?!\s*\})(?!" + inner + ")"
