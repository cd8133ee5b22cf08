"""Malformed structured-output requests vLLM 0.32 refuses, which the `vllm` profile
answered (a small JSON object, or prose): each now refused with the body vLLM 0.32.0 sent
for the same request (tests/structured_cases.py), through the official openai SDK. The
four stages vLLM refuses at are router/simulator/structured.py's."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import openai
import pytest

from router.simulator import SimSettings, SimThread
from tests.structured_cases import ASK, CHAT, COMPLETIONS, RESPONSES, rf, so


@pytest.fixture(scope="module")
def sdk() -> Iterator[openai.OpenAI]:
    thread = SimThread(SimSettings(profile="vllm", model="tiny", max_model_len=512))
    thread.start()
    yield openai.OpenAI(base_url=thread.url + "/v1", api_key="x", max_retries=0)
    thread.stop()


@pytest.mark.parametrize(("body", "said"), [c[1:] for c in CHAT], ids=[c[0] for c in CHAT])
def test_chat_refuses_as_vllm_did(
    sdk: openai.OpenAI, body: dict[str, Any], said: dict[str, Any]
) -> None:
    with pytest.raises(openai.APIStatusError) as refusal:
        sdk.chat.completions.create(model="tiny", messages=ASK, max_tokens=5, extra_body=body)
    assert refusal.value.status_code == said["error"]["code"]
    assert refusal.value.response.json() == said


@pytest.mark.parametrize(
    ("body", "said"), [c[1:] for c in COMPLETIONS], ids=[c[0] for c in COMPLETIONS]
)
def test_completions_refuse_as_vllm_did(
    sdk: openai.OpenAI, body: dict[str, Any], said: dict[str, Any]
) -> None:
    with pytest.raises(openai.APIStatusError) as refusal:
        sdk.completions.create(model="tiny", prompt="Hello", max_tokens=5, extra_body=body)
    assert refusal.value.response.json() == said


@pytest.mark.parametrize(
    ("body", "said"), [c[1:] for c in RESPONSES], ids=[c[0] for c in RESPONSES]
)
def test_responses_refuse_as_vllm_did(
    sdk: openai.OpenAI, body: dict[str, Any], said: dict[str, Any]
) -> None:
    with pytest.raises(openai.BadRequestError) as refusal:
        sdk.responses.create(model="tiny", input="Hello", max_output_tokens=20, extra_body=body)
    assert refusal.value.response.json() == said


def test_the_cloud_profile_takes_what_vllm_refuses(start_sim: Callable[..., SimThread]) -> None:
    """OpenAI's own checks are not vLLM's: the cloud profile stays as lenient as it was."""
    cloud = start_sim(profile="cloud")
    client = openai.OpenAI(base_url=cloud.url + "/v1", api_key="x", max_retries=0)
    for body in (rf({"type": "nonsense"}), so({"choice": []}), so("x")):
        reply = client.chat.completions.create(model="tiny", messages=ASK, extra_body=body)
        assert reply.choices[0].message.content
