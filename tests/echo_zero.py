"""The completions request lm-eval sends for a prompt's log probabilities: `echo` with
`max_tokens: 0`, streamed with its usage. Asked of the vLLM simulator and of the router
before it (tests/simulator/test_simulator_completions_echo.py,
tests/router/test_field_refusals.py), which must answer it as vLLM does."""

from __future__ import annotations

import openai
from openai.types import Completion


def echo_nothing_streamed(sdk: openai.OpenAI, model: str, prompt: str) -> list[Completion]:
    """Every chunk of a streamed `echo` of `prompt` with nothing generated."""
    return list(
        sdk.completions.create(
            model=model,
            prompt=prompt,
            max_tokens=0,
            echo=True,
            stream=True,
            stream_options={"include_usage": True},
        )
    )
