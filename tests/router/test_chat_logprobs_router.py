"""Chat `logprobs` through the router: what a backend lists of each token reaches the
`openai` SDK client unchanged, whole and streamed, from vLLM (local) and OpenAI (cloud).

guidance always asks `logprobs: true, top_logprobs: 5`; the simulators answered
`logprobs: null`, so nothing showed whether the router kept them (found running guidance)."""

from __future__ import annotations

from typing import Any

import openai
import pytest

from tests.harness import Running

ASK: Any = [{"role": "user", "content": "Tell me about the weather in Paris."}]
ASKED: Any = {"logprobs": True, "top_logprobs": 5, "max_tokens": 6, "temperature": 0}
ROUTES = [("local", "local-model"), ("cloud", "cloud-model")]


def _direct(backend: Running) -> openai.OpenAI:
    return openai.OpenAI(base_url=backend.url, api_key="x", max_retries=0)


def _listed(chunks: list[Any]) -> list[dict[str, Any]]:
    """Each chunk's `logprobs`, as its choice carried them."""
    return [choice.logprobs.model_dump() for c in chunks for choice in c.choices if choice.logprobs]


@pytest.mark.parametrize(("route", "model"), ROUTES)
def test_a_whole_replys_logprobs_pass_unchanged(
    client: openai.OpenAI, backends: dict[str, Running], route: str, model: str
) -> None:
    raw = client.chat.completions.with_raw_response.create(model=route, messages=ASK, **ASKED)
    assert raw.headers["x-smf-backend"] == route
    through = raw.parse().choices[0].logprobs
    direct = _direct(backends[route]).chat.completions.create(model=model, messages=ASK, **ASKED)
    assert through is not None and len(through.content or []) == 6
    assert through.model_dump() == direct.choices[0].logprobs.model_dump()  # type: ignore[union-attr]


@pytest.mark.parametrize(("route", "model"), ROUTES)
def test_a_streams_logprobs_pass_unchanged_chunk_by_chunk(
    client: openai.OpenAI, backends: dict[str, Running], route: str, model: str
) -> None:
    through = list(client.chat.completions.create(model=route, messages=ASK, stream=True, **ASKED))
    direct = list(
        _direct(backends[route]).chat.completions.create(
            model=model, messages=ASK, stream=True, **ASKED
        )
    )
    listed = _listed(through)
    assert sum(len(lp["content"]) for lp in listed) == 6
    assert listed == _listed(direct)
