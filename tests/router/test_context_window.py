"""Context windows: a prompt no backend can hold is the client's 400, not a retryable 503."""

from __future__ import annotations

from pathlib import Path

import openai
import pytest

from router.config import Config, parse
from tests.harness import Running, config_for, router, simulator


def windowed(local: Running, cloud: Running, tmp_path: Path, windows: tuple[int, int]) -> Config:
    """The two simulators as backends whose context windows are `windows` (local, cloud)."""
    data = config_for({"local": local, "cloud": cloud}, tmp_path).model_dump()
    data["backends"][0]["context_window"], data["backends"][1]["context_window"] = windows
    return parse(data)


def test_prompt_over_every_window_is_a_400_the_sdk_does_not_retry(tmp_path: Path) -> None:
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        with router(windowed(local, cloud, tmp_path, (100, 200))) as proxy:
            client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=2)
            long = [{"role": "user", "content": "word " * 400}]
            with pytest.raises(openai.BadRequestError) as caught:
                client.chat.completions.create(model="auto", messages=long)  # type: ignore[arg-type]
            assert caught.value.code == "context_length_exceeded"
            # a prompt that fits the larger window goes there, skipping the small one
            medium = [{"role": "user", "content": "Write a Python function. " + "x " * 250}]
            raw = client.chat.completions.with_raw_response.create(model="coding", messages=medium)  # type: ignore[arg-type]
            assert raw.headers["x-smf-backend"] == "cloud"
        assert local.completions() == 0 and cloud.completions() == 1


def test_tool_call_arguments_count_toward_the_window(tmp_path: Path) -> None:
    """An agent's tool loop: the assistant turns have no content, only tool calls whose
    arguments (here a whole file) fill the window. The estimate must see them."""
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        call = {
            "id": "call_1",
            "type": "function",
            "function": {"name": "write_file", "arguments": '{"text": "%s"}' % ("x " * 1000)},
        }
        messages = [
            {"role": "user", "content": "Write the parser module."},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "call_1", "content": "written"},
        ]
        with router(windowed(local, cloud, tmp_path, (300, 10_000))) as proxy:
            client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
            raw = client.chat.completions.with_raw_response.create(
                model="coding",
                messages=messages,  # type: ignore[arg-type]
                max_tokens=10,
            )
            assert raw.headers["x-smf-backend"] == "cloud"
        assert local.completions() == 0 and cloud.completions() == 1
