"""Chat completions' `logprobs: true` / `top_logprobs: N` on the simulator, through the
official `openai` SDK: `choices[].logprobs.content` as vLLM 0.32 and OpenAI write it, whole
and streamed (`router.simulator.chat_logprobs`), and the bounds each enforces.

guidance always asks `logprobs: true, top_logprobs: 5`; the simulator answered
`logprobs: null` whatever was asked (found running guidance through the router)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import openai
import pytest

from router.simulator import SimThread

ASK: Any = [{"role": "user", "content": "Tell me about the weather in Paris."}]
TOOLS: Any = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]
HTTP = httpx.Client(trust_env=False, timeout=30)
PROFILES = ("vllm", "cloud")


def _sdk(sim: SimThread) -> openai.OpenAI:
    return openai.OpenAI(base_url=sim.url + "/v1", api_key="x", max_retries=0)


def _post(sim: SimThread, body: dict[str, Any]) -> httpx.Response:
    return HTTP.post(sim.url + "/v1/chat/completions", json={"model": "tiny", **body})


def _chunks(sim: SimThread, **asked: Any) -> list[Any]:
    stream = _sdk(sim).chat.completions.create(
        model="tiny", messages=ASK, stream=True, stream_options={"include_usage": True}, **asked
    )
    return list(stream)


def _listed(chunks: list[Any]) -> list[Any]:
    """Every token a stream's chunks list, in order."""
    return [
        t
        for c in chunks
        for choice in c.choices
        if choice.logprobs
        for t in choice.logprobs.content or []
    ]


@pytest.mark.parametrize("profile", PROFILES)
def test_each_token_comes_with_its_logprob_and_its_likeliest(
    start_sim: Callable[..., SimThread], profile: str
) -> None:
    sim = start_sim(profile=profile)
    done = _sdk(sim).chat.completions.create(
        model="tiny", messages=ASK, logprobs=True, top_logprobs=3, max_tokens=8
    )
    (choice,) = done.choices
    assert choice.logprobs is not None and done.usage is not None
    content = choice.logprobs.content or []
    assert "".join(t.token for t in content) == choice.message.content
    assert len(content) == done.usage.completion_tokens == 8
    for token in content:
        assert token.logprob < 0 and token.bytes == list(token.token.encode())
        assert len(token.top_logprobs) == 3  # the answer is greedy: itself the likeliest
        assert (token.top_logprobs[0].token, token.top_logprobs[0].logprob) == (
            token.token,
            token.logprob,
        )
        values = [t.logprob for t in token.top_logprobs]
        assert values == sorted(values, reverse=True)
        assert all(t.bytes == list(t.token.encode()) for t in token.top_logprobs)


@pytest.mark.parametrize(
    ("profile", "keys"), [("vllm", ["content"]), ("cloud", ["content", "refusal"])]
)
def test_the_logprobs_object_is_shaped_as_each_server_writes_it(
    start_sim: Callable[..., SimThread], profile: str, keys: list[str]
) -> None:
    """vLLM's `ChatCompletionLogProbs` has `content` alone; OpenAI adds `refusal: null`;
    each token's fields in their order; `top_logprobs` left out is 0, an empty list."""
    sim = start_sim(profile=profile)
    body = {"messages": ASK, "logprobs": True, "max_tokens": 3}
    logprobs = _post(sim, body).json()["choices"][0]["logprobs"]
    assert list(logprobs) == keys and logprobs.get("refusal", None) is None
    assert [list(t) for t in logprobs["content"]] == [
        ["token", "logprob", "bytes", "top_logprobs"]
    ] * 3
    assert all(t["top_logprobs"] == [] for t in logprobs["content"])


@pytest.mark.parametrize("profile", PROFILES)
def test_without_logprobs_asked_there_are_none(
    start_sim: Callable[..., SimThread], profile: str
) -> None:
    sim = start_sim(profile=profile)
    for asked in ({}, {"logprobs": False}):
        body = {"messages": ASK, "max_tokens": 3, **asked}
        assert _post(sim, body).json()["choices"][0]["logprobs"] is None


@pytest.mark.parametrize("profile", PROFILES)
def test_a_stream_lists_each_chunks_tokens_and_all_the_whole_reply_lists(
    start_sim: Callable[..., SimThread], profile: str
) -> None:
    sim = start_sim(profile=profile)
    asked = {"logprobs": True, "top_logprobs": 2, "max_tokens": 6}
    whole = _sdk(sim).chat.completions.create(model="tiny", messages=ASK, **asked)
    chunks = _chunks(sim, **asked)
    for chunk in chunks:
        for choice in chunk.choices:
            listed = choice.logprobs.content if choice.logprobs else []
            assert "".join(t.token for t in listed or []) == (choice.delta.content or "")
    assert whole.choices[0].logprobs is not None
    assert _listed(chunks) == whole.choices[0].logprobs.content
    usage = chunks[-1].usage
    assert usage is not None and len(_listed(chunks)) == usage.completion_tokens


def test_vllms_stream_opens_with_none_and_openais_with_an_empty_list(
    start_sim: Callable[..., SimThread],
) -> None:
    """vLLM's role chunk has `logprobs: null`; OpenAI's `{"content": [], "refusal": null}`,
    and its finish chunk `logprobs: null`."""
    for profile, opening in (("vllm", None), ("cloud", {"content": [], "refusal": None})):
        sim = start_sim(profile=profile)
        chunks = [c.model_dump() for c in _chunks(sim, logprobs=True, max_tokens=3)]
        assert chunks[0]["choices"][0]["logprobs"] == opening
        ends = [c for c in chunks if c["choices"] and c["choices"][0]["finish_reason"]]
        if profile == "cloud":
            assert [c["choices"][0]["logprobs"] for c in ends] == [None]


def test_vllm_lists_a_token_held_back_for_a_stop_string_in_a_chunk_of_its_own(
    start_sim: Callable[..., SimThread],
) -> None:
    """A token that shows no text yet (it may begin a `stop` string) gets no chunk, but with
    logprobs asked vLLM sends one, its delta empty, so that every token is listed."""
    sim = start_sim(profile="vllm")
    asked: dict[str, Any] = {"logprobs": True, "max_tokens": 8, "stop": ["z" * 30]}
    chunks = _chunks(sim, **asked)
    quiet = [c for c in chunks if c.choices and c.choices[0].delta.content is None]
    listing = [c for c in quiet if c.choices[0].logprobs and c.choices[0].logprobs.content]
    assert listing, "no chunk listed a held-back token"
    usage = chunks[-1].usage
    assert usage is not None and len(_listed(chunks)) == usage.completion_tokens
    # the tokens themselves are listed, not the text they showed then ("")
    said = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert all(t.token for t in _listed(chunks))
    assert "".join(t.token for t in _listed(chunks)) == said


def test_vllm_lists_a_tool_calls_tokens_and_openai_none(
    start_sim: Callable[..., SimThread],
) -> None:
    """vLLM's model writes a call as text its parser reads: those tokens are listed, whole
    and streamed; OpenAI lists no tool call's tokens (`content: []`)."""
    asked: dict[str, Any] = {"tools": TOOLS, "tool_choice": "required", "logprobs": True}
    vllm, cloud = start_sim(profile="vllm"), start_sim(profile="cloud")
    whole = _sdk(vllm).chat.completions.create(model="tiny", messages=ASK, **asked)
    assert whole.choices[0].message.tool_calls and whole.choices[0].logprobs is not None
    assert whole.usage is not None
    listed = whole.choices[0].logprobs.content or []
    assert len(listed) == whole.usage.completion_tokens
    assert "".join(t.token for t in listed).startswith("<tool_call>")
    chunks = _chunks(vllm, **asked)
    assert _listed(chunks) == listed
    # the call's opening shows nothing: its tokens come in chunks of their own, delta empty
    opening = chunks[1].choices[0]
    assert opening.delta.tool_calls is None and opening.delta.content is None
    assert [t.token for t in opening.logprobs.content or []] == ["<tool_call>"]  # type: ignore[union-attr]
    body = {"messages": ASK, **asked}
    assert _post(cloud, body).json()["choices"][0]["logprobs"] == {"content": [], "refusal": None}
    assert _listed(_chunks(cloud, **asked)) == []


def test_the_same_question_gets_the_same_numbers(start_sim: Callable[..., SimThread]) -> None:
    sim = start_sim(profile="vllm")
    body = {"messages": ASK, "logprobs": True, "top_logprobs": 4, "max_tokens": 5}
    first, second = (_post(sim, body).json()["choices"][0]["logprobs"] for _ in range(2))
    assert first == second


VLLM_REFUSALS = {
    "above_max": (
        {"logprobs": True, "top_logprobs": 21},
        "Requested sample logprobs of 21, which is greater than max allowed: 20 "
        "(parameter=logprobs, value=21)",
        "logprobs",
    ),
    "whole_vocabulary": (
        {"logprobs": True, "top_logprobs": -1},
        "Requested sample logprobs of 32000, which is greater than max allowed: 20 "
        "(parameter=logprobs, value=32000)",
        "logprobs",
    ),
    "negative": (
        {"logprobs": True, "top_logprobs": -2},
        "`top_logprobs` must be a positive value or -1. (parameter=top_logprobs, value=-2)",
        "top_logprobs",
    ),
    "not_a_number": (
        {"logprobs": True, "top_logprobs": "3"},
        "`top_logprobs` must be an integer. (parameter=top_logprobs, value=3)",
        "top_logprobs",
    ),
    "without_logprobs": (
        {"top_logprobs": 3},
        "when using `top_logprobs`, `logprobs` must be set to true. (parameter=top_logprobs)",
        "top_logprobs",
    ),
}


@pytest.mark.parametrize("case", VLLM_REFUSALS)
def test_vllm_refuses_what_vllm_refuses(vllm: SimThread, case: str) -> None:
    asked, message, param = VLLM_REFUSALS[case]
    with pytest.raises(openai.BadRequestError) as refused:
        _sdk(vllm).chat.completions.create(model="tiny", messages=ASK, **asked)
    error = refused.value.body
    assert isinstance(error, dict)
    assert (error["message"], error["param"], error["type"]) == (message, param, "BadRequestError")


CLOUD_REFUSALS = {
    "above_max": (
        {"logprobs": True, "top_logprobs": 21},
        "Invalid value for 'top_logprobs': must be less than or equal to 20.",
        "top_logprobs",
        None,
    ),
    "negative": (
        {"logprobs": True, "top_logprobs": -1},
        "Invalid 'top_logprobs': integer below minimum value. Expected a value >= 0, but got -1"
        " instead.",
        "top_logprobs",
        "integer_below_min_value",
    ),
    "without_logprobs": (
        {"top_logprobs": 1},
        "The 'top_logprobs' parameter is only allowed when 'logprobs' is enabled.",
        "top_logprobs",
        None,
    ),
    "logprobs_not_a_boolean": (
        {"logprobs": "x"},
        "Invalid type for 'logprobs': expected a boolean, but got a string instead.",
        "logprobs",
        "invalid_type",
    ),
}


@pytest.mark.parametrize("case", CLOUD_REFUSALS)
def test_the_cloud_refuses_what_openai_refuses(
    start_sim: Callable[..., SimThread], case: str
) -> None:
    asked, message, param, code = CLOUD_REFUSALS[case]
    with pytest.raises(openai.BadRequestError) as refused:
        _sdk(start_sim(profile="cloud")).chat.completions.create(
            model="tiny", messages=ASK, **asked
        )
    error = refused.value.body
    assert isinstance(error, dict)
    assert (error["message"], error["param"], error["code"]) == (message, param, code)
    assert error["type"] == "invalid_request_error"


@pytest.mark.parametrize("profile", PROFILES)
def test_twenty_alternatives_are_the_most_both_list(
    start_sim: Callable[..., SimThread], profile: str
) -> None:
    sim = start_sim(profile=profile)
    done = _sdk(sim).chat.completions.create(
        model="tiny", messages=ASK, logprobs=True, top_logprobs=20, max_tokens=2
    )
    assert done.choices[0].logprobs is not None
    assert [len(t.top_logprobs) for t in done.choices[0].logprobs.content or []] == [20, 20]
