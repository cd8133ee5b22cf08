"""BeeAI Framework's requests, on the classifier's view (`classifier.beeai`): its agents'
forced `final_answer` call read as their reply channel, the ask read out of "Your task: " and
the ReActAgent's "Message: ... This message was created at ...", and those shapes read as
written in another app's request.

Found in a live review of BeeAI Framework 0.1.85: every RequirementAgent turn forced
`final_answer`, so every ask was tool_calling 0.97 and local (a haiku, a proof that the
square root of 2 is irrational, both cloud work sent plainly).
"""

from __future__ import annotations

import pytest

from classifier import classify, explain
from classifier.beeai import NUDGE, REPLY_DESCRIPTION, REPLY_LINE, REQUIREMENT_OPENING
from classifier.request import view
from tests import recorded

FIXTURES = recorded.FIXTURES / "beeai-framework-0.1.85"
captured = recorded.loader(FIXTURES)
OTHER = "You are a helpful assistant."
HAIKU = "Write a haiku about rain."
PROOF = "Prove that the square root of 2 is irrational."
# Each RequirementAgent turn, its ask, and the intent the model reads it as
REQUIREMENT = {
    "requirement-haiku.json": (HAIKU, "prose"),
    "requirement-second.json": (PROOF, "math"),
}
WAR = "What were the main causes of World War I?"
WEATHER = "What is the weather in Paris, and what is 17 + 25? Use the tools."
# A tool agent's requests asking for its tools' calls in `response_format`, no `tools`
FORMAT_TOOLS = ["requirement-tools.json", "tool-calling.json", "tool-calling-nudge.json"]


def test_beeais_texts_are_the_ones_it_sends() -> None:
    """The RequirementAgent's system prompt, its `final_answer` tool and its forcing, its
    task's wrapper."""
    body = captured("requirement-haiku.json")
    system = body["messages"][0]["content"]
    assert system.startswith(REQUIREMENT_OPENING) and REPLY_LINE in system
    assert [tool["function"]["description"] for tool in body["tools"]] == [REPLY_DESCRIPTION]
    assert body["tool_choice"] == {"type": "function", "function": {"name": "final_answer"}}
    assert body["messages"][-1]["content"][0]["text"] == "Your task: " + HAIKU


@pytest.mark.parametrize("name", sorted(REQUIREMENT))
def test_a_forced_final_answer_is_read_by_the_ask(name: str) -> None:
    """`final_answer` is how it answers: the model reads the ask out of "Your task: ", with
    no tool offered (tool_calling 0.97 by the forcing, before)."""
    ask, label = REQUIREMENT[name]
    body = captured(name)
    seen = view(body)
    assert seen.latest == ask
    assert (seen.tool_forced, seen.reply_channel, seen.has_tools) == (True, True, False)
    intent = classify(body)
    assert (intent.label, intent.source) == (label, "model")
    assert explain(body)["rule"] is None


def test_a_user_tool_beside_final_answer_is_offered() -> None:
    """A tool the user gave the agent stays offered: the agent is a tool agent, as Letta's
    and Marvin's are, its ask read with it."""
    body = captured("requirement-haiku.json")
    weather = {
        "type": "function",
        "function": {"name": "get_weather", "description": "Get the weather.", "parameters": {}},
    }
    body["tools"] = [weather, *body["tools"]]
    seen = view(body)
    assert (seen.reply_channel, seen.has_tools, seen.tool_names) == (True, True, "get_weather")


def test_the_tool_calling_agents_task_is_read_without_its_wrapper() -> None:
    """The ToolCallingAgent's "Your task: <ask>\\n", under its own system prompt."""
    seen = view(captured("tool-calling.json"))
    assert seen.latest == "What is the weather in Paris, and what is 17 + 25? Use the tools."


def test_the_react_agents_message_is_read_without_its_wrapper_and_time() -> None:
    """ "Message: <ask>\\n\\nThis message was created at <time>": the ask alone is read, its
    earlier turns kept unwrapped by the agent."""
    first, second = view(captured("react-first.json")), view(captured("react-second.json"))
    assert first.latest == "Explain why the sky is blue in two sentences."
    assert (second.latest, second.first) == (WAR, "Explain why the sky is blue in two sentences.")
    alone = {"model": "auto", "messages": [{"role": "user", "content": WAR}]}
    assert classify(captured("react-second.json")).label == classify(alone).label


@pytest.mark.parametrize(
    "name", ["requirement-haiku.json", "tool-calling.json", "react-first.json"]
)
def test_the_wrappers_under_another_system_prompt_are_the_users(name: str) -> None:
    """Under another app's system prompt the words are the user's and a forced
    `final_answer` is a tool call."""
    body = recorded.with_system(captured(name), OTHER)
    seen = view(body)
    assert seen.latest.startswith(("Your task: ", "Message: "))
    assert not seen.reply_channel
    if "tools" in body:
        assert classify(body).label == "tool_calling"


@pytest.mark.parametrize("name", FORMAT_TOOLS)
def test_tools_asked_for_in_response_format_are_offered(name: str) -> None:
    """With no `tools`, BeeAI asks for a call of one of its tools as a `ToolCall` JSON
    schema: the user's tools in it are offered, `final_answer` not; the ask for them is tool
    use (math 0.45, cloud, before: no tool offered)."""
    body = captured(name)
    assert "tools" not in body and body["response_format"]["json_schema"]["name"] == "ToolCall"
    seen = view(body)
    assert (seen.latest, seen.has_tools, seen.tool_names) == (WEATHER, True, "get_weather add")
    assert (seen.tool_forced, seen.reply_channel) == (False, False)
    assert classify(body).label == "tool_calling"


@pytest.mark.parametrize("shape", ["parallel", "top-level", "top-level parallel", "one"])
def test_each_shape_of_beeais_tool_call_schema_is_read(shape: str) -> None:
    """`generate_tool_union_schema`'s other shapes: a list of calls (parallel calls), the
    union unwrapped (adapters taking one at the top), one tool's call alone."""
    body = captured("tool-calling.json")
    schema = body["response_format"]["json_schema"]["schema"]
    union = schema["properties"]["item"]
    calls = {
        "parallel": {"properties": {"item": {"type": "array", "items": union}}},
        "top-level": union,
        "top-level parallel": {"type": "array", "items": union},
        "one": union["anyOf"][1],
    }
    body["response_format"]["json_schema"]["schema"] = calls[shape]
    names = "add" if shape == "one" else "get_weather add"
    assert view(body).tool_names == names


def test_a_tool_call_schema_under_another_system_prompt_offers_nothing() -> None:
    """Another app's `ToolCall` schema is its answer's form, no tool offered."""
    body = recorded.with_system(captured("tool-calling.json"), OTHER)
    assert (view(body).has_tools, view(body).tool_names) == (False, "")


def test_the_tool_calling_agents_nudge_is_passed_over() -> None:
    """ "I can't see your answer. You must use the 'final_answer' tool ..." after a repeated
    call (tool_calling 0.80 read as the ask, before): the task before it is read, after the
    tool's result; under another system prompt it is the user's."""
    body = captured("tool-calling-nudge.json")
    assert body["messages"][-1]["content"][0]["text"] == NUDGE
    seen = view(body)
    assert (seen.latest, seen.after_tool_result) == (WEATHER, True)
    assert view(recorded.with_system(body, OTHER)).latest == NUDGE


@pytest.mark.parametrize(
    ("name", "system"),
    [
        ("requirement-haiku.json", "# Role\nAssume the role of a travel agent.\n"),
        ("tool-calling.json", "Assume the role of a travel agent. Answer briefly."),
    ],
)
def test_a_role_prompt_without_the_reply_line_is_no_beeais(name: str, system: str) -> None:
    """Another app's prompt may open as BeeAI's agents' do: without their line on
    `final_answer` its wrappers are the user's words and a forced `final_answer` a tool
    call."""
    seen = view(recorded.with_system(captured(name), system))
    assert seen.latest.startswith("Your task: ")
    assert not seen.reply_channel


def test_a_final_answer_of_another_description_is_the_users_tool() -> None:
    """Under BeeAI's own prompt, a `final_answer` tool described otherwise is no reply
    channel of BeeAI's: forced, it is a tool call."""
    body = captured("requirement-haiku.json")
    body["tools"][0]["function"]["description"] = "Submit the final answer to the grader."
    seen = view(body)
    assert (seen.reply_channel, seen.has_tools) == (False, True)
    assert classify(body).label == "tool_calling"


def test_a_forced_call_of_another_tool_is_no_reply_channel() -> None:
    """Only "required" or a call of `final_answer` itself is BeeAI's reply channel: a
    choice naming the user's tool beside it is a forced tool call."""
    body = captured("requirement-haiku.json")
    weather = {
        "type": "function",
        "function": {"name": "get_weather", "description": "Get the weather.", "parameters": {}},
    }
    body["tools"].append(weather)
    body["tool_choice"] = {"type": "function", "function": {"name": "get_weather"}}
    seen = view(body)
    assert (seen.tool_forced, seen.reply_channel) == (True, False)
