"""An answer's fields listed one a line (`- name: what it holds`), read as a JSON schema.

Taskmaster's expand (`task-master-ai` 0.43.1, `--openai-compatible`, `json_object` and no
schema) asks "Your response MUST be a JSON object with a "subtasks" property containing an
array of subtask objects. Each subtask must include ALL of the following fields:" and lists
them: "- id: MUST be sequential integers starting EXACTLY from 1", "- dependencies: An
array of task IDs this subtask depends on (can be empty [])", "- status: Must be "pending"
for new subtasks". Answered `{"answer": "..."}`, the AI SDK's schema check failed it in demo
mode (found in a live review). Here a run of such lines (`_LINE`, two at least) is an
object's schema (`described.Described`, as a pseudo-JSON block is): each field's type read
from the words of its line (`_kind`), every field required. Whose fields they are is the
caller's to read (`prompted._described`).

Bounded: texts longer than `shown_forms.LONGEST` are not read, a line is matched anchored
with no nested repeats, and a list's first `_MOST` fields are read (a longer list is one
object still, not one of `_MOST` and another of the rest).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from router.simulator.described import Described
from router.simulator.shown_forms import LONGEST

_MOST = 64  # fields one list may hold
_LINE = re.compile(r"[ \t]*[-*][ \t]+`?([A-Za-z_]\w{0,40})`?[ \t]*:[ \t]*([^\n]{0,400})")
_ARRAY = re.compile(r"\b(?:array|list)\b", re.I)
_WHOLE = re.compile(r"\b(?:ids?|integers?|ints?)\b", re.I)  # an array's items: whole numbers
_INTEGER = re.compile(r"\b(?:integers?|ints?)\b", re.I)
_NUMBER = re.compile(r"\bnumbers?\b", re.I)
_BOOLEAN = re.compile(r"\b(?:boolean|true or false)\b", re.I)
_KEPT = re.compile(r'\bmust\s+be\s+"([\w.-]{1,32})"', re.I)  # a value the answer keeps


def listed_fields(text: str) -> Iterator[Described]:
    """The runs of two or more `- name: ...` lines in `text`, each as an object's schema
    (its first `_MOST` fields), with where the run starts and ends."""
    if len(text) > LONGEST or ":" not in text:
        return
    properties: dict[str, Any] = {}
    start = end = 0
    at = 0
    for line in text.splitlines(keepends=True):
        found = _LINE.fullmatch(line.rstrip("\r\n"))
        if found is not None:
            if not properties:
                start = at
            if len(properties) < _MOST:  # past it the run goes on, its fields not read
                properties.setdefault(found.group(1), _kind(found.group(2)))
            end = at + len(line)
        elif properties:
            if len(properties) > 1:
                yield _object(properties, start, end)
            properties = {}
        at += len(line)
    if len(properties) > 1:
        yield _object(properties, start, end)


def _object(properties: dict[str, Any], start: int, end: int) -> Described:
    schema = {"type": "object", "properties": properties, "required": list(properties)}
    return Described(schema, start, end)


def _kind(words: str) -> dict[str, Any]:
    """A field's schema by its line's words: an array (of integers where it names IDs or
    integers, of numbers or strings), an integer, a number, a boolean, a value it says the
    field must be (`"pending"`), else a string."""
    if _ARRAY.search(words):
        whole = _WHOLE.search(words)
        item = "integer" if whole else "number" if _NUMBER.search(words) else "string"
        return {"type": "array", "items": {"type": item}}
    if _INTEGER.search(words):
        return {"type": "integer"}
    if _NUMBER.search(words):
        return {"type": "number"}
    if _BOOLEAN.search(words):
        return {"type": "boolean"}
    kept = _KEPT.search(words)
    if kept is not None:
        return {"type": "string", "enum": [kept.group(1)]}
    return {"type": "string"}
