"""A chat turn whose `tool_calls` is not an array of objects is the client's 400, naming the
field, before any backend is tried. Chat passes through: `tool_calls: 5` reached the
simulator, which crashed (a 500), and the router counted it against the backend, then
against the fallback, so three such requests opened both circuits and a well-formed request
from anyone was answered 503 (found in review). The openai SDK against a running router
whose backends are simulators, circuits as configured by default."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import openai
import pytest

from tests.harness import RunningRouter, config_for, router, simulator

HI: Any = [{"role": "user", "content": "hi"}]


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningRouter]:
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="vllm", model="cloud-model") as cloud,
        router(config_for({"local": local, "cloud": cloud}, tmp_path_factory.mktemp("t"))) as r,
    ):
        yield r


@pytest.mark.parametrize(
    ("calls", "param", "expected", "got"),
    [
        (5, "messages[1].tool_calls", "an array of objects", "an integer"),
        ({"id": "c1"}, "messages[1].tool_calls", "an array of objects", "an object"),
        ([{"id": "c1"}, "f()"], "messages[1].tool_calls[1]", "an object", "a string"),
    ],
)
def test_tool_calls_not_an_array_of_objects_is_the_clients_400(
    proxy: RunningRouter, calls: Any, param: str, expected: str, got: str
) -> None:
    sdk = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
    turn = [*HI, {"role": "assistant", "content": None, "tool_calls": calls}, *HI]
    for _ in range(4):  # more than the failures that open a circuit
        with pytest.raises(openai.BadRequestError) as refused:
            sdk.chat.completions.create(model="auto", messages=HI, extra_body={"messages": turn})
        error = refused.value
        assert (error.code, error.param) == ("invalid_type", param)
        said = f"Invalid type for '{param}': expected {expected}, but got {got} instead."
        assert isinstance(error.body, dict) and error.body["message"] == said
    served = sdk.chat.completions.with_raw_response.create(model="auto", messages=HI)
    assert served.http_response.status_code == 200
