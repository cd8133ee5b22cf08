"""Malformed structured-output requests vLLM 0.32 refuses, which the `vllm` profile
answered (a small JSON object, or prose): each now refused with the body vLLM 0.32.0 sent
for the same request (tests/structured_cases.py), through the official openai SDK. The
four stages vLLM refuses at are router/simulator/structured.py's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import openai
import pytest

from router.simulator import SimThread
from tests.structured_cases import ASK, CHAT, COMPLETIONS, RESPONSES, rf, so

SENDS: dict[str, Callable[[openai.OpenAI, dict[str, Any]], object]] = {
    "chat": lambda sdk, body: sdk.chat.completions.create(
        model="tiny", messages=ASK, max_tokens=5, extra_body=body
    ),
    "completions": lambda sdk, body: sdk.completions.create(
        model="tiny", prompt="Hello", max_tokens=5, extra_body=body
    ),
    "responses": lambda sdk, body: sdk.responses.create(
        model="tiny", input="Hello", max_output_tokens=20, extra_body=body
    ),
}
CASES = [
    (api, *case)
    for api, cases in (("chat", CHAT), ("completions", COMPLETIONS), ("responses", RESPONSES))
    for case in cases
]


@pytest.mark.parametrize(
    ("api", "body", "said"), [(c[0], *c[2:]) for c in CASES], ids=[f"{c[0]}-{c[1]}" for c in CASES]
)
def test_refused_as_vllm_did(
    tiny: SimThread, api: str, body: dict[str, Any], said: dict[str, Any]
) -> None:
    sdk = openai.OpenAI(base_url=tiny.url + "/v1", api_key="x", max_retries=0)
    with pytest.raises(openai.APIStatusError) as refusal:
        SENDS[api](sdk, body)
    assert refusal.value.status_code == said["error"]["code"]
    assert refusal.value.response.json() == said


def test_the_cloud_profile_takes_what_vllm_refuses(start_sim: Callable[..., SimThread]) -> None:
    """OpenAI's own checks are not vLLM's: the cloud profile stays as lenient as it was with
    a `response_format`, and `structured_outputs`, vLLM's own, is an argument OpenAI does
    not know whatever its value (`router.simulator.unknown_arguments`: the test took it
    for one OpenAI serves)."""
    cloud = start_sim(profile="cloud")
    client = openai.OpenAI(base_url=cloud.url + "/v1", api_key="x", max_retries=0)
    reply = client.chat.completions.create(
        model="tiny", messages=ASK, extra_body=rf({"type": "nonsense"})
    )
    assert reply.choices[0].message.content
    for body in (so({"choice": []}), so("x")):
        with pytest.raises(openai.BadRequestError) as refused:
            client.chat.completions.create(model="tiny", messages=ASK, extra_body=body)
        message = "Unrecognized request argument supplied: structured_outputs"
        error = {"message": message, "type": "invalid_request_error", "param": None, "code": None}
        assert refused.value.response.json() == {"error": error}
