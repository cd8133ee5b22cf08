"""The checks that a request is decided by an app's fixed reading (`classifier.fixed`): one
place for the assertions the apps' tests (eval graders, code-answer prompts, memory and
report jobs) made again each, so that every app's test checks the same things in the same
order, and a failure names the body it read.

This module is no test file: pytest does not rewrite its asserts, so each one says what it
saw in its message.
"""

from __future__ import annotations

from typing import Any

from classifier import Intent, classify, explain
from classifier.fixed import Fixed
from classifier.request import view
from classifier.rules import rule_intent


def named(body: dict[str, Any]) -> str:
    """A short name of `body` for a failure message: its messages' count and the opening of
    its last one's text (a body's whole text would bury the message)."""
    messages = body.get("messages") or body.get("input") or []
    if not isinstance(messages, list) or not messages:
        return f"body {str(body)[:80]!r}"
    content = messages[-1].get("content") if isinstance(messages[-1], dict) else messages[-1]
    if isinstance(content, list) and content and isinstance(content[0], dict):
        content = content[0].get("text", content[0])
    return f"body of {len(messages)} messages, its last {str(content)[:60]!r}"


def assert_fixed(body: dict[str, Any], reading: Fixed) -> None:
    """`body`'s fixed reading is `reading`."""
    fixed = view(body).fixed
    assert fixed == reading, f"{named(body)}: fixed reading {fixed!r}, not {reading!r}"


def assert_judged_by(body: dict[str, Any], reading: Fixed, rule: str, label: str) -> None:
    """`body` is decided as `assert_decided_by` checks (read as `reading`, `rule_intent`
    deciding it by `rule`, classified `label` by a rule), and `explain` names `rule`: an
    eval tool's grader's request (`GRADER_READING`)."""
    assert_decided_by(body, reading, rule, label)
    why = explain(body)["rule"]
    assert why == rule, f"{named(body)}: explained by {why!r}, not {rule!r}"


def assert_decided_by(
    body: dict[str, Any],
    reading: Fixed,
    rule: str,
    label: str,
    confidence: float | None = None,
) -> Intent:
    """`body` is read as `reading`, `rule_intent` decides it by `rule`, and it is classified
    `label` by a rule (at `confidence`, where given); its intent, for a caller's further
    checks."""
    seen = view(body)
    assert seen.fixed == reading, f"{named(body)}: fixed reading {seen.fixed!r}, not {reading!r}"
    decided = rule_intent(seen)
    assert decided is not None and decided[1] == rule, (
        f"{named(body)}: rule_intent decided {decided!r}, not by {rule!r}"
    )
    intent = classify(body)
    got: tuple[object, ...] = (intent.label, intent.source)
    want: tuple[object, ...] = (label, "rule")
    if confidence is not None:
        got, want = (*got, intent.confidence), (*want, confidence)
    assert got == want, f"{named(body)}: classified {got}, not {want}"
    return intent


def assert_explained_by(body: dict[str, Any], rule: str, label: str) -> None:
    """`explain` shows `body` as `label`, decided by a rule, `rule`."""
    why = explain(body)
    got = (why["intent"], why["source"], why["rule"])
    want = (label, "rule", rule)
    assert got == want, f"{named(body)}: explained as {got}, not {want}"


def assert_read_by_model(body: dict[str, Any], reading: Fixed) -> None:
    """`body` is not read as `reading`: no app fixes it, the model reads it."""
    fixed = view(body).fixed
    assert fixed != reading, f"{named(body)}: read as {reading!r}"
    source = classify(body).source
    assert source == "model", f"{named(body)}: classified by {source!r}, not by the model"
