"""Arithmetic in an ask: the first expression it holds, evaluated safely (`evaluate_first`),
and the `\\boxed{}` answer a math prompt gets (`math_answer`). What the answer's text
(`answer`) and an arithmetic tool's argument (`tool_calls`) both read.

A range a JSON template gives a member (`"confidence": 0.0-1.0`, cipher 0.3.0's memory
decision) is no sum: read as one, the prompt got "Computing 0.0-1.0 step by step gives -1"
(found in a live review). Numbers written as a member's value (`_templated`) are passed over,
by the expression read (`evaluate_first`) and by the test for one (`sum_written`).

Nor is a unified diff's hunk header (`@@ -0,0 +1,4 @@`, `_HUNK`): every new file's diff
read "0 +1" as a sum, and opencommit and aicommits committed "Computing 0 +1 step by step
gives 1" as the commit message (found in a live review). Both readers pass over the
headers (`_unhunked`).

Nor is a number range written close (`45-67`, `0-18`, `1-10`, `_JOINED`): a citation's
pages ("Journal of Imaginary Biomaterials 12:45-67"), a chunk's lines ("lines 0-18") and a
score's scale ("an integer score from 1-10") are no subtraction, and
paper-qa's citations, summaries and answers all read "Computing 45-67 step by step gives
-22" (found in a live review). Such a range is passed over (`_unranged`) unless the ask asks
for a computation: a word that does (`_COMPUTE`, "compute", "calculate"), a lead into it
("What is 45-67?", `_ASKED_BEFORE`), or an operator or `=` beside it (`3-5 + 2`, `9-4 =`)
making it part of a longer one. Spaced (`45 - 67`) or another operator, it is a sum as
before.

Nor are three or more numbers so joined (`_JOINED` reads a chain): a date (`2027-07-04`,
`04-07-2027`) summarized from a column of query results got "Working through the problem
step by step gives the result $\\boxed{42}$" (its `07` is no Python literal), a phone
number (`555-123-4567`) "Computing 555-123-4567 step by step gives -4135". Nor is a time
of day joined to another or to its UTC offset (`10:30 - 11:45`, `10:30:00+02:00`,
`_CLOCKS`), spaced or not. A date a list item holds
(`- 2020-01-01`, `* 2020-01-01`) is no more asked than one on its own line: a list's mark
is no operator (`_ITEM`). The same asks make each a sum.

Every read here takes time in proportion to the text, as every request is read so: what
is read around a match is read a bounded distance from it (`_ITEM_LEAD`, `_ASKED_LEAD`,
`_MEMBER_LEAD`), and no pattern is tried again from each character of a run it failed on
(`_SUM`'s first number starts a run of digits, `_EXPR` reads a run no expression ends in
at once). Before, a line of 166,666 `12:45-` took 8 s to read (each pair of times copied
its line up to itself), 100,000 `1`s 136 s and 100,000 `(` 68 s (found in a review).
"""

from __future__ import annotations

import ast
import operator
import re
from typing import Any

# an expression, or (`rest`) the rest of a run of its characters that none ends in, read
# at once: tried again from each of its `(` or `.`, such a run took quadratic time
_EXPR = re.compile(r"[\d.(][\d.\s+\-*/^×()]*[\d)]|(?P<rest>[.(][.\s+\-*/^×(]*)")
# two numbers and an operator between them; the first from the start of its digits, as
# tried from each of them a long run of digits took quadratic time
_SUM = re.compile(r"(?<!\d)\d+\s*[-+*/^×]\s*\d+")
_MEMBER = re.compile(r'"\s*:\s*\Z')  # what leads into a JSON member's value
_MEMBER_LEAD = 32  # characters before a match read for the rest of its number and a lead
# a unified diff's hunk header, indented as opencommit's example diff indents it
_HUNK = re.compile(r"^[ \t]*@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@", re.M)
# two or more numbers joined by hyphens written close: a range, a span of pages or lines,
# a date (`2020-01-01`), a phone number (`555-123-4567`)
_JOINED = re.compile(r"(?<!\d)(?<!\d[.-])\d+(?:\.\d+)?(?:-\d+(?:\.\d+)?)+(?!\.?\d|-\d)")
_CLOCK = r"\d{1,2}:\d\d(?::\d\d(?:\.\d+)?)?"  # a time of day: `10:30`, `10:30:00.5`
# a time of day joined to another (`10:30 - 11:45`) or to its UTC offset (`+02:00`)
_CLOCKS = re.compile(rf"(?<![\d:.]){_CLOCK}(?:\s*-\s*{_CLOCK}|[+-]\d\d:?\d\d)(?![\d:])")
# what a list item's line starts with: a mark (`-`, `*`, `+`) or a number (`1.`, `2)`)
_ITEM = re.compile(r"[ \t]*(?:[-*+\u2022]|\d+[.)])[ \t]+")
_ITEM_LEAD = 64  # characters before a match looked through for its line's start
# an ask for a computation anywhere in the text, where every range is read as a sum
# (the verbs alone: "Computing 45-67 step by step", quoted back, or "plus or minus" asks none)
_COMPUTE = re.compile(r"\b(?:compute|calculate|subtract)\b", re.I)
# what leads into a range that makes it a sum: an ask ("What is", "evaluate"), or an
# operator after a number or another operator's side (`2 * 3-5`, `= 3-5`)
_ASKED_BEFORE = re.compile(
    r"(?:\bwhat(?:'s|\s+is)|\bevaluate|\bsimplify|\bsolve|[\d)]\s*[-+*/^×]|[+*/^×=])[\s(-]*\Z",
    re.I,
)
# `9-4 =`, `3-5 + 2`, on its line: the next line's list mark (`- 2020-01-02`) is none
_ASKED_AFTER = re.compile(r"[ \t]*(?:=|[-+*/^×]\s*[\d(])")
_ASKED_LEAD = 24  # characters before a range read for what leads into it


def sum_written(text: str) -> bool:
    """Whether `text` writes two numbers with an operator between them, not as a JSON
    member's value (`_templated`), in a diff's hunk header (`_HUNK`) nor as a range no
    computation is asked of (`_unranged`)."""
    text = _unranged(_unhunked(text))
    return any(not _templated(text, found.start()) for found in _SUM.finditer(text))


def _unhunked(text: str) -> str:
    """`text` with each diff hunk header's numbers blanked out, the rest where it was."""
    return _HUNK.sub(lambda found: " " * len(found.group(0)), text)


def _unranged(text: str) -> str:
    """`text` with each pair of times (`_CLOCKS`) and each range or date written close
    (`_JOINED`) blanked out, the rest where it was; unless the text asks for a computation
    (`_COMPUTE`), and but for one that an ask or an operator leads into or an operator or
    `=` follows (`_ASKED_BEFORE`, `_ASKED_AFTER`): a list's mark leads into none (`_ITEM`)."""
    if not ("-" in text or "+" in text) or _COMPUTE.search(text):
        return text
    return _blanked(_JOINED, _blanked(_CLOCKS, text))


def _blanked(pattern: re.Pattern[str], text: str) -> str:
    """`text` with each match of `pattern` no computation is asked of blanked out."""

    def blank(found: re.Match[str]) -> str:
        start = found.start()
        lead = text[max(0, start - _ASKED_LEAD) : start]
        listed = _listed(text, start)
        if (not listed and _ASKED_BEFORE.search(lead)) or _ASKED_AFTER.match(text, found.end()):
            return found.group(0)
        return " " * len(found.group(0))

    return pattern.sub(blank, text)


def _listed(text: str, start: int) -> bool:
    """Whether what `start` begins is a list item's (`_ITEM`): its line starts with a list's
    mark, within `_ITEM_LEAD` characters of it. Its line is looked for no further back: on a
    long line each match copied the line up to itself, which took quadratic time."""
    bound = max(0, start - _ITEM_LEAD)
    newline = text.rfind("\n", bound, start)
    if newline < 0 and bound > 0:
        return False  # the line starts further back than a list's mark is written
    return _ITEM.fullmatch(text, newline + 1, start) is not None


def _templated(text: str, start: int) -> bool:
    """Whether the number that `start` is in (or starts) is written as a JSON member's
    value (`"confidence": 0.0-1.0`): a template's range, no sum."""
    lead = text[max(0, start - _MEMBER_LEAD) : start].rstrip("0123456789.-")
    return _MEMBER.search(lead) is not None


def math_answer(user: str) -> str:
    value = evaluate_first(user)
    if value is None:
        return "Working through the problem step by step gives the result $\\boxed{42}$."
    expr, result = value
    return f"Computing {expr.strip()} step by step gives {result}.\n\n" + boxed(result)


def boxed(answer: str) -> str:
    return f"The answer is $\\boxed{{{answer}}}$."


_OPS: dict[type, Any] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
    ast.USub: operator.neg,
}


def _eval_node(node: ast.AST) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        left, right = _eval_node(node.left), _eval_node(node.right)
        if isinstance(node.op, ast.Pow) and abs(right) > 64:
            raise ValueError("exponent too large")
        return float(_OPS[type(node.op)](left, right))
    if isinstance(node, ast.UnaryOp) and type(node.op) in _OPS:
        return float(_OPS[type(node.op)](_eval_node(node.operand)))
    raise ValueError("not arithmetic")


def evaluate_first(text: str) -> tuple[str, str] | None:
    """The first arithmetic expression `text` writes, outside a template's member
    (`_templated`), a diff's hunk headers (`_HUNK`) and a range no computation is asked of
    (`_unranged`), and its value; None for none."""
    text = _unranged(_unhunked(text))
    for match in _EXPR.finditer(text):
        expr = match.group(0)
        if (
            match.group("rest") is not None
            or not re.search(r"[-+*/^×]", expr)
            or _templated(text, match.start())
        ):
            continue
        try:
            value = _eval_node(
                ast.parse(expr.replace("^", "**").replace("×", "*"), mode="eval").body
            )
        except (SyntaxError, ValueError, ZeroDivisionError, OverflowError, RecursionError):
            continue  # too deep for the parser or the walk (`1 - ` 20,000 times): no sum read
        return expr, (str(int(value)) if float(value).is_integer() else f"{value:.6g}")
    return None
