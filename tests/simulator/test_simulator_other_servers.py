"""The `context_length_<server>` faults: other servers' context-length refusals, byte for
byte as those servers send them (`router.simulator.servers`), whatever the profile; and
`echo_credentials`, a gateway in front of a provider that repeats its request in its errors,
and its variants."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import orjson
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


def test_echo_credentials_repeats_the_requests_keys_and_target(
    start_sim: Callable[..., SimThread],
) -> None:
    """As BerriAI/litellm#24902's gateway, where `error_event` strikes and with its statuses:
    the router's tests (`test_error_secrets`) show none of it reaches a client."""
    sim = start_sim(profile="vllm")
    sent = {"authorization": "Bearer KEY-1", "x-team-token": "TOK-2", "accept": "*/*"}
    said = (
        "the gateway could not serve POST /v1/chat/completions?key=Q-3 with key KEY-1 "
        "(authorization: Bearer KEY-1; x-team-token: TOK-2)"
    )

    def answer(fault: str, stream: bool = False) -> httpx.Response:
        url = sim.url + "/v1/chat/completions?key=Q-3"
        headers = {**sent, "x-sim-fault": fault}
        with httpx.Client(trust_env=False) as http:
            return http.post(url, json={**ASK, "stream": stream}, headers=headers)

    whole = answer("echo_credentials")
    assert whole.status_code == 500 and whole.json()["error"]["message"] == said
    for status in (400, 429, 503):
        assert answer(f"echo_credentials:2:{status}").status_code == status
    events = [
        orjson.loads(line[6:])
        for line in answer("echo_credentials", True).text.split("\n")
        if line.startswith("data: {")
    ]
    assert events[-1]["error"]["message"] == said
    tokens = [e["choices"][0]["delta"].get("content") for e in events[:-1]]
    assert len([t for t in tokens if t]) == 2  # in-band, after two tokens


def test_echo_credentials_variants_name_the_key_or_repeat_it_past_500_characters(
    start_sim: Callable[..., SimThread],
) -> None:
    """`_named`: the key as the error's `type`, another credential as its `code` (in-band
    too); `_long`: the key from character 460 on, through 500; `_page`: that text as a whole
    reply's body, not JSON."""
    sim = start_sim(profile="vllm")
    sent = {"authorization": "Bearer KEY-1-long-enough", "x-team-token": "TOK-2"}

    def answer(fault: str, stream: bool = False) -> httpx.Response:
        headers = {**sent, "x-sim-fault": fault}
        with httpx.Client(trust_env=False) as http:
            body = {**ASK, "stream": stream}
            return http.post(sim.url + "/v1/chat/completions", json=body, headers=headers)

    named = answer("echo_credentials_named:2:400")
    assert named.status_code == 400
    assert named.json()["error"] == {
        "message": "the gateway refused the request",
        "type": "KEY-1-long-enough",
        "param": None,
        "code": "TOK-2",
    }
    event = [
        line for line in answer("echo_credentials_named", True).text.split("\n") if "error" in line
    ]
    assert orjson.loads(event[0][6:])["error"]["code"] == "TOK-2"
    long = answer("echo_credentials_long").json()["error"]["message"]
    assert long[460:].startswith("KEY-1-long-enough KEY-1") and len(long) > 500
    page = answer("echo_credentials_page")
    assert page.status_code == 500 and page.text == long
