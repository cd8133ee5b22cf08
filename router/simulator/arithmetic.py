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
"""

from __future__ import annotations

import ast
import operator
import re
from typing import Any

_EXPR = re.compile(r"[\d.(][\d.\s+\-*/^×()]*[\d)]")
_SUM = re.compile(r"\d+\s*[-+*/^×]\s*\d+")  # two numbers and an operator between them
_MEMBER = re.compile(r'"\s*:\s*\Z')  # what leads into a JSON member's value
_MEMBER_LEAD = 32  # characters before a match read for the rest of its number and a lead
# a unified diff's hunk header, indented as opencommit's example diff indents it
_HUNK = re.compile(r"^[ \t]*@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@", re.M)


def sum_written(text: str) -> bool:
    """Whether `text` writes two numbers with an operator between them, not as a JSON
    member's value (`_templated`) nor in a diff's hunk header (`_HUNK`)."""
    text = _unhunked(text)
    return any(not _templated(text, found.start()) for found in _SUM.finditer(text))


def _unhunked(text: str) -> str:
    """`text` with each diff hunk header's numbers blanked out, the rest where it was."""
    return _HUNK.sub(lambda found: " " * len(found.group(0)), text)


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
    (`_templated`) and a diff's hunk headers (`_HUNK`), and its value; None for none."""
    text = _unhunked(text)
    for match in _EXPR.finditer(text):
        expr = match.group(0)
        if not re.search(r"[-+*/^×]", expr) or _templated(text, match.start()):
            continue
        try:
            value = _eval_node(
                ast.parse(expr.replace("^", "**").replace("×", "*"), mode="eval").body
            )
        except (SyntaxError, ValueError, ZeroDivisionError, OverflowError):
            continue
        return expr, (str(int(value)) if float(value).is_integer() else f"{value:.6g}")
    return None
