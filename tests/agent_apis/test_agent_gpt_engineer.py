"""gpt-engineer's requests go to the local backend as coding, whatever the project is about,
and its improve asks on one project are a conversation each (`classifier.gpt_engineer`).

gpt-engineer 0.3.1 streams each request under a system prompt built from its preprompts:
"Request: a haiku generator" under its code-generation prompt was prose 0.986 and went to
the cloud, and "a program that computes the n-th prime number" under its clarify prompt math
0.51 (found running gpt-engineer against the router). Its improve asks put the project's
files before the request: keyed by the files, every ask on one project was one conversation.
The bodies are the ones it sent (`tests/fixtures/gpt-engineer-0.3.1.md`); real sockets, the
official SDK streaming as gpt-engineer does, the simulators as backends.
"""

from __future__ import annotations

import copy
from typing import Any

import openai
import pytest

from classifier.rules import CODE_ANSWER
from tests.agent_apis.agent_stack import explained, streamed_headers
from tests.classifier.test_classifier_gpt_engineer import (
    HAIKU,
    IMPROVE_ASK,
    asked,
    captured,
    files_ask,
    project,
)
from tests.harness import Collect, RunningRouter

PRIME = "a program that computes the n-th prime number\n"


@pytest.fixture(scope="module")
def proxy(default_proxy: RunningRouter) -> RunningRouter:
    """The router over a vLLM `local` and a `cloud`, the default routes."""
    return default_proxy


def streamed(proxy: RunningRouter, body: dict[str, Any]) -> tuple[str, str, str]:
    """`body` streamed through the official SDK, as gpt-engineer's langchain-openai client
    sends it: the intent and backend the headers name, and the reply's text."""
    client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
    raw = client.chat.completions.with_raw_response.create(**copy.deepcopy(body))
    assert raw.http_response.status_code == 200
    text = "".join(chunk.choices[0].delta.content or "" for chunk in raw.parse() if chunk.choices)
    return raw.headers["x-smf-intent"], raw.headers["x-smf-backend"], text


@pytest.mark.parametrize(
    "body",
    [
        captured("generate-haiku.json"),
        asked("generate-haiku.json", "Request: a short story generator\n"),
        asked("clarify-first.json", PRIME),
        captured("entrypoint.json"),
        captured("improve.json"),
    ],
    ids=["haiku", "short-story", "clarify-prime", "entrypoint", "improve"],
)
def test_its_requests_are_coding_on_the_local_backend(
    proxy: RunningRouter, body: dict[str, Any]
) -> None:
    intent, backend, text = streamed(proxy, body)
    assert (intent, backend) == ("coding", "local") and text
    why = explained(proxy, body)["classifier"]
    assert (why["source"], why["rule"]) == ("rule", CODE_ANSWER)


def test_a_haiku_request_without_its_prompt_goes_where_its_topic_goes(
    proxy: RunningRouter,
) -> None:
    """The same words with no system prompt: prose, the cloud."""
    body = {"model": "auto", "stream": True, "messages": [{"role": "user", "content": HAIKU}]}
    assert streamed(proxy, body)[:2] == ("prose", "cloud")


def test_the_improve_ask_is_read_as_its_request(proxy: RunningRouter) -> None:
    read = explained(proxy, captured("improve.json"))["classifier"]["read"]
    assert (read["latest_chars"], read["latest_cut"], read["first_chars"]) == (
        len(IMPROVE_ASK),
        False,
        0,
    )


def test_improve_asks_on_one_project_are_a_conversation_each(proxy: RunningRouter) -> None:
    """Two asks on one project of files past the key's 2,048 characters, the first asked
    again: two conversations in the records, the repeated ask the first one's."""
    files = project(200)
    asks = ["Request: add type hints\n", "Request: write a README for newcomers\n"]
    bodies = [asked("improve.json", files_ask(files, ask)) for ask in [*asks, asks[0]]]
    records = Collect()
    proxy.components.gateway.sinks.append(records)
    conversations: list[str] = []
    try:
        for body in bodies:
            headers = streamed_headers(proxy, records, body)
            assert (headers["x-smf-intent"], headers["x-smf-backend"]) == ("coding", "local")
            conversations.append(records.records[-1].conversation)
    finally:
        proxy.components.gateway.sinks.remove(records)
    assert conversations[0] != conversations[1] and conversations[2] == conversations[0]
