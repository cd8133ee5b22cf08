"""vLLM's `echo` on `/v1/completions`, as vLLM 0.32.0 serves it (its `serving_completion`,
and the CPU build run beside the simulator in review): the prompt comes back before the
generated text, in the whole choice and in a stream's first chunk; with `max_tokens: 0`
(`echo_without_generation`, lm-eval's request for a prompt's log probabilities) the prompt
alone, `finish_reason` "length", and one completion token in the usage: vLLM generates one
token (its sampling `max_tokens=1`), counts it and does not show it. The simulator refused
`max_tokens: 0` whatever `echo` said and left the prompt out (found in review). Without
`echo`, 0 is refused as vLLM refuses it. The cloud profile reads no `echo`, as before."""

from __future__ import annotations

from collections.abc import Callable

import openai
import pytest

from router.simulator import SimThread
from tests.echo_zero import echo_nothing_streamed

PROMPT = "The capital of France is"
INSTRUCT = "gpt-3.5-turbo-instruct"  # what OpenAI serves `/v1/completions` for


def _sdk(sim: SimThread) -> openai.OpenAI:
    return openai.OpenAI(base_url=sim.url + "/v1", api_key="x", max_retries=0)


def test_echo_with_max_tokens_0_is_the_prompt_alone(vllm: SimThread) -> None:
    done = _sdk(vllm).completions.create(model="tiny", prompt=PROMPT, max_tokens=0, echo=True)
    (choice,) = done.choices
    assert (choice.text, choice.finish_reason) == (PROMPT, "length")
    assert done.usage is not None and done.usage.completion_tokens == 1
    assert done.usage.total_tokens == done.usage.prompt_tokens + 1


def test_echo_with_max_tokens_0_streamed_is_one_chunk_of_the_prompt(vllm: SimThread) -> None:
    chunks = echo_nothing_streamed(_sdk(vllm), "tiny", PROMPT)
    said = [(chunk.choices[0].text, chunk.choices[0].finish_reason) for chunk in chunks[:-1]]
    assert said == [(PROMPT, "length")]
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    assert chunks[-1].usage.completion_tokens == 1


@pytest.mark.parametrize("stream", [False, True])
def test_echo_puts_the_prompt_before_what_is_generated(vllm: SimThread, stream: bool) -> None:
    sdk = _sdk(vllm)
    alone = sdk.completions.create(model="tiny", prompt=PROMPT, max_tokens=5).choices[0].text
    if stream:
        pieces = sdk.completions.create(
            model="tiny", prompt=PROMPT, max_tokens=5, echo=True, stream=True
        )
        text = "".join(chunk.choices[0].text for chunk in pieces if chunk.choices)
    else:
        text = sdk.completions.create(model="tiny", prompt=PROMPT, max_tokens=5, echo=True)
        text = text.choices[0].text
    assert text == PROMPT + alone


@pytest.mark.parametrize(("limit", "echo"), [(0, False), (-1, True)])
def test_a_limit_below_1_is_refused_but_0_with_echo(
    vllm: SimThread, limit: int, echo: bool
) -> None:
    with pytest.raises(openai.BadRequestError) as refused:
        _sdk(vllm).completions.create(model="tiny", prompt=PROMPT, max_tokens=limit, echo=echo)
    assert f"max_tokens must be at least 1, got {limit}." in refused.value.message


@pytest.mark.parametrize("echo", [1, 1.0, "true", "Yes", "on"])
def test_echo_is_read_as_vllms_pydantic_model_reads_a_bool(vllm: SimThread, echo: object) -> None:
    """vLLM's `echo: bool | None` in pydantic's lax mode: `1` and "true" are true. Read as
    `true` alone, `echo: 1` was generation and its `max_tokens: 0` refused (found in review)."""
    sdk = _sdk(vllm)
    done = sdk.completions.create(
        model="tiny", prompt=PROMPT, max_tokens=0, extra_body={"echo": echo}
    )
    assert (done.choices[0].text, done.choices[0].finish_reason) == (PROMPT, "length")


def test_the_cloud_profile_reads_no_echo(start_sim: Callable[..., SimThread]) -> None:
    """Of a completions model: OpenAI's chat models serve no `/v1/completions`."""
    sdk = _sdk(start_sim(profile="cloud", model=INSTRUCT))
    done = sdk.completions.create(model=INSTRUCT, prompt=PROMPT, max_tokens=5, echo=True)
    assert not done.choices[0].text.startswith(PROMPT)
    with pytest.raises(openai.BadRequestError):
        sdk.completions.create(model=INSTRUCT, prompt=PROMPT, max_tokens=0, echo=True)
