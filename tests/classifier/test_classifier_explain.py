"""What `explain()` shows: the terms that told the chosen intent from the runner-up, and no
model reading where the model decided nothing."""

from __future__ import annotations

import math
from typing import Any

import pytest

from classifier import classify, decision, explain
from classifier.evaluation import body
from classifier.request import view, view_cut
from classifier.rules import TOOLS_PRIOR
from tests.harness import breaks_on_call

# The reviewer's row: coding alone, and tool_calling after a tool result by the tools prior
# until the model learnt with complement NB's term (2026-12-06): coding both ways now.
PIP = (
    'Got "error: externally-managed-environment" from pip on Debian 12. '
    "What is the right way to install packages for my script?"
)
# An ask the tools prior turns: writing alone, tool_calling after a tool result.
UNREAD = "Summarise my unread emails"
CALL = {"id": "1", "type": "function", "function": {"name": "f", "arguments": "{}"}}


def after_tool(ask: str) -> dict[str, Any]:
    return {
        "messages": [
            {"role": "user", "content": ask},
            {"role": "assistant", "content": None, "tool_calls": [CALL]},
            {"role": "tool", "tool_call_id": "1", "content": "ok"},
        ]
    }


AFTER_TOOL = after_tool(PIP)


def shares(request: dict[str, Any]) -> dict[str, float]:
    return {f["feature"]: f["weight"] for f in explain(request, 10**6)["features"]}


@pytest.mark.parametrize(
    "request_body",
    [AFTER_TOOL, body(PIP), body("Write a haiku about autumn"), body("Prove that 17 is prime")],
)
def test_feature_weights_are_shares_of_the_margin_over_the_runner_up(
    request_body: dict[str, Any],
) -> None:
    """Each weight was value × weight toward the chosen intent alone: words every intent
    weighs alike ranked first, and the list summed to nothing in particular (found in
    review). The shares now sum to the log odds of the first intent over the second."""
    m, v = decision.model(), view(request_body)
    p = decision.probabilities(m, v, decision.request_features(m, v, m.detector.read(v.latest)))[0]
    first, second = sorted(p, reverse=True)[:2]
    # each of some 40 shares is rounded to 4 decimals
    assert sum(shares(request_body).values()) == pytest.approx(math.log(first / second), abs=2e-3)


def test_the_tools_prior_that_decided_the_label_is_named() -> None:
    """After a tool result the ×2 prior turned the reviewer's coding row into tool_calling,
    and the explanation left it out (found in review)."""
    assert classify(body(UNREAD)).label == "writing"
    info = explain(after_tool(UNREAD))
    assert (info["intent"], info["top_intents"][1]["intent"]) == ("tool_calling", "writing")
    assert {"feature": "prior:tools", "weight": round(math.log(TOOLS_PRIOR), 4)} in info["features"]
    assert "prior:tools" not in shares(body(UNREAD))  # no tools, no prior


def test_a_rule_decision_shows_the_model_reading_it_overrode() -> None:
    weather = {"type": "function", "function": {"name": "get_weather"}}
    forced = {**body("Tell me a poem"), "tools": [weather], "tool_choice": "required"}
    info = explain(forced)
    assert (info["intent"], info["source"], info["rule"]) == (
        "tool_calling",
        "rule",
        "tool_choice forces a call",
    )
    assert info["model_intent"] == info["top_intents"][0]["intent"] == "prose"


@pytest.mark.parametrize(
    "request_body",
    [body("asdf"), body("?"), {"messages": [{"role": "user", "content": None}]}, body("")],
)
def test_no_evidence_is_explained_as_an_unreadable_body_is(
    request_body: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Source `default` showed the model's normalised guess ("asdf": instruction 0.997)
    where a body that could not be read showed no model reading (found in review)."""
    info = explain(request_body)
    assert classify(request_body).source == info["source"] == "default"
    monkeypatch.setattr(decision, "view_cut", breaks_on_call(1, view_cut))  # explain reads by it
    unread = explain(request_body)
    assert unread["read"]["latest_chars"] == 0  # the failure path was taken
    model_view = ("intent", "source", "rule", "top_intents", "model_intent", "features")
    assert {k: info[k] for k in model_view} == {k: unread[k] for k in model_view}
    assert info.keys() == unread.keys()
