"""The cloud profile plays OpenAI, which serves `/v1/completions` for its completions models
only (gpt-3.5-turbo-instruct, davinci-002, babbage-002): a chat model's is a 404 in OpenAI's
words (as its clients quote it: tmc/langchaingo#201, hegelai/prompttools#115). It served
them for any model, so demo mode and the tests had a cloud OpenAI never was, one that hid the
router sending a Text Completion request to gpt-4o-mini (found live)."""

from __future__ import annotations

from collections.abc import Callable

import openai
import pytest

from router.simulator import SimThread
from tests.simulator.calls import client

REFUSED = {
    "message": "This is a chat model and not supported in the v1/completions endpoint. "
    "Did you mean to use v1/chat/completions?",
    "type": "invalid_request_error",
    "param": "model",
    "code": None,
}


@pytest.mark.parametrize("stream", [False, True])
def test_a_chat_model_refuses_completions_as_openai_does(
    start_sim: Callable[..., SimThread], stream: bool
) -> None:
    sim = start_sim(profile="cloud", model="gpt-4o-mini")
    with pytest.raises(openai.NotFoundError) as refused:
        client(sim).completions.create(model="gpt-4o-mini", prompt="Once upon", stream=stream)
    assert refused.value.body == REFUSED
    done = client(sim).chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": "Once upon"}]
    )
    assert done.choices[0].message.content  # chat it serves


@pytest.mark.parametrize("model", ["gpt-3.5-turbo-instruct", "davinci-002", "babbage-002"])
def test_a_completions_model_serves_them(start_sim: Callable[..., SimThread], model: str) -> None:
    done = client(start_sim(profile="cloud", model=model)).completions.create(
        model=model, prompt="Once upon", max_tokens=3
    )
    assert done.choices[0].text


def test_vllm_serves_completions_for_any_model(start_sim: Callable[..., SimThread]) -> None:
    done = client(start_sim(profile="vllm", model="gpt-4o-mini")).completions.create(
        model="gpt-4o-mini", prompt="Once upon", max_tokens=3
    )
    assert done.choices[0].text
