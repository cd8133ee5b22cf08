"""An Anthropic prefill (the last turn the assistant's) through the router to chat backends.

Anthropic continues a prefill: `{` forces JSON, and the reply holds what follows the `{`.
Translated to chat it was sent and ignored, so vLLM's chat template closed it and the
client got a whole new reply (found in review). vLLM is now asked to continue it
(`continue_final_message: true`, `add_generation_prompt: false`); OpenAI, which has neither
prefill nor those fields, is sent the messages as before and nothing else. The official
`anthropic` (and `openai`) SDK through the router to the simulators (`local`: vLLM's
profile; `cloud`: OpenAI's), both speaking chat only: what each got is its `last_request`.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.agent_apis.agent_stack import anthropic_client, openai_client
from tests.harness import Running, RunningRouter

ASK = {"role": "user", "content": "Describe the router as a JSON object."}
PREFILLED: Any = [ASK, {"role": "assistant", "content": "{"}]
FIELDS = ("continue_final_message", "add_generation_prompt")


def sent(sims: dict[str, Running], name: str) -> dict[str, Any]:
    body: dict[str, Any] = sims[name].stats()["last_request"]
    return body


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_vllm_continues_a_prefill_and_answers_what_follows_it(
    chat_proxy: RunningRouter, chat_sims: dict[str, Running], stream: bool
) -> None:
    client = anthropic_client(chat_proxy)
    if stream:
        with client.messages.stream(model="local", max_tokens=200, messages=PREFILLED) as s:
            message = s.get_final_message()
    else:
        message = client.messages.create(model="local", max_tokens=200, messages=PREFILLED)
    body = sent(chat_sims, "local")
    assert body["continue_final_message"] is True
    assert body["add_generation_prompt"] is False
    assert body["messages"][-1] == {"role": "assistant", "content": "{"}
    assert message.content[0].type == "text"
    text = message.content[0].text
    assert not text.startswith("{")  # the continuation alone, as Anthropic answers
    assert isinstance(json.loads("{" + text), dict)


@pytest.mark.parametrize(
    "messages",
    [
        [ASK],
        [ASK, {"role": "assistant", "content": "Sure."}, {"role": "user", "content": "Go on."}],
        # only a thinking block: nothing left to continue, the turn is dropped
        [ASK, {"role": "assistant", "content": [{"type": "thinking", "thinking": "hm"}]}],
    ],
    ids=["ask", "turns", "thinking_only"],
)
def test_vllm_is_asked_nothing_without_a_prefill(
    chat_proxy: RunningRouter, chat_sims: dict[str, Running], messages: Any
) -> None:
    anthropic_client(chat_proxy).messages.create(model="local", max_tokens=50, messages=messages)
    body = sent(chat_sims, "local")
    assert not set(FIELDS) & set(body)
    assert body["messages"][-1]["role"] == "user"


def test_a_cloud_chat_api_gets_the_prefill_as_before_and_no_vllm_fields(
    chat_proxy: RunningRouter, chat_sims: dict[str, Running]
) -> None:
    """OpenAI has no prefill and refuses an argument it does not know: the prefill ends the
    messages, as it did, and the model writes a turn of its own after it."""
    message = anthropic_client(chat_proxy).messages.create(
        model="cloud", max_tokens=200, messages=PREFILLED
    )
    body = sent(chat_sims, "cloud")
    assert not set(FIELDS) & set(body)
    assert body["messages"][-1] == {"role": "assistant", "content": "{"}
    assert message.content[0].type == "text" and message.content[0].text


def test_a_responses_input_ending_with_the_assistant_is_no_prefill(
    chat_proxy: RunningRouter, chat_sims: dict[str, Running]
) -> None:
    """Neither OpenAI's Responses API nor vLLM's own continues an assistant message that ends
    the input: it writes a new output message, and so does its translation."""
    openai_client(chat_proxy).responses.create(
        model="local",
        input=[ASK, {"role": "assistant", "content": "{"}],  # type: ignore[list-item]
        max_output_tokens=50,
    )
    body = sent(chat_sims, "local")
    assert not set(FIELDS) & set(body)
    assert body["messages"][-1] == {"role": "assistant", "content": "{"}
