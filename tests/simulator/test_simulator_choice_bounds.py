"""The simulator bounds the choices a request asks (`n`) as the server it stands for does:
it builds every choice at once, on the event loop it shares with the demo router, and an `n`
of 2**64 - 1 it read unbounded took that router down (found in review). vLLM refuses more
than `VLLM_MAX_N_SEQUENCES` (16,384 by default) in its sampling check's words
(`vllm/sampling_params.py`, `_verify_num_sequences`: no `parameter`, so a null `param`);
OpenAI more than 128, `integer_above_max_value`. Over HTTP, against a started simulator;
each request over the bound asks one token of each choice, so the old simulator served it
in little memory."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from router.simulator import SimThread

HTTP = httpx.Client(trust_env=False, timeout=60)
ASK = [{"role": "user", "content": "Name a colour."}]
CHAT: Any = {"model": "tiny", "messages": ASK, "max_tokens": 1, "temperature": 1}
COMPLETIONS: Any = {"model": "tiny", "prompt": "Name a colour.", "max_tokens": 1}
PATHS = {"chat": ("/v1/chat/completions", CHAT), "completions": ("/v1/completions", COMPLETIONS)}


def vllm_refusal(n: int) -> dict[str, Any]:
    message = (
        f"n must be at most 16384, got {n}. To increase this limit, set the"
        " VLLM_MAX_N_SEQUENCES environment variable."
    )
    return {"error": {"message": message, "type": "BadRequestError", "param": None, "code": 400}}


def openai_refusal(n: int) -> dict[str, Any]:
    message = (
        f"Invalid 'n': integer above maximum value. Expected a value <= 128, but got {n} instead."
    )
    error = {"message": message, "type": "invalid_request_error", "param": "n"}
    return {"error": error | {"code": "integer_above_max_value"}}


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("api", ["chat", "completions"])
def test_vllm_refuses_more_choices_than_its_limit(vllm: SimThread, api: str, stream: bool) -> None:
    path, body = PATHS[api]
    reply = HTTP.post(vllm.url + path, json=body | {"n": 16385, "stream": stream})
    assert (reply.status_code, reply.json()) == (400, vllm_refusal(16385))


@pytest.mark.parametrize("api", ["chat", "completions"])
def test_openai_refuses_more_than_128(start_sim: Callable[..., SimThread], api: str) -> None:
    # OpenAI's completions serve its completion models alone
    cloud = start_sim(profile="cloud", model="gpt-3.5-turbo-instruct")
    path, body = PATHS[api]
    body = body | {"model": "gpt-3.5-turbo-instruct"}
    reply = HTTP.post(cloud.url + path, json=body | {"n": 129})
    assert (reply.status_code, reply.json()) == (400, openai_refusal(129))
    served = HTTP.post(cloud.url + path, json=body | {"n": 128})
    assert served.status_code == 200 and len(served.json()["choices"]) == 128


def test_vllm_serves_as_many_as_openai_would(vllm: SimThread) -> None:
    """vLLM's bound is its own, far over OpenAI's: 129 choices are served."""
    reply = HTTP.post(vllm.url + "/v1/chat/completions", json=CHAT | {"n": 129})
    assert reply.status_code == 200 and len(reply.json()["choices"]) == 129
