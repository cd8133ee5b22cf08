"""Comparing a live answer with its shadow: cheap, deterministic checks per intent.

Pure functions of the request and two answers, linear in their length (an answer over
`MAX_COMPARED_CHARS` is not compared). What each measures, and what it does not:
- math and reasoning: the final answers (found and normalised by `router.answers`) are
  equal; not the working. No final answer on either side: undecided.
- coding: the extracted code parses on both sides and defines the same top-level functions
  and classes (by name: not what their bodies do); with the request's own tests and an
  executor (the shadow gives one only when `shadow.run_request_tests` is on), whether both
  pass them. Code that defines nothing on either side, with no tests run: undecided.
- tool calls: the same tools (parallel calls in any order), each call's arguments that the
  request's schema marks `required` (in nested objects too) equal, strings exactly but for
  line ends and blank lines around them, 1.0 as 1 (`router.tool_arguments`); optional
  arguments (a free-text description) are not compared, unless a call lacks a required one.
  Not whether the arguments would do the same thing (`ls` against `ls -a`).
- prose-like intents (prose, writing, instruction): the shape only, paragraph and line
  counts, length within 2x and the words the user quoted present in both. Not content,
  language, tone, a refusal against an answer, or instructions such as "all lowercase":
  their agreement says the answers look alike, not that they say the same.
`agreed` is None when the comparison cannot decide; the report leaves those out of the
agreement rate. Details name counts and kinds, never answer text: they are stored in the ledger.
"""

from __future__ import annotations

import ast
import json
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from evals.graders import count_units, extract_code
from evals.sandbox import RunOutcome, SandboxUnavailable
from router.answers import final_answer, same_answer
from router.tool_arguments import call_parts, compared_call, tool_schemas
from router.translate.wire import content_text

Executor = Callable[[str], RunOutcome]

LENGTH_RATIO_MIN = 0.5
"""Prose answers whose lengths differ by more than 2x do not agree."""

MAX_COMPARED_CHARS = 200_000
"""An answer longer than this is not compared (undecided): every check is linear, but a
comparison runs for each sampled request and must stay cheap whatever a model sends."""

_FENCE = re.compile(r"```([^\n`]*)\n(.*?)(?:```|\Z)", re.DOTALL)
_PYTHON_TAGS = frozenset({"", "python", "py", "python3", "py3"})
_TESTS = re.compile(r"```[^\n`]*\n((?:\s*(?:assert|from|import)\b.*?))```", re.DOTALL)
# A quoted word or phrase within one line, in double quotes, curly ones, or single quotes that
# are no apostrophes ("user's", "'90s"); a straight quote after a digit is feet or inches
# (5' 10", 6' 2"), and an apostrophe between letters may stand inside ('don't panic').
_QUOTES = (
    re.compile(r'(?<![\d\'])"([^"\n]{2,40})"'),
    re.compile(r"“([^”\n]{2,40})”"),
    re.compile(
        r"(?<![^\W\d_])'(?![\d\s])((?:[^'\n]|(?<=[^\W\d_])'(?=[^\W\d_])){2,40})(?<!\s)'"
        r"(?![^\W\d_])"
    ),
)


@dataclass(frozen=True, slots=True)
class Reply:
    """One side's answer: its text and tool calls (OpenAI shape)."""

    text: str = ""
    tool_calls: Sequence[Mapping[str, Any]] = field(default_factory=tuple)


@dataclass(frozen=True, slots=True)
class Comparison:
    agreed: bool | None
    method: str
    detail: str = ""


def compare_final_answers(live: Reply, shadow: Reply, intent: str = "math") -> Comparison:
    """A math answer usually ends on its number; a reasoning answer's last number is as
    likely a count in its argument ("all 3 suspects ... so Alice"), so it needs an explicit
    final answer (boxed or an 'answer is' line) to be compared at all."""
    last_number = intent == "math"
    a, b = final_answer(live.text, last_number), final_answer(shadow.text, last_number)
    if a is None and b is None:
        return Comparison(None, "final_answer", "no final answer in either")
    if a is None or b is None:
        return Comparison(False, "final_answer", "only one side has a final answer")
    same = same_answer(a, b)
    return Comparison(same, "final_answer", "same final answer" if same else "answers differ")


def code_of(text: str) -> str:
    """The answer's Python: the first fenced block tagged python/py (or untagged) that
    parses, else the first such block, else the first block of any kind, else what evals'
    grader extracts. An answer may open with a ```bash pip install``` block or end with a
    ```python >>> usage``` one; neither is its code."""
    blocks = [(m.group(1).strip().lower(), m.group(2)) for m in _FENCE.finditer(text)]
    python = [body for tag, body in blocks if tag.split(" ", 1)[0] in _PYTHON_TAGS]
    for body in python:
        if top_level_names(body) is not None:
            return body
    if python or blocks:
        return (python or [body for _, body in blocks])[0]
    return extract_code(text)


def top_level_names(source: str) -> frozenset[str] | None:
    """Names of top-level functions and classes, or None if the code does not parse (also
    when it nests too deep for the parser: `x+x+...` raises RecursionError, `---1`
    MemoryError, and an answer must cost a verdict, not the comparison)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return frozenset(node.name for node in tree.body if isinstance(node, kinds))


def request_tests(body: Mapping[str, Any]) -> str | None:
    """Assertions the request carries (a fenced block of asserts in a user message)."""
    for message in reversed(list(body.get("messages") or [])):
        if isinstance(message, Mapping) and message.get("role") == "user":
            match = _TESTS.search(content_text(message.get("content"), "\n"))
            if match and "assert" in match.group(1):
                return match.group(1)
    return None


def compare_code(
    body: Mapping[str, Any], live: Reply, shadow: Reply, execute: Executor | None = None
) -> Comparison:
    a_src, b_src = code_of(live.text), code_of(shadow.text)
    a, b = top_level_names(a_src), top_level_names(b_src)
    if a is None or b is None:
        parses = f"live {'parses' if a is not None else 'does not parse'}, "
        parses += f"shadow {'parses' if b is not None else 'does not parse'}"
        return Comparison(False if (a is None) != (b is None) else None, "code_parse", parses)
    if a != b:
        return Comparison(
            False, "code_defs", f"defs differ: {len(a)} vs {len(b)}, {len(a & b)} shared"
        )
    # Without tests, names are all this compares: two snippets that define nothing ("Sorry"
    # and "Done" parse too) agreed on nothing at all (found in review), so no verdict.
    agreed: bool | None = True
    same_defs = f"both parse, same {len(a)} top-level defs"
    if not a:
        agreed, same_defs = None, "both parse, no top-level defs to compare"
    tests = request_tests(body)
    if tests is None:
        return Comparison(agreed, "code_defs", same_defs)
    if execute is None:  # say so: a reader must not take this for tests that passed
        return Comparison(agreed, "code_defs", same_defs + "; the request's tests not run")
    try:
        live_ok = execute(f"{a_src}\n\n{tests}\n").completed
        shadow_ok = execute(f"{b_src}\n\n{tests}\n").completed
    except (SandboxUnavailable, OSError):  # the machine's fault: still a row, and no log
        # line carrying the client's code (the exception's text can hold its stderr)
        return Comparison(None, "code_tests", same_defs + "; sandbox unavailable, tests not run")
    return Comparison(
        live_ok == shadow_ok, "code_tests", f"live tests {live_ok}, shadow {shadow_ok}"
    )


def compare_tool_calls(
    live: Reply, shadow: Reply, body: Mapping[str, Any] | None = None
) -> Comparison:
    """The same calls, as a multiset (parallel calls may come in any order), each compared
    on the arguments the request's schema for its tool marks required (`router.tool_arguments`:
    a free-text description or a repeated default is no disagreement)."""
    if not live.tool_calls and not shadow.tool_calls:
        return compare_prose({}, live, shadow)
    if not live.tool_calls or not shadow.tool_calls:
        return Comparison(False, "tool_call", "only one side called a tool")
    schemas = tool_schemas(body or {})
    live_calls = [compared_call(c, schemas) for c in live.tool_calls]
    shadow_calls = [compared_call(c, schemas) for c in shadow.tool_calls]
    a = Counter(call for call, _ in live_calls)
    b = Counter(call for call, _ in shadow_calls)
    if Counter(n for n, _ in a.elements()) != Counter(n for n, _ in b.elements()):
        calls = f"({len(live.tool_calls)} vs {len(shadow.tool_calls)} calls)"
        return Comparison(False, "tool_call", f"different tools {calls}")
    if a != b:
        differ = sum((a - b).values())
        return Comparison(
            False,
            "tool_call",
            f"same tools, different arguments ({differ} of {len(live.tool_calls)} calls)",
        )
    some_left = any(left for _, left in (*live_calls, *shadow_calls))
    detail = "same tools, same required arguments" if some_left else "same tools, same arguments"
    return Comparison(True, "tool_call", detail)


def requested_keywords(body: Mapping[str, Any]) -> list[str]:
    """Words the user quoted ("include 'latency' and 'cost'"): both answers should carry them."""
    words: list[str] = []
    for message in body.get("messages") or []:
        if isinstance(message, Mapping) and message.get("role") == "user":
            text = content_text(message.get("content"), "\n")
            words.extend(word for quotes in _QUOTES for word in quotes.findall(text))
    return words[:20]


def compare_prose(body: Mapping[str, Any], live: Reply, shadow: Reply) -> Comparison:
    """Same shape: keywords present in both, similar paragraph/line counts, length within 2x."""
    a, b = live.text, shadow.text
    if not a.strip() or not b.strip():
        return Comparison(None if not a.strip() and not b.strip() else False, "structure", "empty")
    ratio = min(len(a), len(b)) / max(len(a), len(b))
    problems = []
    if ratio < LENGTH_RATIO_MIN:
        problems.append(f"length ratio {ratio:.2f}")
    for unit in ("paragraph", "line"):
        x, y = count_units(a, unit), count_units(b, unit)
        if abs(x - y) > max(1, 0.25 * max(x, y)):
            problems.append(f"{unit}s {x} vs {y}")
    for word in requested_keywords(body):
        if (word.lower() in a.lower()) != (word.lower() in b.lower()):
            problems.append("a requested keyword in one only")
    detail = "; ".join(problems) or f"same shape, length ratio {ratio:.2f}"
    return Comparison(not problems, "structure", detail)


def compare(
    intent: str,
    body: Mapping[str, Any],
    live: Reply,
    shadow: Reply,
    execute: Executor | None = None,
) -> Comparison:
    """The deterministic comparison for an intent (tool calls win whenever either made one)."""
    longest = max(len(live.text), len(shadow.text))
    if longest > MAX_COMPARED_CHARS:
        return Comparison(None, "too_long", f"an answer of {longest} characters, not compared")
    if live.tool_calls or shadow.tool_calls or intent == "tool_calling":
        return compare_tool_calls(live, shadow, body)
    if intent in ("math", "reasoning"):
        return compare_final_answers(live, shadow, intent)
    if intent == "coding":
        return compare_code(body, live, shadow, execute)
    return compare_prose(body, live, shadow)


JUDGE_TOOL = {
    "type": "function",
    "function": {
        "name": "verdict",
        "description": "Say which answer serves the user's request better.",
        "parameters": {
            "type": "object",
            "properties": {"winner": {"type": "string", "enum": ["A", "B", "tie"]}},
            "required": ["winner"],
        },
    },
}


def _question(body: Mapping[str, Any]) -> str:
    for message in reversed(list(body.get("messages") or [])):
        if isinstance(message, Mapping) and message.get("role") == "user":
            return content_text(message.get("content"), "\n")[:20000]
    return ""


def _shown(reply: Reply) -> str:
    if reply.tool_calls:
        calls = [{"name": n, "arguments": a} for n, a in (call_parts(c) for c in reply.tool_calls)]
        return reply.text + "\nTool calls: " + json.dumps(calls)
    return reply.text


def judge_request(
    body: Mapping[str, Any], live: Reply, shadow: Reply, live_first: bool
) -> dict[str, Any]:
    """A blind pairwise question: answers labelled A and B only, in the given order.

    Nothing in it names a backend, a tier or which answer is live, so the judge cannot
    prefer a side by reputation; the caller randomises `live_first`.
    """
    first, second = (live, shadow) if live_first else (shadow, live)
    prompt = (
        "You compare two answers to the same request. Judge correctness first, then "
        "completeness and following the request's instructions. Call `verdict`.\n\n"
        f"## Request\n{_question(body)}\n\n## Answer A\n{_shown(first)}\n\n"
        f"## Answer B\n{_shown(second)}\n"
    )
    return {
        "messages": [{"role": "user", "content": prompt}],
        "tools": [JUDGE_TOOL],
        "tool_choice": {"type": "function", "function": {"name": "verdict"}},
        "temperature": 0,
        "max_tokens": 64,
        "stream": False,
    }


def judge_verdict(payload: Any, live_first: bool) -> str | None:
    """`live`, `shadow` or `tie` from the judge's reply; None when it gave no usable verdict."""
    try:
        message = payload["choices"][0]["message"]
    except (KeyError, IndexError, TypeError):
        return None
    if not isinstance(message, Mapping):  # `message: null` raised: the comparison lost its row
        return None
    calls = message.get("tool_calls")
    winner: Any = None
    for call in calls if isinstance(calls, list) else []:
        name, args = call_parts(call)
        if name == "verdict" and isinstance(args, Mapping):
            winner = args.get("winner")
    if winner is None:
        found = re.search(r"\b(A|B|tie)\b", content_text(message.get("content")))
        winner = found.group(1) if found else None
    if winner == "tie":
        return "tie"
    if winner not in ("A", "B"):
        return None
    return "live" if (winner == "A") == live_first else "shadow"
