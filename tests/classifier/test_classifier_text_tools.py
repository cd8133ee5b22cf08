"""Tools a framework lists in its system prompt's text, sent with no `tools` field, read as
offered (`classifier.frameworks.offered_tools`): a smolagents ToolCallingAgent's on a model
of its own (txtai's `Agent`, `classifier.smolagents.text_tools`), its step a tool call by its
rules (`calls_tools`); rigging's text modes' (`classifier.rigging.offered`), offered, not
forced. And rigging's request to rewrite a reply it failed to parse, passed over
(`classifier.rigging.passed_over`).

Found in a live review of txtai 9.14.0 and rigging 3.3.5: "What is 1234 * 5678? Use the
multiply tool." was math (0.81, 0.58, 0.61) on the cloud, no tool seen, where the same
agents with their tools in `tools` are tool_calling, local; rigging's retry message was read
as the ask, coding 0.80.
"""

from __future__ import annotations

import copy
from typing import Any

from classifier import classify, explain, rigging, smolagents
from classifier.fixed import TOOL_CALL_STEP, TOOL_CALL_STEP_READING
from classifier.request import view
from tests import recorded
from tests.classifier.fixed_readings import assert_decided_by

TXTAI = recorded.loader(recorded.FIXTURES / "txtai-9.14.0")
RIGGING = recorded.loader(recorded.FIXTURES / "rigging-3.3.5")
MULTIPLY = "What is 1234 * 5678? Use the multiply tool."
HAIKU = "Write a haiku about autumn leaves."
CAPITAL = "What is the capital of France? Answer in <answer></answer> tags."


def asking(body: dict[str, Any], ask: str) -> dict[str, Any]:
    """`body` with its last user message `ask`."""
    other = copy.deepcopy(body)
    other["messages"][-1]["content"] = ask
    return other


def test_the_texts_are_the_ones_they_send() -> None:
    """The recorded prompts hold the fixed texts the readers look for; no `tools` sent."""
    system = TXTAI("agent-multiply.json")["messages"][0]["content"]
    assert system.startswith(smolagents.TOOLS_SYSTEM) and smolagents.TOOLS_LIST in system
    assert smolagents.TOOLS_RULES in system
    for name in ("json-in-xml-multiply.json", "xml-multiply.json"):
        body = RIGGING(name)
        assert body["messages"][0]["content"].startswith(rigging.HEADING) and "tools" not in body
    assert RIGGING("parse-retry.json")["messages"][-1]["content"].endswith(rigging.RETRY)


def test_a_txtai_agents_step_is_a_tool_call_with_its_listed_tools_offered() -> None:
    """math 0.81 on the cloud before; now tool_calling by smolagents' rule, as its step with
    `tool_choice: "required"` is, its tools offered by name."""
    body = TXTAI("agent-multiply.json")
    assert "tools" not in body
    seen = view(body)
    assert (seen.tool_names, seen.has_tools) == ("multiply get_weather final_answer", True)
    intent = assert_decided_by(body, TOOL_CALL_STEP_READING, TOOL_CALL_STEP, "tool_calling")
    assert intent.confidence == 0.97 and explain(body)["rule"] == TOOL_CALL_STEP


def test_every_step_of_its_run_is_a_tool_call_whatever_the_task() -> None:
    """Its rules force a call on every step: a haiku task too (the agent answers by
    `final_answer`), and the step after an observation."""
    for body in (
        asking(TXTAI("agent-multiply.json"), "New task:\n" + HAIKU + "\n"),
        TXTAI("agent-weather-step2.json"),
    ):
        assert classify(body).label == "tool_calling"


def test_no_tool_list_is_read_outside_a_toolcalling_agents_prompt() -> None:
    """The list's line in another system prompt offers nothing."""
    body = TXTAI("agent-multiply.json")
    system = body["messages"][0]["content"]
    body["messages"][0]["content"] = "You are a helpful assistant." + system[system.find("\n") :]
    seen = view(body)
    assert (seen.has_tools, seen.fixed) == (False, None)


def test_rigging_text_modes_offer_their_tools_by_name() -> None:
    """Both text modes: tool_calling 0.90 by the tool the ask names, as in its `api` mode,
    the block not read as the system prompt's words."""
    for name in ("json-in-xml-multiply.json", "xml-multiply.json"):
        body = RIGGING(name)
        seen = view(body)
        assert (seen.tool_names, seen.has_tools, seen.system) == ("multiply", True, "")
        assert seen.fixed is None and not seen.tool_forced
        assert classify(body).label == "tool_calling"


def test_rigging_offers_but_does_not_force() -> None:
    """ "If you decide to invoke one or more of the tools": an ask naming no tool is read by
    its words."""
    body = asking(RIGGING("json-in-xml-multiply.json"), HAIKU)
    assert classify(body).label == "prose"


def test_the_block_after_a_system_message_is_read_and_cut_from_its_words() -> None:
    """rigging appends its block to a system message sent, a blank line apart."""
    body = RIGGING("xml-multiply.json")
    block = body["messages"][0]["content"]
    body["messages"][0]["content"] = "You are a careful calculator.\n\n" + block
    seen = view(body)
    assert (seen.tool_names, seen.system) == ("multiply", "You are a careful calculator.")
    body["messages"][0]["content"] = "You are a careful calculator. " + block  # not its block
    assert view(body).has_tools is False


def test_riggings_retry_message_is_passed_over() -> None:
    """coding 0.80 before, the retry message read as the ask; now the question is."""
    body = RIGGING("parse-retry.json")
    seen = view(body)
    assert seen.latest == CAPITAL
    assert (
        classify(body).label
        == classify({"model": "auto", "messages": [{"role": "user", "content": CAPITAL}]}).label
    )


def test_the_retry_text_typed_by_a_user_is_the_ask() -> None:
    """Not right after an assistant's reply (the conversation's first message), or without
    its error element: read as written."""
    retry = RIGGING("parse-retry.json")["messages"][-1]["content"]
    alone = {"model": "auto", "messages": [{"role": "user", "content": retry}]}
    assert view(alone).latest == retry
    body = RIGGING("parse-retry.json")
    body["messages"][-1]["content"] = "Please." + rigging.RETRY
    assert view(body).latest.startswith("Please.")


def test_a_line_too_deep_for_json_is_no_tool() -> None:
    """A line of 1,500 "[" in the tools block made `json.loads` raise RecursionError, and the
    request's classification fail; it is no tool's line, and the ask is read by its words."""
    system = rigging.HEADING + "<available-tools>\n" + "[" * 1500 + "\n</available-tools>\n"
    body = {
        "model": "auto",
        "messages": [
            {"role": "system", "content": system},
            {"role": "user", "content": "What is 1234 * 5678?"},
        ],
    }
    assert view(body).has_tools is False
    alone = {"model": "auto", "messages": [body["messages"][1]]}
    assert classify(body).label == classify(alone).label == "math"


def test_the_heading_quoted_before_the_block_does_not_hide_it() -> None:
    """A user's system message quoting rigging's heading mid-line, before rigging's block: the
    block is found all the same, and the words before it kept."""
    body = RIGGING("xml-multiply.json")
    block = body["messages"][0]["content"]
    words = "Ignore any text like: " + rigging.HEADING.rstrip("\n")
    body["messages"][0]["content"] = words + "\n\n" + block
    seen = view(body)
    assert (seen.tool_names, seen.system) == ("multiply", words)
