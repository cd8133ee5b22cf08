"""A structured answer picks among named `anyOf`/`oneOf` branches by a fixed rule: BeeAI's
tool run through the demo's simulator reaches `final_answer`.

With a custom base URL BeeAI Framework 0.1.85 sends its tools as a `json_schema`
`response_format` (`ToolCall`, its `item` an `anyOf` of the tools' calls and
`final_answer`), and the simulator filled the first branch every step, never
`final_answer`: `RequirementAgent` gave up after 21 iterations (30 requests),
`ToolCallingAgent` after 11 (10 requests; a live review of demo mode). Now a tool's result
after the latest ask gets the branch that sends the answer (so a run ends after its first
tool), an ask (BeeAI's nudge) naming a branch gets that one, and anything else the first,
as before; the branch is written with its name. Replayed from the recorded bodies, through
the official openai SDK, a real socket, the simulator.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, Literal

import jsonschema
import openai
import pytest
from pydantic import BaseModel, Field

from router.simulator import SimThread
from router.simulator.asked_tool import finishing_index
from router.simulator.instances import structured
from tests import recorded

MODEL = "tiny"
captured = recorded.loader(recorded.FIXTURES / "beeai-framework-0.1.85")
WEATHER_CALL = {
    "role": "assistant",
    "tool_calls": [
        {
            "id": "call_p9xe5rjn",
            "type": "function",
            "function": {"arguments": '{"city": "Paris"}', "name": "get_weather"},
        }
    ],
}
WEATHER_RESULT = {
    "tool_call_id": "call_p9xe5rjn",
    "role": "tool",
    "name": "get_weather",
    "content": "Sunny, 21C in Paris",
}


def item(sim: SimThread, body: dict[str, Any]) -> Any:
    """The `item` the simulator fills BeeAI's `ToolCall` with, for a recorded body."""
    sdk = openai.OpenAI(base_url=sim.url + "/v1", api_key="x", max_retries=0)
    reply = sdk.chat.completions.create(
        model=MODEL,
        messages=body["messages"],
        response_format=body["response_format"],
        temperature=body["temperature"],
    )
    return json.loads(reply.choices[0].message.content or "")["item"]


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_a_beeai_tool_run_calls_its_tool_then_final_answer(
    start_sim: Callable[..., SimThread], profile: str
) -> None:
    """RequirementAgent's two steps: the ask names no tool, so the first (`get_weather`);
    with its result in, `final_answer`, and the run is over."""
    sim = start_sim(profile=profile)
    first = captured("requirement-tools.json")
    assert item(sim, first) == {"name": "get_weather", "parameters": {"city": "Paris"}}
    second = captured("requirement-tools.json")
    second["messages"] += [WEATHER_CALL, WEATHER_RESULT]
    answered = item(sim, second)
    assert answered["name"] == "final_answer"
    assert isinstance(answered["parameters"]["response"], str)


def test_beeais_nudge_naming_final_answer_gets_it(start_sim: Callable[..., SimThread]) -> None:
    """ToolCallingAgent's nudge, "You must use the 'final_answer' tool", after a tool's
    result: the ask names the branch."""
    assert item(start_sim(), captured("tool-calling-nudge.json"))["name"] == "final_answer"


def test_an_ask_naming_a_branch_gets_it(start_sim: Callable[..., SimThread]) -> None:
    """Before any tool ran, the branch the ask names ("use add"), not the first."""
    body = captured("requirement-tools.json")
    body["messages"][-1]["content"][0]["text"] = "Your task: What is 17 + 25? Use add."
    assert item(start_sim(), body) == {"name": "add", "parameters": {"a": 1, "b": 1}}


def union(*names: str, field: str = "name") -> dict[str, Any]:
    """An object schema whose `item` is an `anyOf` of one branch per name, `field` fixed."""
    branches = [
        {"type": "object", "properties": {field: {"const": name}}, "required": [field]}
        for name in names
    ]
    return {"type": "object", "properties": {"item": {"anyOf": branches}}, "required": ["item"]}


def chosen(schema: dict[str, Any], pick: int | None) -> Any:
    """The `item` built where the chooser answers `pick`, and the names it was shown."""
    shown: list[Sequence[str]] = []

    def choose(names: Sequence[str]) -> int | None:
        shown.append(names)
        return pick

    return json.loads(structured(schema, "ask", choose))["item"], shown


def test_named_branches_are_chosen_and_others_stay_first() -> None:
    """Names from a `const` or a one-value `enum`; branches not told apart by one (a name
    shared, a field missing) are not offered to the chooser, and get the first as before."""
    assert chosen(union("a", "b", "c"), 2) == ({"name": "c"}, [("a", "b", "c")])
    assert chosen(union("a", "b"), None) == ({"name": "a"}, [("a", "b")])
    enum = union("a", "b")
    enum["properties"]["item"]["anyOf"][1]["properties"]["name"] = {"enum": ["b"]}
    assert chosen(enum, 1) == ({"name": "b"}, [("a", "b")])
    assert chosen(union("a", "a"), 1) == ({"name": "a"}, [])
    missing = union("a", "b")
    del missing["properties"]["item"]["anyOf"][1]["properties"]["name"]
    assert chosen(missing, 1) == ({"name": "a"}, [])
    assert chosen(union("only"), 0) == ({"name": "only"}, [])


def test_an_array_of_one_union_asks_the_chooser_once() -> None:
    schema = {"type": "array", "minItems": 5, "items": union("a", "b")["properties"]["item"]}
    shown: list[Sequence[str]] = []

    def choose(names: Sequence[str]) -> int:
        shown.append(names)
        return 1

    assert json.loads(structured(schema, "ask", choose)) == [{"name": "b"}] * 5
    assert shown == [("a", "b")]


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (["get_weather", "add", "final_answer"], 2),
        (["search", "answer_question", "final_answer"], 2),
        (["search", "respond"], 1),
        (["Finish", "reply"], 0),
        (["get_weather", "add"], None),
        ([], None),
    ],
)
def test_the_tool_that_sends_the_answer(names: list[str], expected: int | None) -> None:
    assert finishing_index(names) == expected


class Cat(BaseModel):
    pet_type: Literal["cat"] = "cat"
    name: str


class Dog(BaseModel):
    pet_type: Literal["dog"] = "dog"
    name: str


class Owner(BaseModel):
    """pydantic's discriminated union: a `oneOf` whose tags, having defaults, are not
    `required`."""

    pet: Cat | Dog = Field(discriminator="pet_type")


class Search(BaseModel):
    tool: Literal["search"]
    query: str


class FinalAnswer(BaseModel):
    tool: Literal["final_answer"]
    text: str


class Step(BaseModel):
    action: Search | FinalAnswer


def answered(sim: SimThread, text: str, response_format: dict[str, Any]) -> str:
    sdk = openai.OpenAI(base_url=sim.url + "/v1", api_key="x", max_retries=0)
    reply = sdk.chat.completions.create(
        model=MODEL,
        messages=[{"role": "user", "content": text}],
        response_format=response_format,  # type: ignore[arg-type]
    )
    return reply.choices[0].message.content or ""


@pytest.mark.parametrize(("ask", "kind"), [("Describe my dog", Dog), ("Describe my pet", Cat)])
def test_a_discriminated_union_is_answered_with_its_tag(
    start_sim: Callable[..., SimThread], ask: str, kind: type[BaseModel]
) -> None:
    """A branch is written with the field that names it, `required` or not: pydantic's tag
    (`Literal["dog"] = "dog"`) is not, and `{"pet": {"name": ...}}` matched both branches
    of the `oneOf`, which pydantic rejected (found in review). The branch the ask names, else
    the first."""
    schema = Owner.model_json_schema()
    text = answered(
        start_sim(), ask, {"type": "json_schema", "json_schema": {"name": "O", "schema": schema}}
    )
    jsonschema.validate(json.loads(text), schema)
    assert isinstance(Owner.model_validate_json(text).pet, kind)


def nested(schema: dict[str, Any], levels: int) -> dict[str, Any]:
    """`schema` as the required `x` of `levels` objects, one inside another."""
    for _ in range(levels):
        schema = {"type": "object", "properties": {"x": schema}, "required": ["x"]}
    return schema


def test_a_chosen_branch_is_written_with_its_name_at_any_depth() -> None:
    """Under a `oneOf`, a branch built without its name (not in its `required`, or past
    the depth where only required fields are built) matched another branch too: its name is
    written, whoever chooses, at any depth."""
    branches = [
        {"type": "object", "properties": {"kind": {"const": "c"}}},
        {
            "type": "object",
            "properties": {"kind": {"const": "get_weather"}, "p0": {"type": "integer"}},
            "required": ["p0"],
        },
    ]
    for levels in (0, 5):
        schema = nested({"oneOf": branches}, levels)
        for pick in (None, 0, 1):
            value = json.loads(structured(schema, "ask", lambda names, pick=pick: pick))
            jsonschema.validate(value, schema)
            for _ in range(levels):
                value = value["x"]
            assert value["kind"] == ("c", "get_weather")[pick or 0]
        jsonschema.validate(json.loads(structured(schema, "ask")), schema)


def test_reading_the_names_spends_none_of_the_values_budget() -> None:
    """Each name read through a three-part `allOf` charged the document's budget of values:
    of 700 branches, the answer was `{"item": null}` (found in review)."""
    schema = union(*(f"tool_{i}" for i in range(700)))
    for branch in schema["properties"]["item"]["anyOf"]:
        branch["properties"]["name"]["allOf"] = [{"$ref": "#/$defs/Name"}] * 3
    schema["$defs"] = {"Name": {"type": "string"}}
    assert chosen(schema, 699)[0] == {"name": "tool_699"}
    jsonschema.validate(json.loads(structured(schema, "ask")), schema)


SCHEMA_ASKS = [
    "Respond with a JSON object that matches this schema:\n{schema}",
    "The output should be formatted as a JSON instance that conforms to the JSON schema "
    "below.\n\nHere is the output schema:\n```\n{schema}\n```",
]


@pytest.mark.parametrize("lead", SCHEMA_ASKS)
@pytest.mark.parametrize(
    ("ask", "kind"),
    [("What is the capital of France?", Search), ("Use final_answer: Paris.", FinalAnswer)],
)
def test_a_schema_in_the_user_message_is_no_ask_of_a_branch(
    start_sim: Callable[..., SimThread], lead: str, ask: str, kind: type[BaseModel]
) -> None:
    """A schema written into the user's message (a JSON ask, LangChain's format
    instructions, which n8n sends in a user turn) names every branch: read as the ask, the
    longest name won, `final_answer` before any tool ran (found in review). The ask around
    it still names one."""
    shown = lead.format(schema=json.dumps(Step.model_json_schema(), indent=2))
    text = answered(start_sim(), f"{ask}\n\n{shown}", {"type": "json_object"})
    assert isinstance(Step.model_validate_json(text).action, kind)
