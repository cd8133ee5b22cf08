"""The simulator's test aids, driven over HTTP: scripted replies, held requests, kept
request bodies, the in-flight peak and repeatable bytes."""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from router.simulator import SimSettings, SimThread
from router.simulator.canary import Case
from tests.harness import wait_until

MODEL = "tiny"
HTTP = httpx.Client(trust_env=False, timeout=10)
MATH = Case("What is 20 + 22?", "math", "It is \\boxed{42}.")


def ask(sim: SimThread, text: str, **extra: Any) -> httpx.Response:
    body = {"model": MODEL, "messages": [{"role": "user", "content": text}]} | extra
    return HTTP.post(sim.url + "/v1/chat/completions", json=body)


def said(sim: SimThread, text: str, **extra: Any) -> str:
    return str(ask(sim, text, **extra).json()["choices"][0]["message"]["content"])


def streamed_text(response: httpx.Response) -> str:
    """The content deltas of a chat stream, joined."""
    lines = [line[6:] for line in response.text.splitlines() if line.startswith("data: {")]
    return "".join(
        choice["delta"].get("content") or ""
        for line in lines
        for choice in json.loads(line)["choices"]
    )


def test_a_scripted_reply_comes_before_canary_and_composed_answers(
    start_sim: Callable[..., SimThread],
) -> None:
    sim = start_sim(cases=[MATH], replies={"  What is 20 + 22?\n": "It is \\boxed{41}."})
    assert said(sim, MATH.prompt) == "It is \\boxed{41}."  # not the canary's reference
    tools = [{"type": "function", "function": {"name": "f", "parameters": {}}}]
    assert said(sim, MATH.prompt, tools=tools) == "It is \\boxed{41}."  # text, not a call
    composed = said(sim, "Tell me a story")
    assert streamed_text(ask(sim, MATH.prompt, stream=True)) == "It is \\boxed{41}."

    state = HTTP.post(sim.url + "/sim/replies", json={"Tell me a story": "Once."}).json()
    assert state["replies"] == 2
    assert said(sim, "Tell me a story") == "Once."
    HTTP.post(sim.url + "/sim/replies", json={MATH.prompt: None, "Tell me a story": None})
    assert said(sim, MATH.prompt) == MATH.reference  # the canary answer again
    assert said(sim, "Tell me a story") == composed
    HTTP.post(sim.url + "/sim/replies", json={"Tell me a story": "Once."})
    HTTP.post(sim.url + "/sim/reset")  # back to the settings' replies
    assert said(sim, MATH.prompt) == "It is \\boxed{41}."
    assert said(sim, "Tell me a story") == composed


WEATHER = "What is the weather in Paris?"
FUNCTION = {"name": "get_weather", "parameters": {"type": "object", "properties": {}}}


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_a_forced_tool_call_is_not_replaced_by_a_scripted_reply(
    start_sim: Callable[..., SimThread], profile: str
) -> None:
    """`tool_choice: "required"` gets a call from vLLM and OpenAI whatever the prompt."""
    sim = start_sim(profile=profile, replies={WEATHER: "It is sunny."})
    tools = [{"type": "function", "function": FUNCTION}]
    message = ask(sim, WEATHER, tools=tools, tool_choice="required").json()["choices"][0]
    assert [c["function"]["name"] for c in message["message"]["tool_calls"]] == ["get_weather"]
    assert "It is sunny" not in str(message)
    body = {"model": MODEL, "input": WEATHER, "tools": [{"type": "function"} | FUNCTION]}
    output = HTTP.post(sim.url + "/v1/responses", json=body | {"tool_choice": "required"})
    assert [item["type"] for item in output.json()["output"]] == ["function_call"]
    assert said(sim, WEATHER, tools=tools) == "It is sunny."  # "auto": the script holds


@pytest.mark.parametrize("choice", [{"type": "any"}, {"type": "tool", "name": "get_weather"}])
def test_a_forced_anthropic_tool_use_is_not_replaced_by_a_scripted_reply(
    start_sim: Callable[..., SimThread], choice: dict[str, str]
) -> None:
    sim = start_sim(profile="anthropic", replies={WEATHER: "It is sunny."})
    tool = {"name": "get_weather", "input_schema": FUNCTION["parameters"]}
    body = {"model": MODEL, "max_tokens": 50, "tools": [tool], "tool_choice": choice}
    body["messages"] = [{"role": "user", "content": WEATHER}]
    headers = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
    reply = HTTP.post(sim.url + "/v1/messages", json=body, headers=headers).json()
    assert [block["type"] for block in reply["content"]] == ["tool_use"]
    assert reply["stop_reason"] == "tool_use"


def test_a_scripted_reply_is_cut_at_max_tokens_like_any_answer(
    start_sim: Callable[..., SimThread],
) -> None:
    sim = start_sim(replies={"long": "word " * 50})
    reply = ask(sim, "long", max_tokens=5).json()
    assert reply["choices"][0]["finish_reason"] == "length"
    assert reply["usage"]["completion_tokens"] == 5


def test_bad_replies_are_refused_with_a_message(start_sim: Callable[..., SimThread]) -> None:
    sim = start_sim()
    refused = HTTP.post(sim.url + "/sim/replies", json={"p": 3})
    assert refused.status_code == 400
    assert "replies must map prompt texts" in refused.json()["error"]["message"]
    with pytest.raises(ValueError, match="replies must map"):
        SimSettings(replies={"p": 3})  # type: ignore[dict-item]


def stats(sim: SimThread) -> dict[str, Any]:
    result: dict[str, Any] = HTTP.get(sim.url + "/sim/stats").json()
    return result


def test_held_requests_take_no_slot_and_a_client_that_leaves_is_let_go(
    start_sim: Callable[..., SimThread],
) -> None:
    sim = start_sim(max_num_seqs=1)
    HTTP.post(sim.url + "/sim/faults", json={"fault": "hold"})  # every request, from now
    with ThreadPoolExecutor(3) as pool:
        kept = [pool.submit(ask, sim, "Tell me a story") for _ in range(2)]
        assert wait_until(lambda: stats(sim)["held"] == 2)
        assert (stats(sim)["running"], stats(sim)["waiting"]) == (0, 0)  # not admitted
        with pytest.raises(httpx.ReadTimeout):  # a client that gives up
            httpx.post(
                sim.url + "/v1/chat/completions",
                json={"model": MODEL, "messages": [{"role": "user", "content": "hi"}]},
                timeout=httpx.Timeout(5, read=0.3),
            )
        assert wait_until(lambda: stats(sim)["held"] == 2)  # the third left and is not held
        HTTP.post(sim.url + "/sim/faults", json={"fault": None})
        assert HTTP.post(sim.url + "/sim/release").json()["held"] == 0
        assert [k.result(timeout=10).status_code for k in kept] == [200, 200]
    assert stats(sim)["by_fault"] == {"hold": 3}


def test_the_last_request_bodies_are_kept_only_when_asked(
    start_sim: Callable[..., SimThread],
) -> None:
    keeper = start_sim(keep_requests=2)
    for seed in (1, 2, 3):
        ask(keeper, "Tell me a story", seed=seed, chat_template_kwargs={"x": seed})
    kept = stats(keeper)["recent_requests"]
    assert [(b["seed"], b["chat_template_kwargs"]) for b in kept] == [(2, {"x": 2}), (3, {"x": 3})]
    HTTP.post(keeper.url + "/sim/reset")
    assert stats(keeper)["recent_requests"] == []
    quiet = start_sim()
    ask(quiet, "Tell me a story")
    assert "recent_requests" not in stats(quiet)


def test_the_in_flight_peak_counts_held_requests_and_outlives_them(
    start_sim: Callable[..., SimThread],
) -> None:
    sim = start_sim(fault="hold")
    with ThreadPoolExecutor(3) as pool:
        held = [pool.submit(ask, sim, "Tell me a story") for _ in range(3)]
        assert wait_until(lambda: stats(sim)["held"] == 3)
        assert (stats(sim)["in_flight"], stats(sim)["peak_in_flight"]) == (3, 3)
        HTTP.post(sim.url + "/sim/reset")  # the held requests are still in flight
        assert stats(sim)["peak_in_flight"] == 3
        HTTP.post(sim.url + "/sim/release")
        assert [k.result(timeout=10).status_code for k in held] == [200] * 3
    assert (stats(sim)["in_flight"], stats(sim)["peak_in_flight"]) == (0, 3)
    HTTP.post(sim.url + "/sim/reset")
    assert stats(sim)["peak_in_flight"] == 0


@pytest.mark.parametrize(
    ("profile", "path"),
    [("vllm", "/v1/chat/completions"), ("cloud", "/v1/responses"), ("anthropic", "/v1/messages")],
)
@pytest.mark.parametrize("stream", [False, True])
def test_repeatable_gives_the_same_request_the_same_bytes(
    start_sim: Callable[..., SimThread], profile: str, path: str, stream: bool
) -> None:
    tools = [{"type": "function", "function": {"name": "f", "parameters": {}}}]
    # Responses' output limit is `max_output_tokens`: OpenAI refuses `max_tokens` there
    limit = "max_output_tokens" if path == "/v1/responses" else "max_tokens"
    body: dict[str, Any] = {"model": MODEL, limit: 64, "stream": stream}
    if path == "/v1/responses":
        body |= {"input": "Call the tool.", "tools": [{"type": "function", "name": "f"}]}
    elif path == "/v1/messages":
        body |= {"messages": [{"role": "user", "content": "Call the tool."}]}
        body["tools"] = [{"name": "f", "input_schema": {"type": "object"}}]
    else:
        body |= {"messages": [{"role": "user", "content": "Call the tool."}], "tools": tools}

    def replies(sim: SimThread, sent: dict[str, Any]) -> list[tuple[bytes, str | None]]:
        out = []
        for _ in range(2):
            reply = HTTP.post(sim.url + path, json=sent, headers={"x-api-key": "k"})
            assert reply.status_code == 200, reply.text
            ids = reply.headers.get("x-request-id") or reply.headers.get("request-id")
            out.append((reply.content, ids))
        return out

    same = start_sim(profile=profile, repeatable=True)
    first, again = replies(same, body)
    assert first == again
    assert b"1767225600" in first[0] or profile == "anthropic"  # Messages carry no time
    other, _ = replies(same, body | {limit: 65})
    assert other[0] != first[0]  # ids follow the request
    assert other[1] != first[1] or profile == "vllm"  # (vLLM sends no request-id header)
    moving = start_sim(profile=profile)
    assert len(set(replies(moving, body))) == 2  # by default, ids run on and time moves


def test_hang_metrics_leaves_metrics_unanswered_and_health_answering(
    start_sim: Callable[..., SimThread],
) -> None:
    """A wedged `/metrics` exporter: read, never answered, while `/health` and completions
    answer; false (or `POST /sim/reset`) answers again, and a value that is no bool is a
    400 naming the field."""
    sim = start_sim(profile="vllm")
    assert HTTP.post(sim.url + "/sim/faults", json={"hang_metrics": True}).json()["hang_metrics"]
    with pytest.raises(httpx.ReadTimeout):
        HTTP.get(sim.url + "/metrics", timeout=0.5)
    assert HTTP.get(sim.url + "/health").status_code == 200
    assert said(sim, "Tell me a story")
    HTTP.post(sim.url + "/sim/faults", json={"hang_metrics": False})
    assert "vllm:num_requests_waiting" in HTTP.get(sim.url + "/metrics").text
    HTTP.post(sim.url + "/sim/faults", json={"hang_metrics": True})
    assert HTTP.post(sim.url + "/sim/reset").json()["hang_metrics"] is False
    assert HTTP.get(sim.url + "/metrics").status_code == 200
    refused = HTTP.post(sim.url + "/sim/faults", json={"hang_metrics": "yes"})
    assert refused.status_code == 400 and "hang_metrics" in refused.text
