"""A structured answer picks among named `anyOf` branches as a model reading the
conversation would: BeeAI's tool run through the demo's simulator reaches `final_answer`.

With a custom base URL BeeAI Framework 0.1.85 sends its tools as a `json_schema`
`response_format` (`ToolCall`, its `item` an `anyOf` of the tools' calls and
`final_answer`), and the simulator filled the first branch every step: `get_weather` again
and again, until the agent gave up after 7 iterations (a live review of demo mode). Now a
tool's result after the latest ask gets the branch that sends the answer, an ask (BeeAI's
nudge) naming a branch gets that one, and anything else the first, as before. Replayed
from the recorded bodies, through the official openai SDK, a real socket, the simulator.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import openai
import pytest

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
