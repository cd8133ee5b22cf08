"""A router over two simulators with short timeouts, `local` to carry the faults and `cloud`
healthy (test_fault_matrix.py, test_fault_records.py), and one chat request through the
openai SDK that says who served it or how it failed."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import openai

from router.config import parse
from tests.harness import Running, RunningRouter, config_for, router, simulator

FAST = {"connect_s": 1, "first_token_s": 1.2, "idle_s": 0.8, "total_s": 2.5}


@contextmanager
def faulty_pair(tmp: Path) -> Iterator[tuple[dict[str, Running], RunningRouter]]:
    """The simulators by backend name, and the router, its files under `tmp`."""
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        backends = {"local": local, "cloud": cloud}
        config = config_for(backends, tmp)
        data = config.model_dump()
        for backend in data["backends"]:
            backend["timeouts"] = FAST
        with router(parse(data)) as running:
            yield backends, running


def ask(client: openai.OpenAI, model: str, stream: bool) -> tuple[str | None, Any]:
    """Returns (backend that served, error or None)."""
    messages = [{"role": "user", "content": "Write a Python function that adds two numbers."}]
    try:
        if not stream:
            raw = client.chat.completions.with_raw_response.create(model=model, messages=messages)  # type: ignore[arg-type]
            assert raw.parse().choices[0].message.content is not None
            return raw.headers["x-smf-backend"], None
        with client.chat.completions.with_streaming_response.create(
            model=model,
            messages=messages,
            stream=True,  # type: ignore[arg-type]
        ) as response:
            backend = response.headers["x-smf-backend"]
            try:
                finished = [c for c in response.parse() if c.choices and c.choices[0].finish_reason]
            except openai.APIError as error:
                return backend, ("mid", error)
            assert finished, "a stream ended without a finish_reason yet looked complete"
            return backend, None
    except openai.APIStatusError as error:
        return None, error
