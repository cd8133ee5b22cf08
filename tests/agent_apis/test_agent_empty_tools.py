"""A chat request's `tools: []` reaches no backend: vLLM (0.32, vllm-project/vllm#39741) and
OpenAI refuse it with a 400, and clients mean no tools by it.

Kimi CLI 1.51.0 sends `"tools": []` on every compaction: on a vLLM backend each one was
refused ("`tools` must not be an empty array. ..."), and the session could go on no further
(found in a live review). The router forwarded the chat body as sent. Real sockets: the
official SDK through the router to the `vllm` simulator, which refuses it as vLLM does
(tests/simulator/test_simulator_vllm_refusals.py). A choice that forces a call with no tool to
call is the client's mistake, and reaches the backend as sent, to be refused there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import openai
import pytest

from router.backends.openai_compatible import OpenAICompatibleBackend
from router.config import Backend
from tests.agent_apis.agent_stack import answered, last_request, openai_client, stack
from tests.harness import Running, RunningRouter

ASK: Any = [{"role": "user", "content": "Summarize our conversation so far."}]
WITH_TOOLS_ONLY = {"tools", "tool_choice", "parallel_tool_calls"}
# What a client may send beside an empty list that forces no call: sent as no tools
NO_TOOLS: list[dict[str, Any]] = [
    {},
    {"tool_choice": "auto"},
    {"tool_choice": "none", "parallel_tool_calls": False},
    {"tool_choice": None, "parallel_tool_calls": True},
]


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("extra", NO_TOOLS)
def test_an_empty_tools_list_reaches_vllm_as_no_tools(
    proxy: RunningRouter, servers: dict[str, Running], extra: dict[str, Any], stream: bool
) -> None:
    """Served, whole and streamed (Kimi CLI streams), the body without the list and the
    fields OpenAI allows only beside tools."""
    kwargs: dict[str, Any] = {"model": "local", "messages": ASK, "tools": [], **extra}
    headers, content = answered(openai_client(proxy), kwargs, stream=stream)
    assert stream or content
    assert headers["x-smf-backend"] == "local"
    body = last_request(servers["local"])
    assert not WITH_TOOLS_ONLY & set(body), body
    assert body["messages"] == ASK


@pytest.mark.parametrize("choice", ["required", {"type": "function", "function": {"name": "f"}}])
def test_a_forced_call_with_no_tools_is_refused_by_the_backend_as_sent(
    proxy: RunningRouter, servers: dict[str, Running], choice: Any
) -> None:
    """Not made a request that forces nothing: the client asked for a call no tool can make,
    and hears so from the backend."""
    with pytest.raises(openai.BadRequestError) as refused:
        openai_client(proxy).chat.completions.create(
            model="local", messages=ASK, tools=[], tool_choice=choice
        )
    assert "`tools` must not be an empty array" in str(refused.value)
    assert (
        last_request(servers["local"])["tools"],
        last_request(servers["local"])["tool_choice"],
    ) == ([], choice)


def test_a_fallback_attempt_gets_no_empty_list_either(
    servers: dict[str, Running], tmp_path: Path
) -> None:
    """The cloud first, failing, then vLLM: the attempt that serves is sent no tools."""
    servers["cloud"].control("faults", {"fault": "server_error"})
    try:
        with stack(servers, tmp_path, ["cloud", "local"]) as proxy:
            raw = openai_client(proxy).chat.completions.with_raw_response.create(
                model="auto", messages=ASK, tools=[], tool_choice="auto"
            )
            assert raw.parse().choices[0].message.content
    finally:
        servers["cloud"].control("faults", {"fault": None})
    assert (raw.headers["x-smf-backend"], raw.headers["x-smf-attempts"]) == ("local", "2")
    assert not WITH_TOOLS_ONLY & set(last_request(servers["local"]))


@pytest.mark.parametrize("base_url", ["https://api.openai.com/v1", "http://spark:8888/v1"])
def test_every_chat_body_a_backend_is_sent_goes_without_it(base_url: str) -> None:
    """What a backend adapter makes of a body (live attempts, fallbacks and shadow replays
    all go through it): an empty list that forces nothing goes, a forcing choice stays, a
    list of tools and the other APIs' bodies go as sent."""
    backend = OpenAICompatibleBackend(Backend(name="b", tier="cloud", base_url=base_url, model="m"))
    base = {"model": "auto", "messages": ASK}
    for extra in NO_TOOLS:
        out = backend.body_for("chat", {**base, "tools": [], **extra})
        assert out == {**base, "model": "m"}
    forced = {**base, "tools": [], "tool_choice": "required", "parallel_tool_calls": False}
    assert backend.body_for("chat", forced) == {**forced, "model": "m"}
    tool = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}
    offered = {**base, "tools": [tool], "tool_choice": "auto", "parallel_tool_calls": False}
    assert backend.body_for("chat", offered) == {**offered, "model": "m"}
    native = {"model": "auto", "input": "hi", "tools": [], "tool_choice": "auto"}
    assert backend.body_for("responses", native) == {**native, "model": "m"}
