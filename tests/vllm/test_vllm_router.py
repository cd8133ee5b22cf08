"""smf-router in front of vLLM's real server (`local`) and the simulator (`cloud`).

Everything is real: the router and the cloud run from the `smf-router` CLI, vLLM from its
CPU build, the client is the official `openai` SDK, the ledger is read back from disk.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import openai
import pytest
from router_stack import Stack, backend_status, ledger_row, vllm_counters, wait_for_status
from vllm_process import MAX_MODEL_LEN, START_BUDGET_S, VllmServer

USER: Any = [{"role": "user", "content": "What is the weather like in Paris today?"}]
LONG: Any = [{"role": "user", "content": " ".join(["weather"] * 700)}]  # > 512 tokens in vLLM
# Few characters, many tokens: the router's estimate (~4 chars a token) says it fits, vLLM's
# byte-level tokenizer (3 tokens per CJK character here) says 400 — vLLM's own error decides.
DENSE: Any = [{"role": "user", "content": "天气晴朗" * 150}]
TOOL: Any = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather for a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}
EXACT: dict[str, Any] = {"ignore_eos": True}  # vLLM extra: exactly max_tokens tokens


def counters_after(vllm_url: str, before: tuple[float, float], want: tuple[int, int]) -> Any:
    """vLLM updates its counters just after replying: poll (bounded) for the deltas."""
    delta = (0.0, 0.0)
    for _ in range(50):
        now = vllm_counters(vllm_url)
        delta = (now[0] - before[0], now[1] - before[1])
        if delta == want:
            break
        time.sleep(0.1)
    return delta


def test_plain_chat_usage_equals_vllm_usage_metrics_and_ledger(
    stack: Stack, client: openai.OpenAI, vllm_base_url: str
) -> None:
    before = vllm_counters(vllm_base_url)
    raw = client.chat.completions.with_raw_response.create(
        model="local", messages=USER, max_tokens=7, temperature=0, extra_body=EXACT
    )
    reply = raw.parse()
    assert raw.headers["x-smf-backend"] == "local"
    assert reply.usage is not None
    assert reply.usage.completion_tokens == 7
    assert reply.model == "tiny"
    usage = (reply.usage.prompt_tokens, reply.usage.completion_tokens)
    assert counters_after(vllm_base_url, before, usage) == usage
    row = ledger_row(stack.ledger, raw.headers["x-request-id"])
    assert (row["prompt_tokens"], row["completion_tokens"]) == usage
    assert row["tokens_estimated"] is False
    direct = httpx.post(
        f"{vllm_base_url}/v1/chat/completions",
        json={"model": "tiny", "messages": USER, "max_tokens": 7, "temperature": 0, **EXACT},
        timeout=60,
    ).json()
    assert direct["usage"]["prompt_tokens"] == reply.usage.prompt_tokens
    assert direct["choices"][0]["message"]["content"] == reply.choices[0].message.content


def test_streamed_chat_with_usage_chunk(
    stack: Stack, client: openai.OpenAI, vllm_base_url: str
) -> None:
    before = vllm_counters(vllm_base_url)
    raw = client.chat.completions.with_raw_response.create(
        model="local", messages=USER, max_tokens=6, temperature=0, stream=True,
        stream_options={"include_usage": True}, extra_body=EXACT,
    )  # fmt: skip
    chunks = list(raw.parse())
    *content, last = chunks
    assert last.choices == []
    assert last.usage is not None and last.usage.completion_tokens == 6
    assert all(c.usage is None for c in content)
    assert content[-1].choices[0].finish_reason == "length"
    usage = (last.usage.prompt_tokens, last.usage.completion_tokens)
    assert counters_after(vllm_base_url, before, usage) == usage
    row = ledger_row(stack.ledger, raw.headers["x-request-id"])
    assert (row["prompt_tokens"], row["completion_tokens"]) == usage


def test_streamed_chat_without_usage_request_still_counts_real_tokens(
    stack: Stack, client: openai.OpenAI
) -> None:
    raw = client.chat.completions.with_raw_response.create(
        model="local", messages=USER, max_tokens=4, temperature=0, stream=True, extra_body=EXACT
    )
    chunks: list[Any] = list(raw.parse())
    assert all(c.usage is None and c.choices for c in chunks)  # usage chunk stripped again
    row = ledger_row(stack.ledger, raw.headers["x-request-id"])
    assert row["completion_tokens"] == 4
    assert row["tokens_estimated"] is False


def test_streamed_tool_call_reassembled_by_sdk_equals_unstreamed(client: openai.OpenAI) -> None:
    named: Any = {"type": "function", "function": {"name": "get_weather"}}
    kwargs: dict[str, Any] = dict(
        model="local", messages=USER, tools=[TOOL], tool_choice=named, max_tokens=40,
        temperature=0,
    )  # fmt: skip
    with client.chat.completions.stream(**kwargs) as stream:
        final = stream.get_final_completion()
    whole = client.chat.completions.create(**kwargs)
    [streamed_call] = final.choices[0].message.tool_calls or []
    [whole_call] = whole.choices[0].message.tool_calls or []
    assert streamed_call.function.name == whole_call.function.name == "get_weather"
    assert streamed_call.function.arguments == whole_call.function.arguments
    assert streamed_call.id.startswith("chatcmpl-tool-")
    assert final.choices[0].finish_reason == whole.choices[0].finish_reason == "stop"


def test_context_too_long_on_vllm_falls_back_to_larger_window(
    stack: Stack, client: openai.OpenAI
) -> None:
    # with max_queue_wait_s 0 a poll that caught an earlier request waiting a moment would
    # send this one past vLLM: wait for a poll that shows no queue
    assert wait_for_status(stack, "local", "saturated", None) is None
    raw = client.chat.completions.with_raw_response.create(
        model="coding", messages=DENSE, max_tokens=5
    )
    assert raw.headers["x-smf-backend"] == "cloud"
    assert raw.headers["x-smf-attempts"] == "2"
    assert raw.parse().choices[0].message.content
    row = ledger_row(stack.ledger, raw.headers["x-request-id"])
    first, second = row["attempts"]
    assert (first["backend"], first["error_kind"], first["status"]) == (
        "local", "context_too_long", 400,
    )  # fmt: skip
    assert (second["backend"], second["outcome"]) == ("cloud", "ok")


def test_prompt_over_advertised_window_skips_vllm_up_front(
    stack: Stack, client: openai.OpenAI
) -> None:
    """The router read max_model_len from vLLM's /v1/models: no doomed attempt is made."""
    assert wait_for_status(stack, "local", "context_window", MAX_MODEL_LEN) == MAX_MODEL_LEN
    before = vllm_counters(stack.vllm_url)
    raw = client.chat.completions.with_raw_response.create(
        model="coding", messages=LONG, max_tokens=5
    )
    assert raw.headers["x-smf-backend"] == "cloud"
    assert raw.headers["x-smf-attempts"] == "1"
    assert vllm_counters(stack.vllm_url) == before


@pytest.mark.parametrize("stream", [False, True])
def test_vllm_context_400_without_fallback_is_context_length_exceeded(
    client: openai.OpenAI, stream: bool
) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        if stream:
            list(client.chat.completions.create(model="local", messages=DENSE, stream=True))
        else:
            client.chat.completions.create(model="local", messages=DENSE, max_tokens=5)
    error = caught.value
    assert error.status_code == 400
    assert error.code == "context_length_exceeded"
    assert f"maximum context length is {MAX_MODEL_LEN}" in error.message


def test_prompt_over_every_window_is_400_context_length_exceeded(client: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(model="local", messages=LONG, max_tokens=5)
    assert caught.value.code == "context_length_exceeded"


def test_vllm_extras_pass_through_untouched(client: openai.OpenAI, vllm_base_url: str) -> None:
    extras = {
        "chat_template_kwargs": {"enable_thinking": False},
        "return_token_ids": True,
        "min_tokens": 3,
        "top_k": 1,
        "repetition_penalty": 1.0,
        "ignore_eos": True,
    }
    plain = client.chat.completions.create(model="local", messages=USER, max_tokens=3)
    raw = client.chat.completions.with_raw_response.create(
        model="local", messages=USER, max_tokens=3, temperature=0, extra_body=extras
    )
    body = raw.http_response.json()
    assert raw.headers["x-smf-backend"] == "local"
    # return_token_ids reached vLLM: it only fills these when asked
    assert len(body["choices"][0]["token_ids"]) == 3
    assert len(body["prompt_token_ids"]) == body["usage"]["prompt_tokens"]
    # chat_template_kwargs reached the template: enable_thinking=false adds an empty think block
    assert plain.usage is not None
    assert body["usage"]["prompt_tokens"] > plain.usage.prompt_tokens
    direct = httpx.post(
        f"{vllm_base_url}/v1/chat/completions",
        json={"model": "tiny", "messages": USER, "max_tokens": 3, "temperature": 0, **extras},
        timeout=60,
    ).json()
    assert direct["prompt_token_ids"] == body["prompt_token_ids"]
    assert direct["choices"][0]["token_ids"] == body["choices"][0]["token_ids"]


def test_saturated_vllm_overflows_to_cloud(
    stack: Stack, client: openai.OpenAI, vllm_base_url: str
) -> None:
    """16 long requests straight to vLLM (max-num-seqs 2: 2 run, 14 wait); the router reads
    that from vLLM's /metrics and sends the next local-first request to the cloud."""
    body = {"model": "tiny", "messages": USER, "max_tokens": 400, "ignore_eos": True}
    url = f"{vllm_base_url}/v1/chat/completions"
    with ThreadPoolExecutor(16) as pool:
        load = [pool.submit(httpx.post, url, json=body, timeout=170) for _ in range(16)]
        saturated = wait_for_status(stack, "local", "saturated", lambda v: v is not None, 150)
        waiting = backend_status(stack, "local").get("waiting")
        raw = client.chat.completions.with_raw_response.create(
            model="coding", messages=USER, max_tokens=5
        )
        statuses = [f.result().status_code for f in load]
    assert saturated == "queue"
    assert waiting and waiting > 0
    assert raw.headers["x-smf-backend"] == "cloud"
    assert statuses == [200] * 16


@pytest.mark.timeout(START_BUDGET_S + 120)  # includes a vLLM restart
def test_vllm_killed_mid_traffic_falls_back_opens_circuit_and_recovers(
    stack: Stack, client: openai.OpenAI, vllm_server: VllmServer
) -> None:
    """Every request succeeds (from cloud) while vLLM is dead; after repeated failures the
    circuit opens (local skipped, one attempt); after a restart local serves again."""
    if vllm_server.external:
        pytest.skip("SMF_VLLM_URL: not our server to kill")

    def one() -> tuple[str, str]:
        raw = client.chat.completions.with_raw_response.create(
            model="coding", messages=USER, max_tokens=40, temperature=0, extra_body=EXACT
        )
        assert raw.parse().choices[0].message.content
        return str(raw.headers["x-smf-backend"]), str(raw.headers["x-smf-attempts"])

    # an earlier test's queue may still be in the last capacity poll: wait it out
    assert wait_for_status(stack, "local", "saturated", None) is None
    assert one()[0] == "local"
    killer = threading.Timer(0.3, vllm_server.kill)
    killer.start()
    served: list[tuple[str, str]] = []
    try:
        for _ in range(20):  # bounded; stops once the open circuit skips local
            served.append(one())
            if not vllm_server.running() and served[-1] == ("cloud", "1"):
                break
    finally:
        killer.join()
    assert not vllm_server.running()
    assert served[-1] == ("cloud", "1"), served
    assert ("cloud", "2") in served, served  # failed on local first, then fell back
    assert backend_status(stack, "local")["circuit"] in ("open", "half_open")
    vllm_server.start()
    backend = ""
    for _ in range(40):  # trials back off up to max_open_s (8 s)
        backend = one()[0]
        if backend == "local":
            break
        time.sleep(0.5)
    assert backend == "local"
    assert wait_for_status(stack, "local", "circuit", "closed") == "closed"
