"""A rules-only stand-in for the trained classifier, behind the same `classify()` interface."""

from __future__ import annotations

import re
from typing import Any

from classifier.intent import Intent

_CODE = re.compile(r"```|\bdef |\bclass |\bfunction\b|\bpython\b|\bcode\b|\bbug\b|\bsql\b", re.I)
_MATH = re.compile(r"\\boxed|\bsolve\b|\bcompute\b|\bcalculate\b|\d+\s*[-+*/^]\s*\d+", re.I)


def classify(body: dict[str, Any]) -> Intent:
    if body.get("tools"):
        return Intent("tool_calling", 0.9, "rule")
    text = ""
    for message in reversed(body.get("messages") or []):
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            text = content if isinstance(content, str) else str(content)
            break
    if _CODE.search(text):
        return Intent("coding", 0.7, "rule")
    if _MATH.search(text):
        return Intent("math", 0.7, "rule")
    return Intent("writing", 0.3, "rule")
