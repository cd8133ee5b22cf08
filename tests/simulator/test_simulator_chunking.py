"""`tokens_per_chunk`: a busy vLLM packs several tokens into one streamed delta.

Clients must not count chunks as tokens; these tests check the simulator can make them
wrong, on every API, while usage, text and the chunk-shape sequence stay right. Also the
profile boundaries: the cloud profile keeps OpenAI's headers; and a long stream's first
token goes out before its last one is made, as from a real server.
"""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from router.simulator import SimSettings, SimThread
from router.simulator.__main__ import parser, settings_from

HTTP = httpx.Client(trust_env=False, timeout=30)
ASK = [{"role": "user", "content": "What is the weather like in Paris today?"}]


def data(raw: str) -> list[Any]:
    return [
        json.loads(line[6:])
        for line in raw.splitlines()
        if line.startswith("data: ") and line != "data: [DONE]"
    ]


def post(sim: SimThread, path: str, body: dict[str, Any]) -> httpx.Response:
    return HTTP.post(sim.url + path, json={"model": "tiny"} | body)


def test_chat_deltas_pack_three_tokens_and_usage_still_counts_tokens(
    start_sim: Callable[..., SimThread],
) -> None:
    sim = start_sim(max_model_len=512, tokens_per_chunk=3)
    body = {"messages": ASK, "max_tokens": 7, "ignore_eos": True}
    whole = post(sim, "/v1/chat/completions", body).json()
    streamed = post(
        sim,
        "/v1/chat/completions",
        body | {"stream": True, "stream_options": {"include_usage": True}},
    )
    chunks = data(streamed.text)
    pieces = [c["choices"][0]["delta"].get("content") for c in chunks[1:-1]]
    assert len(pieces) == 3  # 3 + 3 + 1 tokens
    assert "".join(pieces) == whole["choices"][0]["message"]["content"]
    assert chunks[-1]["usage"]["completion_tokens"] == 7
    assert chunks[-2]["choices"][0]["finish_reason"] == "length"


@pytest.mark.parametrize(
    ("path", "body", "pick"),
    [
        ("/v1/completions", {"prompt": "Hello", "max_tokens": 5}, "text"),
        ("/v1/messages", {"messages": ASK, "max_tokens": 5}, "text_delta"),
        ("/v1/responses", {"input": "Hello", "max_output_tokens": 5}, "output_text.delta"),
    ],
)
def test_other_apis_pack_tokens_too(
    start_sim: Callable[..., SimThread], path: str, body: dict[str, Any], pick: str
) -> None:
    one = start_sim(max_model_len=512)
    two = start_sim(max_model_len=512, tokens_per_chunk=2)
    body = body | {"ignore_eos": True, "stream": True}
    counts = [len(_text_deltas(post(sim, path, body).text, pick)) for sim in (one, two)]
    assert counts == [5, 3]


def _text_deltas(raw: str, pick: str) -> list[str]:
    """The non-empty text pieces of a completions, messages or responses stream."""
    out = []
    for item in data(raw):
        delta = item.get("delta")
        if pick == "text" and item.get("choices"):
            out.append(item["choices"][0]["text"])
        elif isinstance(delta, dict) and delta.get("type") == pick:
            out.append(delta["text"])
        elif item.get("type") == "response." + pick:
            out.append(delta)
    return [piece for piece in out if piece]


def test_tokens_per_chunk_must_be_positive_and_has_a_flag() -> None:
    with pytest.raises(ValueError, match="tokens_per_chunk"):
        SimSettings(tokens_per_chunk=0)
    args = parser().parse_args(["--tokens-per-chunk", "4"])
    assert settings_from(args).tokens_per_chunk == 4


def test_cloud_profile_keeps_openai_headers(start_sim: Callable[..., SimThread]) -> None:
    sim = start_sim(profile="cloud")
    reply = post(sim, "/v1/chat/completions", {"messages": ASK, "n": 2, "temperature": 0})
    assert reply.status_code == 200  # only vLLM refuses n > 1 when greedy
    assert "vary" not in reply.headers
    assert reply.headers["x-request-id"].startswith("req_")
    assert HTTP.post(sim.url + "/tokenize", json={"prompt": "x"}).status_code == 404


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
@pytest.mark.parametrize(
    ("path", "body"),
    [("/v1/chat/completions", {"messages": ASK}), ("/v1/completions", {"prompt": "Hello"})],
)
def test_a_long_stream_starts_before_its_end_is_made(
    start_sim: Callable[..., SimThread], profile: str, path: str, body: dict[str, Any]
) -> None:
    """Unpaced, the first event must not wait for the whole reply to be built (it took ~1.3 s
    for 200k tokens): memory is the witness. Built first, these 20,000 tokens' events held
    ~20 MB when the first of them arrived; made as sent, a few hundred of them at most are
    (the client has stopped reading, so the socket's buffers hold the simulator back)."""
    body = {"model": "tiny", "max_tokens": 20000, "stream": True} | body
    replies: dict[str, str] = {}
    if profile == "vllm" or "prompt" in body:
        body["ignore_eos"] = True  # vLLM's; OpenAI refuses it on chat (unknown_arguments)
    else:  # a long answer without it
        replies[ASK[0]["content"]] = "word " * 20000
    if profile == "cloud" and "prompt" in body:  # OpenAI serves completions for these only
        body["model"] = "gpt-3.5-turbo-instruct"
    sim = start_sim(profile=profile, max_model_len=32768, replies=replies, model=body["model"])
    tracemalloc.start()
    try:
        with HTTP.stream("POST", sim.url + path, json=body) as streamed:
            first = next(line for line in streamed.iter_lines() if line.startswith("data: "))
            _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert json.loads(first[6:])["choices"]
    assert peak < 4_000_000
