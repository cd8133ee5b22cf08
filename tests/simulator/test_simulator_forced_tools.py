"""A forced tool choice moves on: once the conversation holds a call, the next call goes to
the tool after it in the list, so an agent whose answer is an output tool gets there.

pydantic-ai 2.78.0 (`Agent(model, output_type=Trip, tools=[get_weather])`) offers its
function tools and then its output tool, `final_result`, with `tool_choice` "required"
(Anthropic's `any`), and runs until the output tool is called. The simulator called the
first tool every time, so the run ended at its request limit, `UsageLimitExceeded` (50
requests over Messages, in a live review of demo mode); smolagents' ToolCallingAgent
(`final_answer` last, its calls sent back as text) looped to its step limit. The bodies are
the ones they sent (`tests/fixtures/pydantic-ai-2.78.0.md`, `smolagents-1.26.0.md`); each
run below is bounded, through the official SDKs, real sockets, the simulators."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest

from router.simulator import SimThread

MODEL = "tiny"
FIXTURES = Path(__file__).parents[1] / "fixtures"
LIMIT = 6  # requests a run may take: pydantic-ai's `UsageLimits(request_limit=6)`
RESULT = "Paris: 21C and sunny"  # what get_weather returned


def captured(name: str) -> dict[str, Any]:
    body = dict(json.loads((FIXTURES / name).read_text(encoding="utf-8")))
    return body | {"model": MODEL}


def chat_run(sdk: openai.OpenAI, body: dict[str, Any]) -> list[str]:
    """pydantic-ai's loop over chat: each call answered with its result, until a call of
    its output tool; the tools called, in order."""
    messages, called = list(body["messages"]), []
    for _ in range(LIMIT):
        reply = sdk.chat.completions.create(**body | {"messages": messages})
        (call,) = reply.choices[0].message.tool_calls or []
        called.append(call.function.name)  # type: ignore[union-attr]
        if called[-1] == "final_result":
            return called
        messages.append({"role": "assistant", "content": None, "tool_calls": [call.to_dict()]})
        messages.append({"role": "tool", "tool_call_id": call.id, "content": RESULT})
    return called


def messages_run(sdk: anthropic.Anthropic, body: dict[str, Any]) -> list[str]:
    """The same loop over Anthropic's Messages, as pydantic-ai's `AnthropicModel` sends it."""
    messages, called = list(body["messages"]), []
    for _ in range(LIMIT):
        reply = sdk.messages.create(**body | {"messages": messages})
        (use,) = [block for block in reply.content if block.type == "tool_use"]
        called.append(use.name)
        if use.name == "final_result":
            return called
        messages.append({"role": "assistant", "content": [use.to_dict()]})
        result = {"type": "tool_result", "tool_use_id": use.id, "content": RESULT}
        messages.append({"role": "user", "content": [result]})
    return called


def responses_run(sdk: openai.OpenAI, body: dict[str, Any]) -> list[str]:
    """The same loop over Responses (pydantic-ai's `OpenAIResponsesModel`): the chat body's
    tools and ask as Responses items."""
    tools = [{"type": "function", **tool["function"]} for tool in body["tools"]]
    items: list[Any] = [{"role": "user", "content": body["messages"][0]["content"]}]
    called = []
    for _ in range(LIMIT):
        reply = sdk.responses.create(model=MODEL, input=items, tools=tools, tool_choice="required")
        (call,) = [item for item in reply.output if item.type == "function_call"]
        called.append(call.name)
        if call.name == "final_result":
            return called
        items.append(call.to_dict())
        items.append({"type": "function_call_output", "call_id": call.call_id, "output": RESULT})
    return called


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_pydantic_ais_output_tool_ends_its_run_over_chat(
    start_sim: Callable[..., SimThread], profile: str
) -> None:
    sim = start_sim(profile=profile)
    sdk = openai.OpenAI(base_url=sim.url + "/v1", api_key="x", max_retries=0)
    body = captured("pydantic-ai-2.78.0/tool-output.json")
    assert body["tool_choice"] == "required"
    assert chat_run(sdk, body) == ["get_weather", "final_result"]


@pytest.mark.parametrize("profile", ["vllm", "anthropic"])
def test_pydantic_ais_output_tool_ends_its_run_over_messages(
    start_sim: Callable[..., SimThread], profile: str
) -> None:
    sim = start_sim(profile=profile)
    sdk = anthropic.Anthropic(base_url=sim.url, api_key="x", max_retries=0)
    body = captured("pydantic-ai-2.78.0/tool-output-messages.json")
    assert body["tool_choice"] == {"type": "any"}
    assert messages_run(sdk, body) == ["get_weather", "final_result"]


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_the_output_tool_ends_a_run_over_responses(
    start_sim: Callable[..., SimThread], profile: str
) -> None:
    sim = start_sim(profile=profile)
    sdk = openai.OpenAI(base_url=sim.url + "/v1", api_key="x", max_retries=0)
    body = captured("pydantic-ai-2.78.0/tool-output.json")
    assert responses_run(sdk, body) == ["get_weather", "final_result"]


def test_smolagents_final_answer_follows_its_written_calls(
    start_sim: Callable[..., SimThread],
) -> None:
    """smolagents sends its calls back as the assistant's text ("Calling tools:" and a
    Python list), their results as "Observation:" user text: its step before any call gets
    the first tool, its step after one the next, `final_answer`."""
    sdk = openai.OpenAI(base_url=start_sim().url + "/v1", api_key="x", max_retries=0)

    def called(name: str) -> str:
        body = captured(f"smolagents-1.26.0/{name}")
        assert body["tool_choice"] == "required"
        assert [t["function"]["name"] for t in body["tools"]] == ["get_weather", "final_answer"]
        (call,) = sdk.chat.completions.create(**body).choices[0].message.tool_calls or []
        return call.function.name  # type: ignore[union-attr]

    assert (called("tool-step.json"), called("tool-step-after-update.json")) == (
        "get_weather",
        "final_answer",
    )


def after(name: str) -> list[dict[str, Any]]:
    """pydantic-ai's ask, a call of `name`, its result."""
    call = {"id": "call_1", "type": "function", "function": {"name": name, "arguments": "{}"}}
    return [
        *captured("pydantic-ai-2.78.0/tool-output.json")["messages"],
        {"role": "assistant", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": RESULT},
    ]


def call_of(sim: SimThread, **fields: Any) -> str:
    """The tool a reply to pydantic-ai's request, `fields` changed, calls."""
    sdk = openai.OpenAI(base_url=sim.url + "/v1", api_key="x", max_retries=0)
    body = captured("pydantic-ai-2.78.0/tool-output.json") | fields
    (call,) = sdk.chat.completions.create(**body).choices[0].message.tool_calls or []
    return call.function.name  # type: ignore[union-attr]


def test_a_named_choice_and_a_first_call_are_as_before(
    start_sim: Callable[..., SimThread],
) -> None:
    """A named `tool_choice` is called whatever came before; a forced choice before any
    call, or after a call of a tool not offered, calls the first tool."""
    sim = start_sim()
    named = {"type": "function", "function": {"name": "get_weather"}}
    assert call_of(sim, messages=after("get_weather"), tool_choice=named) == "get_weather"
    assert call_of(sim) == "get_weather"
    assert call_of(sim, messages=after("gone")) == "get_weather"


def test_the_last_tool_stays_the_last(start_sim: Callable[..., SimThread]) -> None:
    """After a call of the last tool the next call is of it again, never back to the
    first: a list's end is where an agent's run ends."""
    assert call_of(start_sim(), messages=after("final_result")) == "final_result"
