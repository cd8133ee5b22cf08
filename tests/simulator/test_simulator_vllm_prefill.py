"""vLLM's `continue_final_message` in the simulator's vllm profile: a prefill continued.

vLLM continues the last message (a prefill) when asked with `continue_final_message: true`
and `add_generation_prompt: false`, and answers the new text alone; the two true at once
are refused by its chat request model (`check_generation_prompt`), one left out is true by
default and refused by the chat template's renderer, and a last message not the assistant's
by its Rust chat frontend (`ChatRequest::validate`). Real sockets, raw bytes (httpx).
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from router.simulator import SimThread

HTTP = httpx.Client(trust_env=False, timeout=30)
PREFILLED = [
    {"role": "user", "content": "Describe the router as JSON."},
    {"role": "assistant", "content": "{"},
]
CONTINUE = {"continue_final_message": True, "add_generation_prompt": False}


def chat(sim: SimThread, **fields: Any) -> httpx.Response:
    body = {"model": "tiny", "messages": PREFILLED, **fields}
    return HTTP.post(f"{sim.url}/v1/chat/completions", json=body)


def streamed_text(response: httpx.Response) -> str:
    chunks = [
        json.loads(line[6:]) for line in response.text.splitlines() if line.startswith("data: {")
    ]
    return "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])


def test_a_continued_prefill_is_answered_with_what_follows_it(vllm: SimThread) -> None:
    """The reply holds the continuation alone: the prefill and it make the JSON asked for."""
    whole = chat(vllm, **CONTINUE)
    assert whole.status_code == 200
    text = whole.json()["choices"][0]["message"]["content"]
    assert not text.startswith("{")
    assert isinstance(json.loads("{" + text), dict)
    stream = chat(vllm, **CONTINUE, stream=True)
    assert stream.status_code == 200
    assert streamed_text(stream) == text


def test_a_prefill_not_continued_gets_a_new_turn(vllm: SimThread) -> None:
    """Without the fields the chat template closes the prefill and opens a new turn: the
    answer does not go on from the `{`."""
    text = chat(vllm).json()["choices"][0]["message"]["content"]
    with pytest.raises(json.JSONDecodeError):
        json.loads("{" + text)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (
            {"continue_final_message": True, "add_generation_prompt": True},
            "Cannot set both `continue_final_message` and `add_generation_prompt` to True.",
        ),
        (
            {"continue_final_message": True},  # add_generation_prompt is true by default
            "continue_final_message and add_generation_prompt are not compatible. Use "
            "continue_final_message when you want the model to continue the final message, "
            "and add_generation_prompt when you want to add a header that will prompt it to "
            "start a new assistant message instead.",
        ),
        (
            {**CONTINUE, "messages": PREFILLED[:1]},
            "cannot continue the final message when the last message is not from the assistant",
        ),
    ],
    ids=["both_true", "generation_prompt_by_default", "last_not_assistant"],
)
def test_vllm_refuses_what_it_cannot_continue(
    vllm: SimThread, fields: dict[str, Any], message: str
) -> None:
    refused = chat(vllm, **fields)
    assert refused.status_code == 400
    assert refused.json() == {
        "error": {"message": message, "type": "BadRequestError", "param": None, "code": 400}
    }
