"""BAML's calls through the router: a prompt sent as a lone system message is read as the ask
and routed by it, its output-format block left out, and the answer keeps to the type it shows.

baml-py 0.226.3 sends a prompt without `{{ _.role("user") }}` as ONE system message: read by
user messages alone, "Write a short essay on the history of the printing press." took the
default route (unknown, local) where as a user message it was writing; "Answer in JSON using
this schema: ..." after a poem ask made it instruction (local); and the demo simulator
answered prose to every typed function, which BAML rejected (found in a live review). The
bodies are BAML's (`tests/fixtures/baml-py-0.226.3.md`); real sockets, the official SDK, the
simulators as backends.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import openai
import pytest

from tests.agent_apis.served import served_as_read, served_by_default
from tests.harness import RunningRouter

FIXTURES = Path(__file__).parents[1] / "fixtures" / "baml-py-0.226.3"
POEM = "Write a four-line poem about autumn rain on a tin roof."


def captured(name: str) -> dict[str, Any]:
    return dict(json.loads((FIXTURES / name).read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def proxy(default_proxy: RunningRouter) -> RunningRouter:
    """The router over a vLLM `local` and a `cloud`, the default routes."""
    return default_proxy


@pytest.mark.parametrize(
    ("name", "words", "where"),
    [
        (
            "prose-plain.json",
            "Write a short essay on the history of the printing press.",
            "writing",
        ),
        ("poem-no-role.json", POEM, "prose"),
        ("poem-user.json", POEM, "prose"),
    ],
)
def test_a_baml_prompt_goes_where_its_ask_goes(
    proxy: RunningRouter, name: str, words: str, where: str
) -> None:
    """Read whole as the latest ask, without its schema: the cloud, as the ask alone goes."""
    served_as_read(proxy, captured(name), words, (where, "cloud"))


def test_a_persona_alone_still_takes_the_default_route(proxy: RunningRouter) -> None:
    body = {"model": "auto", "messages": [{"role": "system", "content": "You are helpful"}]}
    served_by_default(proxy, body)


@pytest.mark.parametrize("name", ["poem-no-role.json", "poem-user.json"])
def test_a_typed_function_gets_its_class_through_the_router(
    proxy: RunningRouter, name: str
) -> None:
    """BAML's `Poem` (`title string`, `lines string[]`): bare JSON of those fields."""
    client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
    reply = client.chat.completions.create(**captured(name))
    poem = json.loads(reply.choices[0].message.content or "")
    assert set(poem) == {"title", "lines"}
    assert isinstance(poem["title"], str)
    assert all(isinstance(line, str) for line in poem["lines"])
