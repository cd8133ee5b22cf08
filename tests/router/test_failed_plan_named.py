"""When every backend failed, the answer names the backend whose error it is: the
`x-smf-backend` header, and a backend's 5xx message (`router.plan_error.named`).

Found in review (with the Continue CLI): both backends refusing for the context's length
answered local's refusal under `x-smf-backend: cloud`, the last one tried; local's 500 and
the cloud's 503 answered local's "Internal Server Error", naming no backend, under `cloud`.
Through a live router and simulators, with the official `openai` SDK.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anthropic
import openai
import pytest

from tests.agent_apis.agent_stack import anthropic_client, openai_client
from tests.harness import Running, RunningRouter

CODE = "Write a Python function that reverses a linked list, with unit tests."  # local first
MATH = "Compute the integral of x^2 from 0 to 3 and show each step."  # the cloud first
FIRST = {CODE: "local", MATH: "cloud"}


@pytest.fixture
def faults(backends: dict[str, Running]) -> Iterator[Any]:
    """`faults(local=spec, cloud=spec)` sets each backend's fault for the rest of the test."""

    def set_faults(**specs: str) -> None:
        for name, spec in specs.items():
            backends[name].control("faults", {"fault": spec})

    yield set_faults
    for server in backends.values():
        server.control("faults", {"fault": None})


def failed(proxy: RunningRouter, ask: str) -> openai.APIStatusError:
    client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
    with pytest.raises(openai.APIStatusError) as raised:
        client.chat.completions.create(
            model="auto", max_tokens=20, messages=[{"role": "user", "content": ask}]
        )
    return raised.value


def message(error: openai.APIStatusError) -> str:
    body: Any = error.body
    return str(body["message"] if "message" in body else body["error"]["message"])


@pytest.mark.parametrize("ask", [CODE, MATH], ids=["local_first", "cloud_first"])
def test_both_refusing_for_length_name_the_refusal_told(
    proxy: RunningRouter, faults: Any, ask: str
) -> None:
    """The first backend's refusal is told (a verdict: `most_meaningful`), and named."""
    faults(local="context_length", cloud="context_length")
    error = failed(proxy, ask)
    assert error.status_code == 400 and error.response.headers["x-smf-attempts"] == "2"
    words = {"local": "your prompt contains at least", "cloud": "your messages resulted in"}
    assert words[FIRST[ask]] in message(error)  # vLLM's words, or the cloud's
    assert error.response.headers["x-smf-backend"] == FIRST[ask]


@pytest.mark.parametrize("ask", [CODE, MATH], ids=["local_first", "cloud_first"])
def test_a_5xx_then_an_overload_name_the_5xx_told(
    proxy: RunningRouter, faults: Any, ask: str
) -> None:
    """The first backend's 500 (a 502 to the client) is told, not the other's 503, which
    follows it in brief (`plan_error.with_others`)."""
    first = FIRST[ask]
    second = "cloud" if first == "local" else "local"
    faults(**{first: "server_error:500", second: "server_error:503"})
    error = failed(proxy, ask)
    assert error.status_code == 502 and error.response.headers["x-smf-attempts"] == "2"
    assert error.response.headers["x-smf-backend"] == first
    assert message(error).startswith(f"{first}: ")
    assert message(error).index(f"; {second}: ") > 0
    assert error.code == "upstream_error" and error.type == "upstream_error"


@pytest.mark.parametrize("ask", [CODE, MATH], ids=["local_first", "cloud_first"])
def test_both_answering_500_name_both(proxy: RunningRouter, faults: Any, ask: str) -> None:
    """Both backends' 500s: the 502 names each backend's failure, the first tried first;
    its code and type are the first one's. It named the first alone (found in a live
    review with grok-cli)."""
    first = FIRST[ask]
    second = "cloud" if first == "local" else "local"
    faults(local="server_error", cloud="server_error")
    error = failed(proxy, ask)
    assert error.status_code == 502 and error.response.headers["x-smf-backend"] == first
    said = {
        "local": "Internal Server Error",
        "cloud": "The server had an error while processing your request. Sorry about that!",
    }
    assert message(error) == f"{first}: {said[first]}; {second}: {said[second]}"
    assert error.code == "upstream_error" and error.type == "upstream_error"


def test_a_message_naming_its_backend_already_is_named_once(
    proxy: RunningRouter, faults: Any
) -> None:
    """The router's own words for a backend's failure start with its name: kept as they are."""
    faults(local="reset", cloud="reset")
    error = failed(proxy, CODE)
    assert error.status_code == 502 and error.response.headers["x-smf-backend"] == "local"
    assert message(error).startswith("local: ") and not message(error).startswith("local: local")


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("api", ["chat", "messages"])
def test_every_api_names_the_5xx_told(
    proxy: RunningRouter, faults: Any, api: str, stream: bool
) -> None:
    """Both backends' 502s, asked for on either API, streamed or not: the header names the
    backend whose error is told, as the message's first words do, though none served (the
    record's `backend` stays empty: docs/ledger.md). A live review with the Claude Agent SDK
    read `x-smf-backend: local` on such a 502 as a backend that served; it is the backend
    whose error it is (README, docs/dispatch.md), on each path alike."""
    faults(local="server_error:502", cloud="server_error:502")
    ask = [{"role": "user", "content": CODE}]
    error: openai.APIStatusError | anthropic.APIStatusError
    if api == "chat":
        with pytest.raises(openai.APIStatusError) as told:
            openai_client(proxy).chat.completions.create(
                model="auto", max_tokens=20, messages=ask, stream=stream
            )
        error = told.value
    else:
        with pytest.raises(anthropic.APIStatusError) as said:
            anthropic_client(proxy).messages.create(
                model="auto", max_tokens=20, messages=ask, stream=stream
            )
        error = said.value
    body: Any = error.body
    words = str(body["error"]["message"] if "error" in body else body["message"])
    assert error.status_code == 502 and error.response.headers["x-smf-attempts"] == "2"
    assert error.response.headers["x-smf-backend"] == "local"
    assert words.startswith("local: Bad Gateway; cloud: ")
