"""`"stream": null` is OpenAI's "not streaming": openai-python types it
`Optional[Literal[False]]` and sends the None a caller passes as null, and vLLM reads it as
`Optional[bool]`. The router refused it as "'stream' must be a boolean" (found running
framework clients). Anthropic's Messages API takes a boolean only, and still says so."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.harness import RunningRouter, config_for, router, sdk, simulator

ASK = [{"role": "user", "content": "write a python function is_prime"}]


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningRouter]:
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        config = config_for({"local": local, "cloud": cloud}, tmp_path_factory.mktemp("null"))
        with router(config) as running:
            yield running


def test_chat_with_stream_none_answers_whole(proxy: RunningRouter) -> None:
    reply = sdk(proxy).chat.completions.create(model="auto", messages=ASK, stream=None)
    assert reply.object == "chat.completion" and reply.choices[0].message.content


def test_completions_with_stream_none_answers_whole(proxy: RunningRouter) -> None:
    reply = sdk(proxy).completions.create(model="auto", prompt="def is_prime(n):", stream=None)
    assert reply.object == "text_completion" and reply.choices[0].text


def test_responses_with_stream_none_answers_whole(proxy: RunningRouter) -> None:
    reply = sdk(proxy).responses.create(model="auto", input="write is_prime", stream=None)
    assert reply.status == "completed" and reply.output_text


def test_messages_still_wants_a_boolean(proxy: RunningRouter) -> None:
    body = {"model": "auto", "max_tokens": 20, "stream": None, "messages": ASK}
    response = httpx.post(f"{proxy.root}/v1/messages", json=body, timeout=30)
    assert response.status_code == 400, response.text
    said = "stream: Input should be a boolean, not null"  # in Anthropic's words
    assert response.json()["error"]["message"] == said
