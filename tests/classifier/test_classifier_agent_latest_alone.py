"""In a coding agent's session, an ask that alone is clearly other work keeps the model's
reading, whatever the first ask weighted in reads (`rules.session_intent`, its reader of the
latest ask alone).

Found in a live review of Aider 0.86.2 (`tests/fixtures/aider-chat-0.86.2.md`): after a
session's first ask fixed a bug in calc.py, "Write a haiku about autumn leaves." was prose
0.923, other work 0.934 with the first ask weighted in, and went coding to the local
backend; the same words as a session's first ask were prose 0.998. Asks that are the
agent's work stay coding.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from classifier import classify, decision, explain, rules
from classifier.intent import INTENTS
from classifier.request import RequestView, view
from tests.agent_shapes import aider_body, opencode_body
from tests.recorded import body as load

FIXTURES = Path(__file__).parents[1] / "fixtures" / "aider-chat-0.86.2"
HAIKU = "Write a haiku about autumn leaves."
MATH = "What is 17 * 23? Explain your steps."
FIX = "Fix the bug in average in calc.py: it adds 1 to the mean."


def recorded(name: str, ask: str | None = None) -> dict[str, Any]:
    """The request Aider sent (`name` in the fixtures), its latest ask replaced by `ask`
    (Aider's reminder kept after it) when given."""
    body = load(FIXTURES / name)
    if ask is not None:
        last = body["messages"][-1]
        asked, _, reminder = last["content"].partition("\n\n")
        assert asked in (HAIKU, MATH), asked
        body["messages"][-1] = {**last, "content": f"{ask}\n\n{reminder}"}
    return body


@pytest.mark.parametrize("name", ["haiku-after-fix.json", "haiku-after-fix-realistic.json"])
def test_a_haiku_after_a_code_fix_in_aider_is_prose(name: str) -> None:
    """The recorded second turn: the model's reading of the request stands (prose 0.923),
    no rule, as the same words did as the session's first ask."""
    body = recorded(name)
    assert view(body).first == FIX and view(body).latest == HAIKU
    intent = classify(body)
    assert (intent.label, intent.source) == ("prose", "model")
    shown = explain(body)
    assert shown["rule"] is None and shown["intent"] == "prose"
    assert shown["top_intents"][0]["probability"] < rules.AGENT_FLOOR  # with the first ask
    first_turn = classify(aider_body(HAIKU))
    assert (first_turn.label, first_turn.source) == ("prose", "model")


@pytest.mark.parametrize(
    "ask",
    [
        "explain what sync_dir does",
        "write unit tests for build_parser",
        "why does main() return 0 even when the upload fails?",
        "now add tests",
    ],
)
def test_the_agents_work_after_a_code_fix_stays_coding(ask: str) -> None:
    """Asks the model alone reads as other work, not clearly, or as coding: coding still."""
    assert classify(recorded("haiku-after-fix-realistic.json", ask)).label == "coding"


@pytest.mark.parametrize("name", ["math-after-fix.json", "math-first.json"])
def test_arithmetic_in_aider_stays_coding(name: str) -> None:
    """Arithmetic, "What is 17 * 23? Explain your steps.", is read alone as reasoning 0.496
    and math 0.376, other work 0.892, below the floor: unclear, so the agent's session
    decides, first ask or not, and the local coding model answers it."""
    intent, shown = classify(recorded(name)), explain(recorded(name))
    assert (intent.label, intent.source) == ("coding", "rule")
    assert "other work than coding read" in shown["rule"]


def test_explain_reads_the_latest_ask_alone_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """`explain` names the rule `classify`'s decision applied, not asking `session_intent`
    again: the ask alone is read once a request, as `classify` reads it (its request read
    first), where it was read twice."""
    body = recorded("math-after-fix.json")
    read = decision._read
    seen: list[RequestView] = []

    def counted(m: Any, v: RequestView) -> tuple[list[float], list[int]]:
        seen.append(v)
        return read(m, v)

    monkeypatch.setattr(decision, "_read", counted)
    shown = explain(body)
    assert shown["source"] == "rule" and "other work than coding read" in shown["rule"]
    assert [v.first for v in seen] == [""]  # the ask alone, once
    seen.clear()
    assert classify(body).source == "rule"
    assert [v.first for v in seen] == [FIX, ""]  # the request, then the ask alone


def _p(**probabilities: float) -> list[float]:
    return [probabilities.get(intent, 0.0) for intent in INTENTS]


class Reader:
    """A reader of the latest ask alone that returns `p` and keeps the views it was given."""

    def __init__(self, p: list[float]) -> None:
        self.p = p
        self.views: list[RequestView] = []

    def __call__(self, v: RequestView) -> list[float]:
        self.views.append(v)
        return self.p


SESSION = view(aider_body(FIX, HAIKU))
UNCLEAR = _p(prose=0.9, coding=0.1)  # other work 0.9: below the floor


def test_the_latest_ask_alone_is_read_without_the_first_ask() -> None:
    clear = Reader(_p(prose=rules.AGENT_FLOOR, coding=1 - rules.AGENT_FLOOR))
    assert rules.session_intent(SESSION, UNCLEAR, clear) is None
    assert clear.views == [SESSION._replace(first="")]
    unclear = Reader(_p(prose=0.9, coding=0.1))
    ruled = rules.session_intent(SESSION, UNCLEAR, unclear)
    assert ruled is not None and ruled[0].label == "coding" and len(unclear.views) == 1
    assert rules.session_intent(SESSION, UNCLEAR) is not None  # no reader: the request's


@pytest.mark.parametrize(
    ("v", "p"),
    [
        (SESSION, _p(prose=0.96, coding=0.04)),  # clearly other work already
        (SESSION, _p(coding=0.6, prose=0.4)),  # coding work first at even odds
        (SESSION, _p(tool_calling=0.4, prose=0.35, math=0.25)),  # coding work first, unsure
        (view(aider_body(HAIKU)), UNCLEAR),  # no first ask: the request is the ask alone
        (view(aider_body(FIX, "write a haiku in haiku.py")), UNCLEAR),  # names a source file
        (view(opencode_body(HAIKU)), UNCLEAR),  # a first turn, the agent's tools
        (view({"messages": [{"role": "user", "content": HAIKU}]}), UNCLEAR),  # no agent
    ],
)
def test_the_second_reading_is_only_made_when_it_can_change_the_decision(
    v: RequestView, p: list[float]
) -> None:
    """The second pass of the model costs a request's reading again: only in an agent's
    session with a first ask of its own, the model's first intent other work and the floor's
    rule about to decide (where it cannot keep the model's reading, none is made)."""
    reader = Reader(_p(prose=1.0))
    before = rules.session_intent(v, p)
    assert rules.session_intent(v, p, reader) == before
    assert reader.views == []
