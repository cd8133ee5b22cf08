"""The cloud profile refuses a top-level argument OpenAI does not know, in OpenAI's words
(`router.simulator.unknown_arguments`); the vllm profile takes it, as vLLM does. The
simulator took any, so a router passing grok-cli's `search_parameters` on to OpenAI passed
every test in demo mode."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import openai
import pytest
from openai.types.chat import completion_create_params
from openai.types.responses import input_token_count_params, response_create_params

from router.simulator import SimThread
from router.simulator.unknown_arguments import (
    CHAT_ARGUMENTS,
    COUNT_ARGUMENTS,
    RESPONSES_ARGUMENTS,
)

HI: Any = [{"role": "user", "content": "Hi"}]
# vLLM's sampling extras and grok-cli's search field: no OpenAI argument among them
FOREIGN = {
    "top_k": 20,
    "min_p": 0.05,
    "repetition_penalty": 1.1,
    "chat_template_kwargs": {"enable_thinking": False},
    "search_parameters": {"mode": "auto"},
}


def _client(sim: SimThread) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{sim.url}/v1", api_key="x", max_retries=0)


def _error(message: str, param: str | None, code: str | None) -> dict[str, Any]:
    return {
        "error": {"message": message, "type": "invalid_request_error", "param": param, "code": code}
    }


@pytest.mark.parametrize(
    ("asked", "message"),
    [
        (  # grok-cli's, as a search asked for (xAI's Live Search)
            {"search_parameters": {"mode": "auto"}},
            "Unrecognized request argument supplied: search_parameters",
        ),
        (  # xlinx/sd-webui-decadetw-auto-prompt-llm#29, word for word
            {"top_k": 40},
            "Unrecognized request argument supplied: top_k",
        ),
        (  # a null is sent too
            {"min_p": None},
            "Unrecognized request argument supplied: min_p",
        ),
        (  # several: named at once, sorted (tbxark/ChatGPT-Telegram-Workers#5)
            {"top_k": 40, "repetition_penalty": 1.1, "chat_template_kwargs": {}},
            "Unrecognized request arguments supplied: chat_template_kwargs,"
            " repetition_penalty, top_k",
        ),
    ],
)
def test_the_cloud_profile_refuses_an_unknown_chat_argument(
    start_sim: Callable[..., SimThread], asked: dict[str, Any], message: str
) -> None:
    """It answered 200 to each of these; OpenAI answers 400 with a null param and code."""
    sdk = _client(start_sim(profile="cloud"))
    with pytest.raises(openai.BadRequestError) as refused:
        sdk.chat.completions.create(model="tiny", messages=HI, extra_body=asked)
    assert refused.value.response.json() == _error(message, None, None)


def test_the_cloud_profile_refuses_the_unknown_before_the_wrong_kind(
    start_sim: Callable[..., SimThread],
) -> None:
    sdk = _client(start_sim(profile="cloud"))
    with pytest.raises(openai.BadRequestError) as refused:
        sdk.chat.completions.create(
            model="tiny", messages=HI, extra_body={"top_k": 1, "max_tokens": "x"}
        )
    assert refused.value.response.json() == _error(
        "Unrecognized request argument supplied: top_k", None, None
    )


@pytest.mark.parametrize(
    ("asked", "param"),
    [
        ({"stop": ["\n"]}, "stop"),  # a chat argument (openJiuwen-ai/agent-core#768)
        ({"max_tokens": 16}, "max_tokens"),
        ({"top_k": 40, "min_p": 0.1}, "top_k"),  # the first in the body
        ({"search_parameters": {"mode": "on"}}, "search_parameters"),
    ],
)
def test_the_cloud_profile_refuses_an_unknown_responses_argument(
    start_sim: Callable[..., SimThread], asked: dict[str, Any], param: str
) -> None:
    sdk = _client(start_sim(profile="cloud"))
    with pytest.raises(openai.BadRequestError) as refused:
        sdk.responses.create(model="tiny", input="Hi", extra_body=asked)
    expected = _error(f"Unknown parameter: '{param}'.", param, "unknown_parameter")
    assert refused.value.response.json() == expected


@pytest.mark.parametrize(
    ("asked", "param"),
    [
        ({"max_output_tokens": 100}, "max_output_tokens"),  # a create's, not a count's
        ({"store": False, "stream": True}, "store"),
        ({"metadata": {"a": "b"}}, "metadata"),
    ],
)
def test_the_cloud_profile_refuses_an_argument_its_count_does_not_take(
    start_sim: Callable[..., SimThread], asked: dict[str, Any], param: str
) -> None:
    """Its `/v1/responses/input_tokens` took a create's whole body: a router that forwarded
    one there passed in demo mode."""
    sdk = _client(start_sim(profile="cloud"))
    with pytest.raises(openai.BadRequestError) as refused:
        sdk.responses.input_tokens.count(model="tiny", input="Hi", extra_body=asked)
    expected = _error(f"Unknown parameter: '{param}'.", param, "unknown_parameter")
    assert refused.value.response.json() == expected
    counted = sdk.responses.input_tokens.count(
        model="tiny", input="Hi", instructions="Be terse.", truncation="auto", tools=[]
    )
    assert counted.input_tokens > 0


def test_the_cloud_profile_takes_every_argument_the_sdk_sends(
    start_sim: Callable[..., SimThread],
) -> None:
    """The SDK's own arguments pass the check (a refusal of their values aside)."""
    sdk = _client(start_sim(profile="cloud"))
    chat = sdk.chat.completions.create(
        model="tiny", messages=HI, seed=1, n=1, user="u", top_p=1, stop=["\n\n"], store=False
    )
    assert chat.choices[0].finish_reason in ("stop", "length")
    reply = sdk.responses.create(
        model="tiny", input="Hi", top_p=1, user="u", store=False, truncation="auto"
    )
    assert reply.status == "completed"


def test_the_vllm_profile_takes_vllms_extras_and_unknown_fields(
    start_sim: Callable[..., SimThread],
) -> None:
    """vLLM reads its extras and lets an unknown field go with a warning: no 400."""
    sdk = _client(start_sim(profile="vllm"))
    chat = sdk.chat.completions.create(model="tiny", messages=HI, extra_body=FOREIGN)
    assert chat.choices[0].message.content
    reply = sdk.responses.create(model="tiny", input="Hi", extra_body=FOREIGN)
    assert reply.status == "completed"


@pytest.mark.parametrize(
    ("table", "params"),
    [
        (CHAT_ARGUMENTS, completion_create_params.CompletionCreateParamsStreaming),
        (RESPONSES_ARGUMENTS, response_create_params.ResponseCreateParamsStreaming),
        (COUNT_ARGUMENTS, input_token_count_params.InputTokenCountParams),
    ],
)
def test_the_known_arguments_are_the_sdks(table: frozenset[str], params: Any) -> None:
    """An argument a newer SDK adds is one the table must learn (and one it drops, refuse)."""
    assert table == set(params.__annotations__)
