"""The `context_length_<server>` faults: other servers' context-length refusals, byte for
byte as those servers send them (`router.simulator.servers`), whatever the profile."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from router.simulator import SimThread

ASK = {"model": "tiny", "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 9}


def refusal(sim: SimThread, fault: str) -> httpx.Response:
    headers = {"x-sim-fault": fault}
    with httpx.Client(trust_env=False) as http:
        return http.post(sim.url + "/v1/chat/completions", json=ASK, headers=headers)


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_each_servers_refusal_whatever_the_profile(
    start_sim: Callable[..., SimThread], profile: str
) -> None:
    sim = start_sim(profile=profile, max_model_len=512)
    sglang = refusal(sim, "context_length_sglang")
    assert sglang.status_code == 400
    assert sglang.json() == {  # flat: no `error` envelope
        "object": "error",
        "message": "The input (513 tokens) is longer than the model's context length (512 tokens).",
        "type": "BadRequestError",
        "param": None,
        "code": 400,
    }
    llama = refusal(sim, "context_length_llamacpp")
    assert llama.status_code == 400
    assert llama.json()["error"] == {
        "code": 400,
        "message": "request (513 tokens) exceeds the available context size (512 tokens), "
        "try increasing it",
        "type": "exceed_context_size_error",
        "n_prompt_tokens": 513,
        "n_ctx": 512,
    }
    tgi = refusal(sim, "context_length_tgi")
    assert tgi.status_code == 422
    assert tgi.json() == {
        "error": "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 512. "
        "Given: 513 `inputs` tokens and 9 `max_new_tokens`",
        "error_type": "validation",
    }
