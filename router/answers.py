"""Final answers of math and reasoning replies, in a form two replies can be compared in.

Models write one answer many ways: `\\boxed{\\dfrac{3}{4}}`, `Final answer: 0.75`,
`The answer is **75%**`, `\\boxed{18 \\text{ cm}}`, `\\boxed{1{,}000}`. `final_answer` finds
a reply's answer (the last closed box, else the last "answer is"/"answer:" line, else for
math the last number) with the LaTeX and markdown around it taken off, and `same_answer`
says whether two such answers are one (a percentage agrees with its number either way).

Everything here is linear in the text: the text is a model's output, and a pathological one
("\\boxed{" thousands of times) took quadratic work that froze the router (found in review).
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterator
from decimal import Decimal, localcontext
from fractions import Fraction

MAX_NUMBER_CHARS = 80
"""Longer digit runs compare as text: Fraction() of 5,000 digits raises, and is slow."""

ANSWER_LINE_CHARS = 1000
"""How much of the text after "answer is" can hold the answer."""

_BRACES = re.compile(r"\\boxed\s*\{|[{}]")
_ANSWER = re.compile(r"(?:final answer|answer)\**\s*(?:is\b|:)", re.I)
_INT = r"(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)"  # 1,234,567 or 1234567, not 12,34
_DEC = rf"(?:{_INT}(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d{{1,3}})?"
# sign, whole part of a mixed number (3 1/2), number, denominator, percent
_VALUE = re.compile(rf"(-\s*)?(?:(\d+)\s+(?=\d+\s*/))?({_DEC})(?:\s*/\s*({_DEC}))?(\s*%)?")
# After a number, what makes it part of something longer: an operator or range ("2–5",
# "10:30", "5 ≤ x"), another number, a LaTeX command ("5 \sqrt{2}", "3 \cdot 4"), a list
# ("2, 3"), a letter or bracket right against it ("2x", "3(4)"), i and e ("3 i"), or a
# scale ("1.5 million"). Words
# after a space ("18 cm", "7 apples") are units, unless another number follows in the same
# sentence ("12 and 15", "8 hours and 20 minutes").
_CONTINUES = re.compile(
    r"\s*[-+*/^×÷=<>·\d\\:–—≤≥≠±]|\s*[,;]\s*-?\d|[A-Za-z(\[{]|\s+[ie](?![A-Za-z])"
    r"|\s+(?:hundred|thousand|million|billion|trillion)\b",
    re.I,
)
_ABBREVIATIONS = ("Dr", "Mr", "Mrs", "Ms", "St", "Jr", "Sr", "vs", "e.g", "i.e")
# A text answer ends with its sentence ("Alice. She lied twice."), not at "Dr. Smith".
_SENTENCE_END = re.compile(
    "".join(rf"(?<!\b{re.escape(a)})" for a in _ABBREVIATIONS) + r"[.!?](?:\s|$)"
)


def last_boxed(text: str) -> str | None:
    """What the last `\\boxed{...}` that closes holds (braces balanced), in one pass.

    One scan with a stack of open braces: each `}` closes the newest, so a box's content
    ends where its own brace closes. A box that never closes holds no answer.
    """
    opened: list[tuple[bool, int]] = []  # (is a box, where its content starts)
    best: tuple[int, int] | None = None
    for match in _BRACES.finditer(text):
        token = match.group()
        if token != "}":
            opened.append((token != "{", match.end()))
        elif opened:
            is_box, start = opened.pop()
            if is_box and (best is None or start > best[0]):
                best = (start, match.start())
    return text[best[0] : best[1]] if best else None


_PLAIN = re.compile(r"-?[\d.]+")  # a numerator or denominator that is a number


def _frac(match: re.Match[str]) -> str:
    top, bottom = match.group(1).strip(), match.group(2).strip()
    if _PLAIN.fullmatch(top) and _PLAIN.fullmatch(bottom):
        return f"{top}/{bottom}"
    return f"({top})/({bottom})"


def clean(text: str) -> str:
    """LaTeX and markdown taken off: `\\frac{a}{b}` → a/b, `\\text{cm}` → cm, `\\$`, `\\%`,
    `^\\circ`, `{,}`, `$`, `**` and the like; the words and numbers stay."""
    text = text.replace("\u2212", "-").replace("{,}", "").replace("\\%", "%")
    text = re.sub(r"\\[!,;:]|\\\$|\\left\b|\\right\b|\\displaystyle\b", "", text)
    text = re.sub(r"\^\s*\{?\s*\\circ\s*\}?|°|\\degree\b", "", text)
    text = re.sub(r"\\[()\[\]]|\\ ", " ", text)
    text = re.sub(r"\\(?:text|textbf|mathrm|mathbf|operatorname)\s*\{([^{}]*)\}", r" \1 ", text)
    text = re.sub(r"\\sqrt\s*(\w)", r"\\sqrt{\1}", text)
    text = re.sub(r"\\[dt]?frac\s*(\d)\s*(\d)", r"\1/\2", text)  # \dfrac12
    text = re.sub(r"(\d)\s*\\[dt]?frac", r"\1 \\frac", text)  # 3\frac{1}{2}: a mixed number
    text = re.sub(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}", _frac, text)
    return re.sub(r"\$|\*\*|__|`", " ", text)


def _as_number(match: re.Match[str]) -> str | None:
    """An exact canonical form: 0.5, 1/2 and .5 are one answer; 1234567890123 and
    1234567890124 are not (a float rounded to some digits said they were). A percentage
    keeps its mark (`50%`), `same_answer` decides what it equals."""
    if len(match.group(0)) > MAX_NUMBER_CHARS:
        return None
    value = Fraction(match.group(3).replace(",", ""))
    if match.group(4):
        denominator = Fraction(match.group(4).replace(",", ""))
        if denominator == 0:
            return None
        value /= denominator
    if match.group(2):
        value += int(match.group(2))
    if match.group(1):
        value = -value
    return _decimal(value) + ("%" if match.group(5) else "")


def _decimal(value: Fraction) -> str:
    """7.5 rather than 15/2 when the value has a finite decimal form; n/d otherwise."""
    rest = value.denominator
    for prime in (2, 5):
        while rest % prime == 0:
            rest //= prime
    if rest != 1:
        return f"{value.numerator}/{value.denominator}"
    with localcontext() as exact:  # enough digits that the division cannot round
        exact.prec = len(str(value.numerator)) + len(str(value.denominator)) * 4
        return format((Decimal(value.numerator) / value.denominator).normalize(), "f")


def normalise(value: str) -> str:
    """One answer (a box's content or what follows "answer is") in a comparable form.

    A number that starts it and ends it, or is followed by words only up to the end of its
    sentence (`18 cm`, `7 apples`, `6. I hope it is correct`), is the answer; with one `=`
    (`x = 5`, `2^10 = 1024`) what follows it is; anything else (`x = 2 or x = 3`, `12 and
    15`) compares as folded text.
    """
    text = clean(value).strip()
    found = _VALUE.match(text)
    if found and not _CONTINUES.match(text, found.end()) and not _more_numbers(text, found.end()):
        number = _as_number(found)
        if number is not None:
            return number
    if text.count("=") == 1:  # "x = 5", "2^10 = 1024"; "x = 2, y = 3" is two answers
        after = text.rsplit("=", 1)[1]
        if after.strip():
            return normalise(after)
    ended = _SENTENCE_END.search(text)
    text = text[: ended.start()] if ended else text
    text = re.sub(r"\s*([^\w\s])\s*", r"\1", re.sub(r"\s+", " ", text))  # (2, 3) is (2,3)
    text = text.strip(" .*_\"'").lower()
    choice = re.fullmatch(r"\(([a-z])\)", text)  # a multiple-choice letter: (C) is C
    return choice.group(1) if choice else text


def _more_numbers(text: str, start: int) -> bool:
    """Whether the sentence that a leading number starts holds another number."""
    ended = _SENTENCE_END.search(text, start)
    rest = text[start : ended.start() if ended else len(text)]
    return any(c.isdigit() for c in rest)


def _last(matches: Iterator[re.Match[str]]) -> re.Match[str] | None:
    """The last of the matches (a deque of one keeps no more than it needs)."""
    last = deque(matches, maxlen=1)
    return last[0] if last else None


def _answer_line(text: str) -> str | None:
    """What follows the last "answer is" / "answer:", on its line or (when that is empty,
    as after `**Answer:**`) the next one; None without such a phrase or anything after it."""
    found = _last(_ANSWER.finditer(text))
    if found is None:
        return None
    lines = text[found.end() : found.end() + ANSWER_LINE_CHARS].split("\n", 2)
    for line in lines[:2]:
        if line.strip(" \t*:"):
            return line.strip(" \t*:")
    return None


def final_answer(text: str, last_number: bool = True) -> str | None:
    """The boxed value, else an 'answer is …' line, else (with `last_number`) the last
    number in the text."""
    boxed = last_boxed(text)
    if boxed is not None:
        return normalise(boxed)
    line = _answer_line(text)
    if line is not None:
        return normalise(line)
    if not last_number:
        return None
    found = _last(_VALUE.finditer(clean(text)))
    return _as_number(found) if found else None


def _percent_forms(answer: str) -> set[str]:
    """What a percentage may equal: `50%` is 50 (a "what percent" question) and 0.5."""
    try:
        number = Fraction(answer[:-1]) if answer.endswith("%") else None
    except ValueError:  # a text answer that ends in %
        number = None
    if number is None:
        return {answer}
    return {answer, _decimal(number), _decimal(number / 100)}


def same_answer(a: str, b: str) -> bool:
    """Equal, or a percentage and its number (50% is 50 and 0.5; 0.5 is not 50)."""
    if a == b:
        return True
    if a.endswith("%") == b.endswith("%"):
        return False
    return bool(_percent_forms(a) & _percent_forms(b))
