"""A `/v1/completions` batch against a context window: vLLM checks each prompt of a batch
on its own (each prompt and `max_tokens` must fit), and counts a token-id prompt by its
ids. The router summed the batch and counted ids by their digits (1.25 to 2 tokens each),
so lm-eval's batches of prompts that each fit, and one token-id prompt that fit, were
refused with `model: local` and sent past the local backend with `auto` (found in review,
against a vLLM simulator of `--max-model-len 2048`). The official `openai` SDK against a
router whose local backend is a vLLM simulator of that window (`request_size`)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest

from tests.harness import INSTRUCT, Collect, Running, RunningRouter, router, simulator
from tests.router.context_windows import windowed

WINDOW = 2048
SCORING: dict[str, Any] = {"echo": True, "logprobs": 1, "max_tokens": 1, "temperature": 0}


def _ids(count: int, seed: int) -> list[int]:
    """`count` token ids of five digits, as a 32k vocabulary's (lm-eval's Llama tokenizer)."""
    draw = random.Random(seed)
    return [draw.randint(10000, 31999) for _ in range(count)]


FITTING = {  # each prompt fits the window with `max_tokens`; the batch does not
    "4 prompts of 600 ids": [_ids(600, seed) for seed in range(4)],
    "8 text prompts of 251 tokens": [" ".join(["word"] * 250)] * 8,
    "1 prompt of 1800 ids": _ids(1800, 9),
}


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, Running]]:
    with (
        simulator(profile="vllm", model="local-model", max_model_len=WINDOW) as local,
        simulator(profile="cloud", model=INSTRUCT) as cloud,  # one serving completions
    ):
        yield {"local": local, "cloud": cloud}


@pytest.fixture(scope="module")
def gateway(
    servers: dict[str, Running], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningRouter]:
    tmp = tmp_path_factory.mktemp("window")
    windows = (WINDOW, 128000)
    config = windowed(servers["local"], servers["cloud"], tmp, windows, {"cloud": INSTRUCT})
    with router(config) as running:
        yield running


def _sdk(proxy: RunningRouter) -> openai.OpenAI:
    return openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)


def _prompts(prompt: Any) -> list[Any]:
    return [prompt] if isinstance(prompt[0], int) else prompt


@pytest.mark.parametrize("model", ["local", "auto"])
@pytest.mark.parametrize("label", list(FITTING))
def test_a_batch_whose_prompts_each_fit_is_served_by_the_local_backend(
    gateway: RunningRouter, label: str, model: str
) -> None:
    prompt = FITTING[label]
    raw = _sdk(gateway).completions.with_raw_response.create(model=model, prompt=prompt, **SCORING)
    assert raw.headers["x-smf-backend"] == "local"
    done = raw.parse()
    assert len(done.choices) == len(_prompts(prompt))
    assert all(c.logprobs is not None for c in done.choices)
    body = {"api": "completions", "model": model, "prompt": prompt, **SCORING}
    explained = httpx.post(f"{gateway.root}/v1/router/explain", json=body, timeout=30).json()
    assert explained["skipped"] == []  # `auto` kept it local: no window reason


def test_the_batch_is_over_the_window_the_backend_serves_it(gateway: RunningRouter) -> None:
    """The summed batch is more than the window, and vLLM (here its simulator) serves it:
    its usage counts every prompt, 2400 tokens beside a 2048-token window."""
    done = _sdk(gateway).completions.create(
        model="local", prompt=FITTING["4 prompts of 600 ids"], **SCORING
    )
    assert done.usage is not None and done.usage.prompt_tokens == 2400 > WINDOW


@pytest.mark.parametrize(
    ("prompt", "max_tokens", "reason"),
    [
        ([_ids(10, 1), _ids(2100, 2)], 1, "context_window"),  # one prompt over: the batch is
        ([_ids(10, 1), _ids(1800, 2)], 300, "max_tokens_window"),  # each prompt's room
    ],
)
def test_one_prompt_of_a_batch_over_the_window_is_still_held_off_it(
    gateway: RunningRouter,
    servers: dict[str, Running],
    prompt: list[list[int]],
    max_tokens: int,
    reason: str,
) -> None:
    """The window still applies, to each prompt: `auto` goes past local to the cloud,
    `model: local` is the router's 400, nothing sent to it."""
    sdk, sent = _sdk(gateway), servers["local"].completions("/v1/completions")
    raw = sdk.completions.with_raw_response.create(
        model="auto", prompt=prompt, max_tokens=max_tokens
    )
    assert raw.headers["x-smf-backend"] == "cloud"
    with pytest.raises(openai.BadRequestError) as refused:
        sdk.completions.create(model="local", prompt=prompt, max_tokens=max_tokens)
    assert refused.value.code == "context_length_exceeded"
    assert servers["local"].completions("/v1/completions") == sent
    body = {"api": "completions", "model": "auto", "prompt": prompt, "max_tokens": max_tokens}
    explained = httpx.post(f"{gateway.root}/v1/router/explain", json=body, timeout=30).json()
    assert explained["skipped"] == [{"backend": "local", "reason": reason}]


def test_a_batch_without_usage_is_recorded_as_its_ids_summed(
    gateway: RunningRouter, servers: dict[str, Running]
) -> None:
    """A backend that sends no usage: the record's prompt is the router's estimate of the
    whole batch (each prompt's ids counted, not their digits), as the usage would count it."""
    records = Collect()
    gateway.components.gateway.sinks.append(records)
    servers["local"].control("faults", {"fault": "no_usage"})
    try:
        _sdk(gateway).completions.create(
            model="local", prompt=[_ids(300, 5), _ids(200, 6)], max_tokens=1
        )
        record = records.wait(30)
    finally:
        servers["local"].control("faults", {"fault": None})
        gateway.components.gateway.sinks.remove(records)
    assert (record.usage.prompt_tokens, record.usage.estimated) == (500, True)
