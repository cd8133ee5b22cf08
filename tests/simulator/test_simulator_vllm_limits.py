"""How vLLM 0.32 ends what `max_tokens` and `stop` cut, as a reviewer found it beside the
simulator (real vLLM, hermes tool parser, the capture server's settings).

A tool call is text the model writes (`<tool_call>{"name": …`) until vLLM's parser reads
it back, so `max_tokens` cuts it like any text: finish "length", the raw text as content,
no `tool_calls`; the simulator returned the whole call. Streamed, the parser shows no text
of it: only the calls it could read (a closed name, the arguments so far), then an empty
delta with the finish. A whole call vLLM was made to write (`"required"`, as a named
`tool_choice` already was) has content "" and ends at a stop token (`stop_reason: 0`) in
a chunk of its own. And `stop` strings were ignored: vLLM ends the text where one begins,
finish "stop", `stop_reason` the string.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from router.simulator import SimThread
from tests.agent_apis.agent_stack import CHAT_WEATHER_TOOLS

HTTP = httpx.Client(trust_env=False, timeout=30)
TOOLS: Any = CHAT_WEATHER_TOOLS
WEATHER = [{"role": "user", "content": "What's the weather in Paris?"}]
NAMED = {"type": "function", "function": {"name": "get_weather"}}
SAID = "Paris is sunny today, and London is grey. The end of it."


def post(sim: SimThread, path: str, body: dict[str, Any]) -> httpx.Response:
    return HTTP.post(sim.url + path, json={"model": "tiny", **body})


def chat(sim: SimThread, **body: Any) -> dict[str, Any]:
    response = post(sim, "/v1/chat/completions", body)
    assert response.status_code == 200, response.text
    reply: dict[str, Any] = response.json()
    return reply


def chunks(sim: SimThread, path: str = "/v1/chat/completions", **body: Any) -> list[Any]:
    """A stream's choice chunks (usage chunk and [DONE] left out)."""
    response = post(sim, path, {**body, "stream": True})
    assert response.status_code == 200, response.text
    data = [line[6:] for line in response.text.splitlines() if line.startswith("data: {")]
    return [c for c in map(json.loads, data) if c["choices"]]


def calls_of(stream: list[Any]) -> list[dict[str, Any]]:
    return [t for c in stream for t in c["choices"][0]["delta"].get("tool_calls") or []]


@pytest.mark.parametrize("choice", ["required", NAMED, "auto"], ids=["required", "named", "auto"])
def test_max_tokens_cuts_a_tool_call_into_its_raw_text(
    vllm: SimThread, choice: str | dict[str, Any]
) -> None:
    """The reviewer's t11: `max_tokens: 5` with "required" got a whole call, 13 tokens."""
    reply = chat(vllm, messages=WEATHER, tools=TOOLS, tool_choice=choice, max_tokens=5)
    [answer] = reply["choices"]
    assert (answer["finish_reason"], answer["stop_reason"]) == ("length", None)
    assert answer["message"]["content"].startswith('<tool_call>{"name": "')
    assert "tool_calls" not in answer["message"]
    assert reply["usage"]["completion_tokens"] == 5


def test_a_cut_call_streams_nothing_before_its_name_is_closed(vllm: SimThread) -> None:
    body: dict[str, Any] = {"messages": WEATHER, "tools": TOOLS, "tool_choice": "required"}
    role, end = chunks(vllm, **body, max_tokens=5)
    assert role["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    finish = end["choices"][0]
    assert (finish["delta"], finish["finish_reason"], finish["stop_reason"]) == ({}, "length", None)


def test_a_cut_call_streams_what_the_parser_read_then_an_empty_finish(vllm: SimThread) -> None:
    whole = chat(vllm, messages=WEATHER, tools=TOOLS, tool_choice="required")
    [call] = whole["choices"][0]["message"]["tool_calls"]
    body: dict[str, Any] = {"messages": WEATHER, "tools": TOOLS, "tool_choice": "required"}
    stream = chunks(vllm, **body, max_tokens=12)
    calls = calls_of(stream)
    assert calls[0]["function"] == {"name": "get_weather"}
    arguments = "".join(c["function"].get("arguments", "") for c in calls[1:])
    assert arguments and call["function"]["arguments"].startswith(arguments)
    assert arguments != call["function"]["arguments"]
    *deltas, end = stream
    assert all(c["choices"][0]["finish_reason"] is None for c in deltas)
    assert (end["choices"][0]["delta"], end["choices"][0]["finish_reason"]) == ({}, "length")


def test_required_is_a_forced_call_content_empty_ending_at_a_stop_token(vllm: SimThread) -> None:
    answer = chat(vllm, messages=WEATHER, tools=TOOLS, tool_choice="required")["choices"][0]
    assert (answer["finish_reason"], answer["stop_reason"]) == ("tool_calls", 0)
    assert answer["message"]["content"] == ""
    *deltas, end = chunks(vllm, messages=WEATHER, tools=TOOLS, tool_choice="required")
    assert (end["choices"][0]["delta"], end["choices"][0]["finish_reason"]) == ({}, "tool_calls")
    assert end["choices"][0]["stop_reason"] == 0
    assert all(c["choices"][0]["finish_reason"] is None for c in deltas)


def test_an_auto_call_streamed_ends_in_a_chunk_of_its_own(vllm: SimThread) -> None:
    """The parser shows nothing of `</tool_call>` and the EOS token after it."""
    *deltas, end = chunks(vllm, messages=WEATHER, tools=TOOLS)
    assert calls_of(deltas)
    finish = end["choices"][0]
    assert (finish["delta"], finish["finish_reason"], finish["stop_reason"]) == (
        {},
        "tool_calls",
        None,
    )


def test_the_cloud_profile_still_calls_whole(start_sim: Callable[..., SimThread]) -> None:
    """OpenAI has no text form of a call to cut; the cloud profile is as it was."""
    cloud = start_sim(profile="cloud")
    body: dict[str, Any] = {"messages": WEATHER, "tools": TOOLS, "tool_choice": "required"}
    answer = chat(cloud, **body, max_tokens=5)["choices"][0]
    assert answer["finish_reason"] == "tool_calls" and answer["message"]["tool_calls"]


@pytest.fixture
def said(start_sim: Callable[..., SimThread]) -> SimThread:
    return start_sim(max_model_len=512, replies={"Hello there": SAID})


HELLO = [{"role": "user", "content": "Hello there"}]


@pytest.mark.parametrize(
    ("stop", "matched", "text"),
    [
        ("London", "London", "Paris is sunny today, and "),
        (["zzz", "is gr"], "is gr", "Paris is sunny today, and London "),
        (["today", "Paris"], "Paris", ""),  # the first string found, in the request's order
    ],
)
def test_a_stop_string_ends_the_text_where_it_begins(
    said: SimThread, stop: str | list[str], matched: str, text: str
) -> None:
    answer = chat(said, messages=HELLO, stop=stop)["choices"][0]
    assert (answer["message"]["content"], answer["finish_reason"]) == (text, "stop")
    assert answer["stop_reason"] == matched
    stream = chunks(said, messages=HELLO, stop=stop)
    pieces = [c["choices"][0]["delta"].get("content") or "" for c in stream]
    assert "".join(pieces) == text
    finish = stream[-1]["choices"][0]
    assert (finish["finish_reason"], finish["stop_reason"]) == ("stop", matched)
    assert all(c["choices"][0]["finish_reason"] is None for c in stream[:-1])
    assert all(c["choices"][0]["delta"] != {"content": ""} for c in stream[1:])


def test_a_stop_string_past_max_tokens_is_a_length_cut(said: SimThread) -> None:
    reply = chat(said, messages=HELLO, stop="London", max_tokens=3)
    answer = reply["choices"][0]
    assert (answer["message"]["content"], answer["finish_reason"]) == ("Paris is sunny", "length")
    assert answer["stop_reason"] is None and reply["usage"]["completion_tokens"] == 3


def test_streamed_text_holds_back_what_could_begin_a_stop_string(said: SimThread) -> None:
    """vLLM shows a token's text only once no stop string can begin in it; the answer's
    last chunk shows the rest."""
    stream = chunks(said, messages=HELLO, stop="xyzzy")
    pieces = [c["choices"][0]["delta"].get("content") or "" for c in stream]
    assert "".join(pieces) == SAID
    assert pieces[1] == "P"  # "Paris" less the 4 characters "xyzzy" could begin in


def test_completions_stop_where_the_string_begins(said: SimThread) -> None:
    body: dict[str, Any] = {"prompt": "Hello there", "stop": "sunny"}
    answer = post(said, "/v1/completions", body).json()["choices"][0]
    assert (answer["text"], answer["finish_reason"], answer["stop_reason"]) == (
        "Paris is ",
        "stop",
        "sunny",
    )
    stream = chunks(said, "/v1/completions", **body)
    assert "".join(c["choices"][0]["text"] for c in stream) == "Paris is "
    last = stream[-1]["choices"][0]
    assert (last["finish_reason"], last["stop_reason"]) == ("stop", "sunny")


def test_a_natural_end_streamed_is_an_empty_delta(said: SimThread) -> None:
    """vLLM shows no text for the EOS token: its chunk's delta is `{}`."""
    stream = chunks(said, messages=HELLO)
    end = stream[-1]["choices"][0]
    assert (end["delta"], end["finish_reason"], end["stop_reason"]) == ({}, "stop", None)


def test_an_abort_before_the_stop_string_names_none(said: SimThread) -> None:
    """The engine dropped the request before the string it would have matched."""
    body = {"model": "tiny", "messages": HELLO, "stop": "London"}
    response = HTTP.post(
        said.url + "/v1/chat/completions", json=body, headers={"x-sim-fault": "abort:2"}
    )
    answer = response.json()["choices"][0]
    assert (answer["finish_reason"], answer["stop_reason"]) == ("abort", None)
