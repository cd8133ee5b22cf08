"""A prompt that fits the window and an output limit that fits it too, but not both together:
vLLM 0.32 serves the request and stops the output where the window ends, on every API it
serves, streamed or not. It is no 400 (the limit alone over the window is: `max_tokens=600
cannot be greater than max_model_len=512`, see test_vllm_formats.py). The simulator's vllm
profile must do the same, or a router test passing on the simulator proves nothing here.

The router's plan is stricter than vLLM here (router.policy `_unfit` skips a backend whose
window cannot hold prompt + max_tokens, reason `max_tokens_window`): these tests pin what
vLLM itself does, so that choice stays one made knowing it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from vllm_process import MAX_MODEL_LEN, MODEL_NAME
from wire_shape import sse_data

# ~505 tokens in vLLM's chat template, ~501 in the simulator's count: a few tokens of room
NEAR = " ".join(["weather"] * 495)
LIMIT = 200  # within the window alone, over it with the prompt
# `ignore_eos` (a vLLM extra) makes the cut certain where honoured (chat, completions,
# responses); /v1/messages drops it, and temperature 0 makes its short answer repeatable.
EXTRA: dict[str, Any] = {"ignore_eos": True, "temperature": 0}
USAGE = {"stream_options": {"include_usage": True}}


@dataclass(frozen=True)
class Outcome:
    """What a client learns of the cut, whatever the API: status, tokens, stop signal."""

    status: int
    prompt_tokens: int
    output_tokens: int
    stop: str | None


def chat(body: dict[str, Any], streamed: bool) -> Outcome:
    if not streamed:
        usage = body["usage"]
        stop = body["choices"][0]["finish_reason"]
        return Outcome(200, usage["prompt_tokens"], usage["completion_tokens"], stop)
    chunks = [c for c in body["events"] if c != "[DONE]"]
    stop = [c["choices"][0]["finish_reason"] for c in chunks if c["choices"]][-1]
    usage = chunks[-1]["usage"]
    return Outcome(200, usage["prompt_tokens"], usage["completion_tokens"], stop)


def responses(body: dict[str, Any], streamed: bool) -> Outcome:
    if streamed:
        body = next(e["response"] for e in body["events"] if e["type"] == "response.completed")
    reason = (body["incomplete_details"] or {}).get("reason")
    usage = body["usage"]
    return Outcome(200, usage["input_tokens"], usage["output_tokens"], reason or body["status"])


def messages(body: dict[str, Any], streamed: bool) -> Outcome:
    if streamed:
        body = next(e for e in body["events"] if e["type"] == "message_delta")
        stop, usage = body["delta"]["stop_reason"], body["usage"]
    else:
        stop, usage = body["stop_reason"], body["usage"]
    return Outcome(200, usage["input_tokens"], usage["output_tokens"], stop)


@dataclass(frozen=True)
class Case:
    path: str
    body: dict[str, Any]
    read: Callable[[dict[str, Any], bool], Outcome]
    cut: str  # the stop signal for "the window ended it"
    natural: str | None = None  # an answer that ended by itself first, where EOS is live


CASES = {
    "chat": Case(
        "/v1/chat/completions",
        {"messages": [{"role": "user", "content": NEAR}], "max_tokens": LIMIT},
        chat,
        "length",
    ),
    "chat_max_completion_tokens": Case(
        "/v1/chat/completions",
        {"messages": [{"role": "user", "content": NEAR}], "max_completion_tokens": LIMIT},
        chat,
        "length",
    ),
    "completions": Case("/v1/completions", {"prompt": NEAR, "max_tokens": LIMIT}, chat, "length"),
    "responses": Case(
        "/v1/responses", {"input": NEAR, "max_output_tokens": LIMIT}, responses, "max_output_tokens"
    ),
    "messages": Case(
        "/v1/messages",
        {"messages": [{"role": "user", "content": NEAR}], "max_tokens": LIMIT},
        messages,
        "max_tokens",
        natural="end_turn",
    ),
}


def ask(base_url: str, case: Case, streamed: bool) -> Outcome | httpx.Response:
    """The request's outcome, or the response itself when it is not a 200."""
    body = {"model": MODEL_NAME, **case.body, **EXTRA}
    if streamed:
        body.update(stream=True, **(USAGE if case.read is chat else {}))
    response = httpx.post(base_url + case.path, json=body, timeout=120)
    if response.status_code != 200:
        return response
    if streamed:
        assert response.headers["content-type"] == "text/event-stream; charset=utf-8"
        return case.read({"events": sse_data(response.text)}, True)
    return case.read(response.json(), False)


def assert_served_and_cut(outcome: Outcome | httpx.Response, case: Case) -> None:
    assert isinstance(outcome, Outcome), (outcome.status_code, outcome.text)
    assert outcome.prompt_tokens < MAX_MODEL_LEN < outcome.prompt_tokens + LIMIT  # the premise
    assert outcome.prompt_tokens + outcome.output_tokens <= MAX_MODEL_LEN
    if outcome.stop == case.natural:
        return
    assert outcome.stop == case.cut
    assert outcome.prompt_tokens + outcome.output_tokens == MAX_MODEL_LEN


@pytest.mark.parametrize("streamed", [False, True], ids=["json", "stream"])
@pytest.mark.parametrize("name", list(CASES))
def test_vllm_serves_prompt_plus_limit_over_the_window_cut_at_the_window(
    vllm_base_url: str, name: str, streamed: bool
) -> None:
    assert_served_and_cut(ask(vllm_base_url, CASES[name], streamed), CASES[name])


@pytest.mark.parametrize("streamed", [False, True], ids=["json", "stream"])
@pytest.mark.parametrize("name", list(CASES))
def test_the_simulator_answers_as_vllm_does(
    vllm_base_url: str, sim: str, name: str, streamed: bool
) -> None:
    real, simulated = ask(vllm_base_url, CASES[name], streamed), ask(sim, CASES[name], streamed)
    assert_served_and_cut(simulated, CASES[name])
    assert isinstance(real, Outcome) and isinstance(simulated, Outcome)
    assert simulated.stop == real.stop
