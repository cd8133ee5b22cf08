"""A backend's context-length refusal names the client's own field, in the client's API.

The backend names its own API's field: a translated Responses request reaches it as chat,
so its refusal said `messages` (the prompt) or `max_tokens` (the output limit), and a
completions client heard of `messages` too: fields those clients never sent. Through the
official SDKs, against the router over vLLM simulators: one refusing every prompt as too
long (`context_length`), one with a window of 512 tokens that refuses an output limit over
it, as vLLM does.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import anthropic
import openai
import pytest

from tests.canary.servers import router, simulator
from tests.harness import Running, RunningRouter, config_for

HI = [{"role": "user", "content": "Hi"}]
OVER = 600  # over the small backend's window of 512


@pytest.fixture(scope="module")
def small() -> Iterator[Running]:
    """The backend `local-small`: a window of 512 tokens."""
    with simulator(profile="vllm", model="local-small-model", max_model_len=512) as running:
        yield running


@pytest.fixture(scope="module")
def proxy(small: Running, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningRouter]:
    """`model="local-long"`: every prompt too long; `"local-small"`: `small`."""
    with simulator(profile="vllm", model="local-long-model", fault="context_length") as long:
        tmp: Path = tmp_path_factory.mktemp("param")
        with router(config_for({"local-long": long, "local-small": small}, tmp)) as running:
            yield running


def sdk(proxy: RunningRouter) -> openai.OpenAI:
    return openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)


def test_a_prompt_too_long_is_named_as_each_openai_api_names_it(proxy: RunningRouter) -> None:
    """A Responses client was told `param: "messages"` for its `input`, a completions client
    for its `prompt`; the backend's message still comes as it said it."""
    client = sdk(proxy)
    with pytest.raises(openai.BadRequestError) as chat:
        client.chat.completions.create(model="local-long", messages=HI)  # type: ignore[arg-type]
    with pytest.raises(openai.BadRequestError) as completions:
        client.completions.create(model="local-long", prompt="Hi")
    with pytest.raises(openai.BadRequestError) as responses:
        client.responses.create(model="local-long", input="Hi")
    named = {
        "chat": chat.value.param,
        "completions": completions.value.param,
        "responses": responses.value.param,
    }
    assert named == {"chat": "messages", "completions": "prompt", "responses": "input"}
    for caught in (chat, completions, responses):
        assert caught.value.code == "context_length_exceeded"
        assert "maximum context length" in caught.value.message  # vLLM's words


def test_an_output_limit_over_the_window_is_named_as_each_openai_api_names_it(
    proxy: RunningRouter,
) -> None:
    """A Responses client's `max_output_tokens`, sent to chat as `max_tokens`, came back as
    `max_tokens`; chat and completions name theirs already, and still do."""
    client = sdk(proxy)
    with pytest.raises(openai.BadRequestError) as responses:
        client.responses.create(model="local-small", input="Hi", max_output_tokens=OVER)
    with pytest.raises(openai.BadRequestError) as chat:
        client.chat.completions.create(
            model="local-small",
            messages=HI,  # type: ignore[arg-type]
            max_completion_tokens=OVER,
        )
    with pytest.raises(openai.BadRequestError) as completions:
        client.completions.create(model="local-small", prompt="Hi", max_tokens=OVER)
    named = {
        "responses": responses.value.param,
        "chat": chat.value.param,
        "completions": completions.value.param,
    }
    assert named == {
        "responses": "max_output_tokens",
        "chat": "max_completion_tokens",
        "completions": "max_tokens",
    }
    assert "max_tokens=600 cannot be greater than" in responses.value.message  # vLLM's words


def test_a_messages_client_hears_the_backends_words_in_anthropics_envelope(
    proxy: RunningRouter,
) -> None:
    """Anthropic's error envelope has no `param`; its message is the backend's, as sent,
    after Anthropic's own words for the refusal, on which Claude Code acts
    (`router.translate.context_refusal`)."""
    client = anthropic.Anthropic(base_url=proxy.root, api_key="x", max_retries=0)
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.messages.create(model="local-small", max_tokens=OVER, messages=HI)  # type: ignore[arg-type]
    error = caught.value.body["error"]  # type: ignore[index]
    assert error["type"] == "invalid_request_error"
    assert "param" not in error
    assert error["message"].startswith("input length and `max_tokens` exceed context limit")
    backends = error["message"].split("try again. ", 1)[1]
    assert backends.startswith("max_tokens=600 cannot be greater than max_model_len=512")


def test_a_context_error_in_band_names_the_completions_prompt(
    proxy: RunningRouter, small: Running
) -> None:
    """After the commit the refusal comes as an error event in the stream (a context-length
    400 after two tokens): its `param`, which the SDK reads, said `messages` to a
    completions client too."""
    small.control("faults", {"fault": "error_event:2:400"})
    try:
        stream = sdk(proxy).completions.create(model="local-small", prompt="Hi", stream=True)
        with pytest.raises(openai.APIError) as caught:
            for _ in stream:
                pass
    finally:
        small.control("faults", {"fault": None})
    assert (caught.value.code, caught.value.param) == ("context_length_exceeded", "prompt")
