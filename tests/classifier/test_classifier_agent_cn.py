"""The Continue CLI's (`cn`) requests are a coding agent's session (`rules.agent_session`).

Found in review with the real CLI (`tests/fixtures/continue-cli-1.5.47.md`): `cn -p` and
`cn --readonly` offer Read, List, Bash, Fetch, Checklist, CheckBackgroundJob, AskQuestion,
Exit and Skills, of which only Read and Bash were known for an agent's: "Why does the build
fail when I run make test?" was reasoning 0.92, "write unit tests for build_parser"
writing, both to the cloud.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from classifier import classify, explain
from classifier.harness_tools import HARNESS_TOOLS
from classifier.request import view

FIXTURES = Path(__file__).parents[1] / "fixtures" / "continue-cli-1.5.47"
READONLY = json.loads((FIXTURES / "readonly-first-turn.json").read_text())
AGENT = json.loads((FIXTURES / "agent-second-ask.json").read_text())
# `cn`'s tools named by a plain word, which any app may name its own so: not its harness
PLAIN = {"List", "Fetch", "Search", "Diff", "Status", "Exit", "Checklist", "Skills"}


def asking(body: dict[str, Any], ask: str) -> dict[str, Any]:
    """`body` with its latest user message `ask`."""
    messages = [dict(m) for m in body["messages"]]
    latest = max(i for i, m in enumerate(messages) if m["role"] == "user")
    messages[latest]["content"] = ask
    return {**body, "messages": messages}


def test_the_readonly_turn_as_sent_is_coding() -> None:
    intent, shown = classify(READONLY), explain(READONLY)
    assert (intent.label, intent.source) == ("coding", "rule"), shown
    assert shown["rule"].startswith("agent_session: an agent's built-in tools offered")
    assert shown["model_intent"] == "reasoning"  # what sent it to the cloud


@pytest.mark.parametrize("body", [READONLY, AGENT], ids=["readonly", "agent"])
@pytest.mark.parametrize(
    "ask",
    [
        "write unit tests for build_parser",
        "why does main() return 0 even when the upload fails?",
        "explain what sync_dir does",
    ],
)
def test_a_short_coding_ask_in_cn_is_coding(body: dict[str, Any], ask: str) -> None:
    """By the rule, or by the model where the session's first ask, coding, tips it; above
    0.5 either way: the model's reading of coding below even odds ("write unit tests for
    build_parser" read 0.44 since complement NB's term, 2026-12-06) is the rule's to decide."""
    intent = classify(asking(body, ask))
    assert intent.label == "coding" and intent.confidence > 0.5
    assert view(asking(body, ask)).agent_tools


@pytest.mark.parametrize(
    ("ask", "label"),
    [
        ("write a haiku about autumn leaves", "prose"),
        ("what is the integral of x^2 sin x?", "math"),
    ],
)
def test_an_ask_that_clearly_is_not_coding_stays_what_it_is(ask: str, label: str) -> None:
    body = asking(READONLY, ask)
    assert (classify(body).label, classify(body).source) == (label, "model")
    assert view(body).agent_tools  # a session of an agent's all the same


def test_its_own_names_are_its_harness_and_its_plain_words_are_not() -> None:
    """Every mode's tools (`cn`'s src/tools: Subagent, ReportFailure and UploadArtifact are
    offered in other modes or with a hub agent)."""
    offered = {t["function"]["name"] for body in (READONLY, AGENT) for t in body["tools"]}
    own = offered | {"MultiEdit", "Subagent", "ReportFailure", "UploadArtifact"}
    assert own - PLAIN <= HARNESS_TOOLS
    assert not PLAIN & HARNESS_TOOLS
    # offered alone, as any app's, the plain words make no agent's session
    plain = [{"type": "function", "function": {"name": name}} for name in sorted(PLAIN)]
    assert not view({**READONLY, "tools": plain}).agent_tools
