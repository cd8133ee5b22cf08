"""A streamed tool call reaches chat clients opened as OpenAI opens it, with `"arguments": ""`
beside the function's name, whatever the upstream did: vLLM's opening fragment has no
`arguments` key (tests/vllm/captures/tool_named_stream.json), and a client that types them
as a string (guidance's stream handler) failed on every call routed local. Nothing else of
the stream changes, and the translations to Messages and Responses read the same calls."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from router.relay import Tally
from tests.agent_apis.agent_stack import (
    CHAT_WEATHER_TOOLS,
    anthropic_client,
    openai_client,
    relayed_and_direct,
    stack_config,
)
from tests.harness import router, simulator

TOOLS: Any = CHAT_WEATHER_TOOLS
FORCED: Any = {"type": "function", "function": {"name": "get_weather"}}
MESSAGES: Any = [{"role": "user", "content": "What's the weather in Paris?"}]


def test_vllms_call_opens_with_empty_arguments_in_the_openai_sdk(tmp_path: Path) -> None:
    """The SDK's chunk for the opening fragment had `arguments` None (vLLM sends none), where
    OpenAI's has ""; the fragments after it and the joined call are as vLLM sent them."""
    with (
        simulator(profile="vllm", model="cloud-model") as sim,
        router(stack_config({"cloud": sim}, tmp_path, ["cloud"])) as running,
    ):
        client = openai_client(running)
        with client.chat.completions.stream(
            model="auto", messages=MESSAGES, tools=TOOLS, tool_choice=FORCED
        ) as stream:
            fragments = [
                call
                for event in stream
                if event.type == "chunk" and event.chunk.choices
                for call in event.chunk.choices[0].delta.tool_calls or ()
            ]
            final = stream.get_final_completion()
    opening, *rest = fragments
    assert opening.function is not None and opening.function.name == "get_weather"
    assert opening.function.arguments == ""
    assert rest and all(f.function and f.function.name is None for f in rest)
    assert all(f.function and f.function.arguments for f in rest)  # pieces as they came
    calls = final.choices[0].message.tool_calls or []
    assert [c.function.name for c in calls] == ["get_weather"]
    assert isinstance(orjson.loads(calls[0].function.arguments), dict)


def _events(body: bytes) -> list[bytes]:
    return [event for event in body.split(b"\n\n") if event]


def _opened(event: bytes) -> bytes:
    """`event` as the relay should send it: its opening fragments given `"arguments": ""`."""
    obj = orjson.loads(event.removeprefix(b"data: "))
    for choice in obj["choices"]:
        for call in choice["delta"].get("tool_calls") or ():
            if "name" in call["function"] and "arguments" not in call["function"]:
                call["function"]["arguments"] = ""
    return b"data: " + orjson.dumps(obj)


def test_only_the_opening_fragments_of_vllms_stream_change(tmp_path: Path) -> None:
    """vLLM's stream of two choices, a call in each: the two opening fragments go out with
    `"arguments": ""` added and nothing else of them changed; every other event byte for
    byte (`test_chat_call_numbering` checks OpenAI's whole stream byte for byte)."""
    relayed, direct = relayed_and_direct(tmp_path, "vllm", MESSAGES, TOOLS, tool_choice=FORCED)
    sent, made = _events(relayed), _events(direct)
    openings = [i for i, event in enumerate(made) if b'"name":"get_weather"}' in event]
    assert len(openings) == 2 and len(sent) == len(made)
    assert [orjson.loads(sent[i].removeprefix(b"data: ")) for i in openings] == [
        orjson.loads(_opened(made[i]).removeprefix(b"data: ")) for i in openings
    ]
    assert [e for i, e in enumerate(sent) if i not in openings] == [
        e for i, e in enumerate(made) if i not in openings
    ]


@pytest.mark.parametrize(
    ("function", "rewritten"),
    [
        ({"name": "get_weather"}, True),  # vLLM's opening
        ({"name": "get_weather", "arguments": ""}, False),  # OpenAI's
        ({"name": "get_weather", "arguments": None}, False),  # whatever came stays
        ({"name": "get_weather", "arguments": {"city": "Paris"}}, False),  # TGI's object
        ({"arguments": '{"city"'}, False),  # a later piece
        ({"name": ""}, False),  # no name
        ({}, False),
    ],
)
def test_only_a_named_function_without_arguments_gets_them(
    function: dict[str, Any], rewritten: bool
) -> None:
    """The relay's tally rewrites a streamed fragment's function only when it names the
    function and has no `arguments` key; a whole reply's calls are never touched."""
    call = {"index": 0, "id": "call_a", "type": "function", "function": dict(function)}
    chunk = {"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]}
    assert Tally(keep_text=True).see(chunk) is rewritten
    want = function | ({"arguments": ""} if rewritten else {})
    assert chunk["choices"][0]["delta"]["tool_calls"][0]["function"] == want
    whole = {"id": "call_a", "type": "function", "function": dict(function)}
    reply = {"choices": [{"index": 0, "message": {"tool_calls": [whole]}}]}
    assert not Tally(keep_text=True).see(reply) and whole["function"] == function


def test_the_translations_read_vllms_calls_alike(tmp_path: Path) -> None:
    """A chat backend's vLLM-shaped call, translated for a Messages and a Responses client:
    the tool_use's input and the function_call's arguments are the call's (the translators
    read a missing `arguments` as none; the relay's rewrite is for chat clients only)."""
    with (
        simulator(profile="vllm", model="cloud-model") as sim,
        router(stack_config({"cloud": sim}, tmp_path, ["cloud"])) as running,
    ):
        chat = openai_client(running).chat.completions.create(
            model="auto", messages=MESSAGES, tools=TOOLS, tool_choice=FORCED
        )
        want = orjson.loads((chat.choices[0].message.tool_calls or [])[0].function.arguments)
        tool = {"name": "get_weather", "input_schema": TOOLS[0]["function"]["parameters"]}
        with anthropic_client(running).messages.stream(
            model="auto",
            max_tokens=200,
            messages=MESSAGES,
            tools=[tool],
            tool_choice={"type": "tool", "name": "get_weather"},
        ) as stream:
            message = stream.get_final_message()
        responses = openai_client(running).responses.create(
            model="auto",
            input=MESSAGES,
            tools=[{"type": "function", "strict": False, **tool_of_responses()}],
            tool_choice={"type": "function", "name": "get_weather"},
            stream=True,
        )
        done = [e.response for e in responses if e.type == "response.completed"]
    uses = [(b.name, b.input) for b in message.content if b.type == "tool_use"]
    assert uses == [("get_weather", want)]
    items = [i for i in done[0].output if i.type == "function_call"]
    assert [(i.name, orjson.loads(i.arguments)) for i in items] == [("get_weather", want)]


def tool_of_responses() -> dict[str, Any]:
    """The weather tool in Responses' flat shape."""
    return {"name": "get_weather", "parameters": TOOLS[0]["function"]["parameters"]}
