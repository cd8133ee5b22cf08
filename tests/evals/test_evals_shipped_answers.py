"""Shipped cases outside `\\boxed{}` grade what their prompts ask: a right answer passes in the
forms a model writes it, and the wrong ones found in review fail.

Found in review: `one-two-three-four-five` passed "in uppercase" (regex_match ignores case)
and so did an acrostic of lower-case initials; `{"population_rank": "first", "tags": "none"}`
and a fenced object passed "any integer", "a list of two strings", "no code fence" (a `"*"`
and json_contains's fence stripping); `"roles": []` passed a list holding "admin"; a
calculation without the -7 passed; `"Denver, CO"` failed while easy.01 took "Lisbon,
Portugal"; `**FOR IMMEDIATE RELEASE**`, a right first line, failed.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from evals.graders import Answer, grade
from tests.evals.shipped_cases import pick

JSON_OBJECT = "smf.instruction.medium.01"
RIGHT_OBJECT = {"city": "Nairobi", "population_rank": 1, "tags": ["capital", "Kenya"]}


def _call(name: str, **arguments: Any) -> Answer:
    return Answer(tool_calls=[{"function": {"name": name, "arguments": json.dumps(arguments)}}])


def _text(content: str) -> Answer:
    return Answer(content=content)


def _object(**changes: Any) -> str:
    return json.dumps({**RIGHT_OBJECT, **changes})


ACROSTIC = "Turning water pulls the shore,\nIn and out,\nDrawn by the moon,\nEvery wave returns."
RELEASE = "The city opened the Riverside branch library today."

RIGHT: list[tuple[str, Answer]] = [
    ("smf.instruction.expert.01", _text("ONE-TWO-THREE-FOUR-FIVE")),
    ("smf.instruction.expert.01", _text("  ONE-TWO-THREE-FOUR-FIVE\n")),
    (JSON_OBJECT, _text(json.dumps(RIGHT_OBJECT))),
    (JSON_OBJECT, _text(json.dumps(RIGHT_OBJECT, indent=2) + "\n")),
    (JSON_OBJECT, _text('{"tags":["a \\"b\\"","c\\\\d"],"city":"Nairobi","population_rank":-3}')),
    (
        JSON_OBJECT,
        _text(json.dumps({"population_rank": 0, "tags": ["東京", "x"], "city": "Nairobi"})),
    ),
    (
        "smf.instruction.expert.02",
        _text('{"user": {"name": "Mira", "roles": ["admin"]}, "active": true}'),
    ),
    ("smf.prose.easy.03", _text(ACROSTIC)),
    ("smf.prose.easy.03", _text(ACROSTIC.replace("\n", "\n\n"))),
    ("smf.writing.medium.03", _text(f"FOR IMMEDIATE RELEASE\n\n{RELEASE}")),
    ("smf.writing.medium.03", _text(f"**FOR IMMEDIATE RELEASE**\n\n{RELEASE}")),
    ("smf.writing.medium.03", _text(f"# FOR IMMEDIATE RELEASE\n\n{RELEASE}")),
    ("smf.writing.medium.03", _text(f"### **FOR IMMEDIATE RELEASE**\n{RELEASE}")),
    ("smf.writing.medium.03", _text(f"_FOR IMMEDIATE RELEASE_\n{RELEASE}")),
    ("smf.tool_calling.hard.02", _call("calculate", expression="-7 + 3.5 * 6")),
    ("smf.tool_calling.hard.02", _call("calculate", expression="3.5*6 - 7")),
    ("smf.tool_calling.medium.01", _call("get_weather", location="Denver", unit="fahrenheit")),
    ("smf.tool_calling.medium.01", _call("get_weather", location="Denver, CO", unit="fahrenheit")),
]
WRONG: list[tuple[str, Answer]] = [
    ("smf.instruction.expert.01", _text("one-two-three-four-five")),
    ("smf.instruction.expert.01", _text("One-Two-Three-Four-Five")),
    (JSON_OBJECT, _text(_object(population_rank="first", tags="none"))),
    (JSON_OBJECT, _text(f"```json\n{json.dumps(RIGHT_OBJECT)}\n```")),
    (JSON_OBJECT, _text(f"Here it is: {json.dumps(RIGHT_OBJECT)}")),
    (JSON_OBJECT, _text(_object(population_rank=1.5))),
    (JSON_OBJECT, _text(_object(population_rank="1"))),
    (JSON_OBJECT, _text(_object(tags=["capital"]))),
    (JSON_OBJECT, _text(_object(tags=["a", "b", "c"]))),
    (JSON_OBJECT, _text(_object(tags=["a", 2]))),
    (JSON_OBJECT, _text(_object(city="nairobi"))),
    (JSON_OBJECT, _text(_object(country="Kenya"))),
    (JSON_OBJECT, _text('{"city": "Nairobi", "city": "Nairobi", "tags": ["a", "b"]}')),
    (JSON_OBJECT, _text('{"city": "Nairobi", "population_rank": 1, "tags": ["a", "b"],}')),
    (JSON_OBJECT, _text("{'city': 'Nairobi', 'population_rank': 1, 'tags': ['a', 'b']}")),
    ("smf.instruction.expert.02", _text('{"user": {"name": "Mira", "roles": []}, "active": true}')),
    (
        "smf.instruction.expert.02",
        _text('{"user": {"name": "Mira", "roles": "*"}, "active": true}'),
    ),
    ("smf.prose.easy.03", _text(ACROSTIC.lower())),
    ("smf.prose.easy.03", _text(ACROSTIC.replace("In and", "in and"))),
    ("smf.writing.medium.03", _text(f"Riverside Library Opens\nFOR IMMEDIATE RELEASE\n{RELEASE}")),
    ("smf.writing.medium.03", _text(f"Press release\n\n{RELEASE}")),
    ("smf.tool_calling.hard.02", _call("calculate", expression="3.5 * 6")),
    ("smf.tool_calling.medium.01", _call("get_weather", location="Denver", unit="celsius")),
    ("smf.tool_calling.medium.01", _call("get_weather", location="Boulder", unit="fahrenheit")),
    ("smf.tool_calling.medium.01", _call("get_weather", location="Denver")),
]


def _ids(rows: list[tuple[str, Answer]]) -> list[str]:
    said = [a.content or a.tool_calls[0]["function"]["arguments"] for _, a in rows]
    return [f"{case_id}:{text}"[:90] for (case_id, _), text in zip(rows, said, strict=True)]


@pytest.mark.parametrize(("case_id", "answer"), RIGHT, ids=_ids(RIGHT))
def test_a_right_answer_passes(case_id: str, answer: Answer) -> None:
    verdict = grade(pick(case_id)[0], answer)
    assert verdict.passed, verdict.reason


@pytest.mark.parametrize(("case_id", "answer"), WRONG, ids=_ids(WRONG))
def test_a_wrong_answer_fails(case_id: str, answer: Answer) -> None:
    verdict = grade(pick(case_id)[0], answer)
    assert not verdict.passed, verdict.reason
