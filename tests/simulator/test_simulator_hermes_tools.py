"""Qwen-Agent 0.0.34's default function calling through the demo's simulator: tools listed
in the system prompt's Hermes `<tools>` block, no `tools` sent, the call read out of the
reply's `<tool_call>` text and the tool's result sent back as a user `<tool_response>`.

The simulator answered in prose, so no tool ever ran in demo mode (a live review of
Qwen-Agent). Replayed from the recorded bodies (`tests/fixtures/qwen-agent-0.0.34-sim.md`),
streamed as Qwen-Agent asks, through the official openai SDK, a real socket, the simulator;
the reply read as Qwen-Agent's `NousFnCallPrompt.postprocess_fncall_messages` reads it
(`parsed`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from classifier import hermes
from classifier.hermes import HEADING
from classifier.message import System
from router.simulator import SimThread
from router.simulator.hermes_tools import listed, responded
from router.simulator.prompt import ToolSpec
from tests import recorded
from tests.simulator.calls import client, only_call

captured = recorded.loader(recorded.FIXTURES / "qwen-agent-0.0.34-sim")


def streamed(sim: SimThread, body: dict[str, Any]) -> str:
    """The text of `sim`'s streamed answer to a recorded body (its model `tiny`)."""
    fields = {key: value for key, value in body.items() if key != "model"}
    chunks = client(sim).chat.completions.create(model="tiny", **fields)
    return "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)


def natively(sim: SimThread, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The call `sim` answers the same messages with, the tools they list sent in `tools`."""
    specs = listed(body["messages"][0]["content"])
    tools = [
        {"type": "function", "function": {"name": t.name, "parameters": t.schema}} for t in specs
    ]
    chat = client(sim).chat.completions
    return only_call(chat.create(model="tiny", messages=body["messages"], tools=tools))


def parsed(text: str) -> list[tuple[str, dict[str, Any]]]:
    """The calls Qwen-Agent (0.0.34) reads out of a reply's text: each `<tool_call>` piece up
    to its `</tool_call>`, parsed as JSON (json5 there) with `name` and `arguments`."""
    calls = []
    for piece in text.split("<tool_call>")[1:]:
        if not piece.strip() or "</tool_call>" not in piece:
            continue
        fn = json.loads(piece.split("</tool_call>")[0].strip())
        if "name" in fn and "arguments" in fn:
            calls.append((fn["name"], fn["arguments"]))
    return calls


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_a_listed_tool_the_ask_names_is_called_in_text(
    start_sim: Callable[..., SimThread], profile: str
) -> None:
    sim = start_sim(profile=profile)
    text = streamed(sim, captured("multiply-nous.json"))
    assert text == '<tool_call>\n{"name": "multiply", "arguments": {"a": 1, "b": 1}}\n</tool_call>'
    assert parsed(text) == [("multiply", {"a": 1, "b": 1})]
    assert parsed(text) == [natively(sim, captured("multiply-nous.json"))]  # the same rules
    weather = captured("weather-nous.json")
    assert parsed(streamed(sim, weather)) == [("get_weather", {"city": "Paris"})]
    assert parsed(streamed(sim, weather)) == [natively(sim, weather)]


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_the_tool_response_gets_a_summary(
    start_sim: Callable[..., SimThread], profile: str
) -> None:
    text = streamed(start_sim(profile=profile), captured("multiply-tool-response.json"))
    assert text.startswith("Based on the tool result")
    assert parsed(text) == []


def test_an_ask_ending_in_a_quoted_response_is_an_ask(start_sim: Callable[..., SimThread]) -> None:
    """A tool's result is a message of `<tool_response>`s alone, as the classifier reads it
    (`classifier.hermes.responses`); an ask that only ends with one quoted is the user's, and
    gets the call: it got a summary of a result the router never read as one."""
    body = captured("multiply-nous.json")
    body["messages"][1]["content"] += " Earlier:\n<tool_response>\n1\n</tool_response>"
    assert not responded(body["messages"][1]["content"])
    assert not hermes.responses(body["messages"][1]["content"])
    assert parsed(streamed(start_sim(), body)) == [("multiply", {"a": 1, "b": 1})]


def test_tools_sent_are_called_as_sent_and_a_forbidding_prompt_gets_text(
    start_sim: Callable[..., SimThread],
) -> None:
    """With `tools` sent too, the call is native (vLLM reads `tools` first); told to call no
    tool, the answer is text, as with tools sent (`text_only`)."""
    sim, body = start_sim(), captured("multiply-nous.json")
    tool = {"type": "function", "function": {"name": "add", "parameters": {}}}
    reply = client(sim).chat.completions.create(
        model="tiny", messages=body["messages"], tools=[tool]
    )
    assert reply.choices[0].message.tool_calls[0].function.name == "add"  # type: ignore[index]
    body["messages"][1]["content"] += " Do not call any tools."
    assert parsed(streamed(sim, body)) == []


def test_what_the_block_lists_and_what_it_leaves_alone() -> None:
    system = captured("weather-nous.json")["messages"][0]["content"]
    (spec,) = listed(system)
    assert spec.name == "get_weather"
    assert spec.schema["required"] == ["city"]
    assert spec.description == "Get the current weather for a city."
    bare = HEADING + '{"name": "f"}\n[[[\n' + "[" * 5000 + '\n"x"\n</tools>\n<tool_call>'
    assert listed(bare) == (ToolSpec("f", {}),)
    assert listed(HEADING + '{"name": "f"}\n<tool_call>') == ()  # never closed
    assert listed("<tools></tools> <tool_call>") == ()
    assert responded("<tool_response>\n7006652\n</tool_response>\n")
    assert not responded("What is 1234 * 5678? Use the multiply tool.")


@pytest.mark.parametrize(
    "system",
    [
        'Reply so.\n<tools>\n{"name": "f"}\n</tools>\n<tool_call>',  # no Hermes heading
        "Quoting it: " + HEADING + '{"name": "f"}\n</tools>\n<tool_call>',  # mid-line
        "You help.\n\n" + HEADING + '{"name": "f"}\n</tools>',  # the heading whole
    ],
)
def test_the_simulator_lists_the_tools_the_classifier_sees_offered(system: str) -> None:
    """One reader: the simulator took any `<tools>` block beside a `<tool_call>`, the
    classifier only its Hermes heading at the prompt's start or after a blank line, so the
    demo could call a tool the router read no offer of (found in review)."""
    seen = [tool["function"]["name"] for tool in hermes.offered(System(prompt=system))]
    assert [spec.name for spec in listed(system)] == seen
