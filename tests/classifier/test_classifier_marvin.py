"""Marvin's requests, on the classifier's view and the conversation key alone
(`classifier.marvin`): its forced end-turn call read as its reply channel, a task read by its
instructions (not as Cline's `<task>`), `say()`'s task passed over for the user's message, its
extract, classify and cast tasks instruction by rule; and where its shapes are another app's.
The captured bodies go through the router in `tests/agent_apis/test_agent_marvin.py`.

Found in a live review of Marvin 3.2.7 on pydantic-ai 1.94.0: every request was tool_calling
0.97 by its `tool_choice: "required"`, so all of Marvin's work went local (an integral, math
0.998 asked alone, and a haiku, prose 0.999, too); with `tool_choice: "auto"` the haiku's
task frame made it an agent's session, coding 0.89.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from classifier import classify, explain
from classifier.evaluation import body as body_of
from classifier.fixed import MARVIN_FORM_READING
from classifier.marvin import AGENT_OPENING, REPLY_DESCRIPTION, SAY, SYSTEM_END, SYSTEM_OPENING
from classifier.request import view
from classifier.rules import MARVIN_FORM
from router.conversation import conversation_key
from tests import recorded

FIXTURES = recorded.FIXTURES / "marvin-3.2.7"
MATH = "What is the integral of x^2 * e^x dx? Show the steps."
# Each `marvin.run` task, its instructions, and the intent the model reads them as
RUNS = {
    "run-code.json": ("Write a Python function that reverses a list", "coding"),
    "run-math.json": (MATH, "math"),
    "run-poem.json": ("Write a short poem about autumn leaves", "prose"),
    "agent-haiku.json": ("Write a haiku about the sea", "prose"),
}
# Each extract, classify or cast task, and the data it is given
FORMS = {
    "extract-int.json": "I bought 3 apples and 12 oranges, then ate 2 apples",
    "extract-person.json": "Alice is 30 and her brother Bob is 25.",
    "classify.json": "The product broke after one day, I want my money back",
    "cast.json": "Jane Doe, thirty-four years old",
}
SAID = "Hi! Can you help me understand recursion?"
# `say()`'s turns of one thread: the user's latest message
SAYS = {
    "say-first.json": SAID,
    "say-second.json": "Give me an example with factorial.",
    "say-third.json": "Thanks, what's the time complexity?",
}
PLAN = "Let's plan a 3-day trip to Lisbon. Suggest day 1."
THREAD = {
    "thread-first.json": PLAN,
    "thread-second.json": "Now day 2, focusing on food.",
    "thread-third.json": "Summarise the plan in one line.",
}
WEATHER = "What is the weather in Paris right now?"


captured = recorded.loader(FIXTURES)
with_system = recorded.with_system


def alone(ask: str, **fields: Any) -> dict[str, Any]:
    """The ask as the one user message of a chat under a system prompt of no app's."""
    system = {"role": "system", "content": "You are a helpful assistant."}
    return {"model": "auto", "messages": [system, {"role": "user", "content": ask}], **fields}


def with_instructions(body: dict[str, Any], old: str, new: str) -> dict[str, Any]:
    """`body` with its latest task's instructions `old` made `new`."""
    other = copy.deepcopy(body)
    part = other["messages"][-1]["content"][0]
    assert old in part["text"]
    part["text"] = part["text"].replace(old, new)
    return other


def test_marvins_texts_are_the_ones_it_sends() -> None:
    """Its system prompt opens `SYSTEM_OPENING` and the agent's block and ends `SYSTEM_END`;
    every request forces a call with its task's end-turn tool offered; a task is its frame,
    one text part."""
    for name in [*RUNS, *FORMS, *SAYS, *THREAD, "run-tool.json"]:
        body = captured(name)
        system = body["messages"][0]["content"]
        assert system.startswith(SYSTEM_OPENING + AGENT_OPENING) and system.endswith(SYSTEM_END)
        assert body["tool_choice"] == "required"
        reply = body["tools"][-1]["function"]
        assert reply["name"].startswith("MarkTaskSuccessful_")
        assert reply["description"] == REPLY_DESCRIPTION
        task = body["messages"][-1]["content"]
        assert task[0]["text"].startswith("<task>\n    <id>") and len(task) == 1


@pytest.mark.parametrize("name", sorted(RUNS))
def test_a_tasks_forced_reply_is_read_by_its_instructions(name: str) -> None:
    """The end-turn call is how it answers: the model reads the instructions out of the
    frame, with no tool offered (tool_calling 0.97 by the forcing, before)."""
    ask, label = RUNS[name]
    body = captured(name)
    seen = view(body)
    assert (seen.latest, seen.first) == (ask, "")
    assert (seen.tool_forced, seen.reply_channel, seen.has_tools, seen.harness_cut) == (
        True,
        True,
        False,
        False,
    )
    intent = classify(body)
    assert (intent.label, intent.source) == (label, "model")
    assert explain(body)["rule"] is None


def test_a_task_with_an_attachment_is_read_by_its_instructions() -> None:
    """`marvin.run(["Write...", ImageUrl(...)])`: `Task.get_prompt` sends the rendered task,
    then its attachments, one part each. Read as one text part only, the task was Cline's
    `<task>` (coding 0.914, an agent's text cut, found in review); its first part, now."""
    body = captured("run-poem.json")
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
    body["messages"][-1]["content"].append(image)
    seen = view(body)
    assert (seen.latest, seen.harness_cut, seen.reply_channel) == (
        RUNS["run-poem.json"][0],
        False,
        True,
    )
    intent = classify(body)
    assert (intent.label, intent.source) == ("prose", "model")


def test_the_math_task_reads_as_the_math_ask_alone() -> None:
    assert classify(captured("run-math.json")).label == classify(alone(MATH)).label == "math"


def test_with_tool_choice_auto_a_task_is_no_agents_session() -> None:
    """`<task>` is Cline's wrapper too: under Marvin's system prompt it is Marvin's frame,
    and the haiku is prose (coding 0.89 by `agent_session`, before)."""
    body = captured("agent-haiku.json")
    body["tool_choice"] = "auto"
    assert view(body).harness_cut is False
    intent = classify(body)
    assert (intent.label, intent.source) == ("prose", "model")


@pytest.mark.parametrize("name", sorted(FORMS))
def test_extract_classify_and_cast_are_instruction_whatever_the_data(name: str) -> None:
    """A given form over given data: instruction by rule, the data read as the ask."""
    body = captured(name)
    seen = view(body)
    assert (seen.latest, seen.fixed) == (FORMS[name], MARVIN_FORM_READING)
    intent = classify(body)
    assert (intent.label, intent.confidence, intent.source) == ("instruction", 0.97, "rule")
    assert explain(body)["rule"] == MARVIN_FORM


def test_a_function_given_the_users_prompt_is_read_by_it() -> None:
    """`marvin.extract(..., prompt=...)`: no fixed form of Marvin's; its instructions are
    the ask."""
    body = captured("extract-int.json")
    text = body["messages"][-1]["content"][0]["text"]
    start = text.index("<instructions>\n") + len("<instructions>\n")
    end = text.index("\n    </instructions>")
    body["messages"][-1]["content"][0]["text"] = (
        f"{text[:start]}        Compute the sum of all the numbers in the data.{text[end:]}"
    )
    seen = view(body)
    assert (seen.latest, seen.fixed) == ("Compute the sum of all the numbers in the data.", None)
    assert explain(body)["rule"] is None


@pytest.mark.parametrize("name", sorted(SAYS))
def test_says_task_is_passed_over_for_the_users_message(name: str) -> None:
    """The task of "Respond to the user" is Marvin's: the user's message before it is the
    ask, the thread's first message the first ask, read by the model."""
    body = captured(name)
    assert f"<instructions>\n        {SAY}\n" in body["messages"][-1]["content"][0]["text"]
    seen = view(body)
    assert (seen.latest, seen.first) == (SAYS[name], "" if name == "say-first.json" else SAID)
    assert (seen.reply_channel, seen.has_tools, seen.harness_cut) == (True, False, False)
    assert explain(body)["rule"] is None
    assert classify(body).source == "model"


def test_says_turns_read_as_the_users_messages() -> None:
    """The first turn as its message sent with no system prompt, reasoning (0.60 and 0.53),
    and "Thanks, what's the time complexity?" reasoning (each tool_calling 0.97 before team
    round 10, polite openers). Under "You are a helpful assistant." (`alone`) the first
    message sits at the edge (tool_calling 0.48), so the labels are compared without it."""
    first = classify(captured("say-first.json")).label
    assert first == classify(body_of(SAID)).label == "reasoning"
    assert classify(captured("say-third.json")).label == "reasoning"


@pytest.mark.parametrize("name", sorted(THREAD))
def test_a_threads_tasks_are_its_asks(name: str) -> None:
    """Each turn of `marvin.run` in a thread: its task's instructions, the thread's first
    task's the first ask."""
    seen = view(captured(name))
    assert (seen.latest, seen.first) == (THREAD[name], "" if name == "thread-first.json" else PLAN)


def test_a_tool_loop_is_read_by_its_ask_as_any_apps() -> None:
    """A tool the user gave the agent is offered (its end-turn tool is not): the ask reads
    as it does with that tool offered in any app's chat, before the call and after it."""
    tool = copy.deepcopy(captured("run-tool.json")["tools"][0])
    assert tool["function"]["name"] == "weather"
    plain = classify(alone(WEATHER, tools=[tool], tool_choice="auto"))
    for name in ("run-tool.json", "run-tool-result.json"):
        body = captured(name)
        seen = view(body)
        assert (seen.latest, seen.tool_names, seen.has_tools) == (WEATHER, "weather", True)
        intent = classify(body)
        assert (intent.label, intent.source) == (plain.label, "model") == ("tool_calling", "model")
    asked = with_instructions(captured("run-tool.json"), WEATHER, "Use the weather tool for Nice.")
    intent = classify(asked)
    assert (intent.label, intent.confidence, intent.source) == ("tool_calling", 0.9, "rule")
    assert (
        explain(asked)["rule"] == "tools offered and asks for an offered tool by its name: weather"
    )


def test_a_choice_naming_the_end_turn_tool_is_the_reply_channel() -> None:
    body = captured("run-poem.json")
    name = body["tools"][0]["function"]["name"]
    body["tool_choice"] = {"type": "function", "function": {"name": name}}
    assert (classify(body).label, view(body).reply_channel) == ("prose", True)


def test_a_choice_naming_the_users_tool_is_a_tool_call() -> None:
    body = captured("run-tool.json")
    body["tool_choice"] = {"type": "function", "function": {"name": "weather"}}
    intent = classify(body)
    assert (intent.label, intent.confidence, intent.source) == ("tool_calling", 0.97, "rule")
    assert explain(body)["rule"] == "tool_choice forces a call"


@pytest.mark.parametrize(
    ("name", "description"),
    [
        ("MarkTaskFailed_", "Ends the current turn.. Mark a task failed and provide a message."),
        ("MarkTaskSkipped_", "Ends the current turn.. Mark a task skipped."),
        ("plan_subtasks_", "Ends the current turn.. _PlanSubtasks(*, instructions: str)"),
    ],
)
def test_marvins_other_end_turn_tools_are_no_tools_of_the_users(
    name: str, description: str
) -> None:
    """A task's failure, skip or plan tool (as Marvin names and describes each,
    `tests/fixtures/marvin-3.2.7.md`) beside its end-turn tool is Marvin's: "Thanks, what's
    the time complexity?" reads as it does with its end-turn tool alone (tool_calling 0.61,
    not reasoning 0.54, read as the user's, found in review)."""
    body = captured("say-third.json")
    tool = copy.deepcopy(body["tools"][-1])
    tool["function"].update(name=name + "27def9db", description=description)
    with_tool = copy.deepcopy(body)
    with_tool["tools"].append(tool)
    assert classify(with_tool) == classify(body)
    assert (view(with_tool).has_tools, view(with_tool).reply_channel) == (False, True)


def test_a_task_of_several_end_turn_tools_is_read_by_its_instructions() -> None:
    """`Task(..., allow_fail=True)` (or `allow_skip`, `plan`): Marvin offers one `EndTurn`
    tool ("Ends the current turn.") for them all, forced: its reply channel, the poem is
    prose (tool_calling 0.97 by the forcing, before)."""
    body = captured("run-allow-fail.json")
    assert [tool["function"]["name"] for tool in body["tools"]] == ["EndTurn"]
    seen = view(body)
    assert (seen.latest, seen.reply_channel, seen.has_tools) == ("Write a poem", True, False)
    intent = classify(body)
    assert (intent.label, intent.source) == ("prose", "model")


def test_an_end_turn_tool_described_otherwise_is_a_tool() -> None:
    """Only Marvin's end-turn tool, named and described as Marvin does, is its reply
    channel."""
    body = captured("run-math.json")
    body["tools"][0]["function"]["description"] = "Record the result."
    assert explain(body)["rule"] == "tool_choice forces a call"


@pytest.mark.parametrize(
    "system",
    [
        "You are a helpful assistant.",
        # Marvin's opening, a team's block in place of an agent's
        SYSTEM_OPENING + "<team>\n        This is a team of agents.\n</team>\n</system>",
    ],
)
def test_outside_marvins_system_prompt_nothing_changes(system: str) -> None:
    """The same bodies under a system prompt not Marvin's: the forcing decides, the task is
    read whole as Cline's wrapper (an agent's text cut), `say()`'s task is the latest ask,
    extract is no fixed form."""
    for name in ("run-math.json", "say-second.json", "extract-int.json"):
        body = with_system(captured(name), system)
        intent = classify(body)
        assert (intent.label, intent.confidence, intent.source) == ("tool_calling", 0.97, "rule")
        seen = view(body)
        assert seen.harness_cut and seen.latest.startswith("<id>") and seen.fixed is None
    auto = with_system(captured("agent-haiku.json"), system)
    auto["tool_choice"] = "auto"
    assert view(auto).harness_cut is True


def test_one_threads_turns_are_one_conversation() -> None:
    for names in (THREAD, SAYS):
        keys = {conversation_key(captured(name), {}, "c") for name in names}
        assert len(keys) == 1


def test_two_run_threads_opening_alike_are_two_conversations() -> None:
    """The key hashes a thread's first task as sent, its id with it: another thread of the
    same words is another conversation."""
    first = captured("thread-first.json")
    other = copy.deepcopy(first)
    part = other["messages"][-1]["content"][0]
    part["text"] = part["text"].replace("<id>b399dccf</id>", "<id>0c4e7f21</id>")
    assert view(other).latest == view(first).latest
    assert conversation_key(other, {}, "c") != conversation_key(first, {}, "c")


def test_two_say_threads_opening_alike_are_one_conversation_without_a_cache_key() -> None:
    """Marvin names no thread: two `say()` threads of one agent that open alike are one
    conversation; `prompt_cache_key` (the thread's id, the remedy in
    docs/agents/frameworks.md) keeps them apart."""
    a, b = captured("say-thread-a.json"), captured("say-thread-b.json")
    assert conversation_key(a, {}, "c") == conversation_key(b, {}, "c")
    keyed_a, keyed_b = captured("say-key-a.json"), captured("say-key-b.json")
    assert keyed_a["prompt_cache_key"] != keyed_b["prompt_cache_key"]
    assert conversation_key(keyed_a, {}, "c") != conversation_key(keyed_b, {}, "c")
