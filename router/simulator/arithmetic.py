"""Arithmetic in an ask: the first expression it holds, evaluated safely (`evaluate_first`),
and the `\\boxed{}` answer a math prompt gets (`math_answer`). What the answer's text
(`answer`) and an arithmetic tool's argument (`tool_calls`) both read.
"""

from __future__ import annotations

import ast
import operator
import re
from typing import Any

_EXPR = re.compile(r"[\d.(][\d.\s+\-*/^×()]*[\d)]")


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
    for match in _EXPR.finditer(text):
        expr = match.group(0)
        if not re.search(r"[-+*/^×]", expr):
            continue
        try:
            value = _eval_node(
                ast.parse(expr.replace("^", "**").replace("×", "*"), mode="eval").body
            )
        except (SyntaxError, ValueError, ZeroDivisionError, OverflowError):
            continue
        return expr, (str(int(value)) if float(value).is_integer() else f"{value:.6g}")
    return None
