"""The router's own in-band error for a transient failure after a stream began says what
happened in the words clients retry on; a refusal says none of them.

Once the 200 went out a client sees no HTTP status, and some decide by the error's words
alone. The pi coding agent (0.73.1, `AgentSession._isRetryableError` in
`@mariozechner/pi-coding-agent/dist/core/agent-session.js`) retries when the message
matches `PI_RETRY`, the documented client heuristic these tests state. Through the router a
cut was "local: stream broke (UpstreamClosed)", a stall "stream stalled for 60 s", vLLM's
abort "the answer was stopped (finish_reason 'abort')": none matched, and pi ended its run
where a retry would have cured it, as it did against vLLM directly (found live).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest

from router.config import parse
from tests.harness import (
    Running,
    RunningRouter,
    chat_chunk,
    config_for,
    openai_via_litellm,
    router,
    scripted_stream,
    simulator,
)

# pi 0.73.1's rule, word for word
PI_RETRY = re.compile(
    r"overloaded|provider.?returned.?error|rate.?limit|too many requests|429|500|502|503|504"
    r"|service.?unavailable|server.?error|internal.?error|network.?error|connection.?error"
    r"|connection.?refused|connection.?lost|websocket.?closed|websocket.?error"
    r"|other side closed|fetch failed|upstream.?connect|reset before headers|socket hang up"
    r"|ended without|http2 request did not get a response|timed? out|timeout|terminated"
    r"|retry delay",
    re.IGNORECASE,
)

ASK: Any = [{"role": "user", "content": "Write a Python function that adds two numbers."}]

# `local` stalls after 0.8 s of silence; `late`, the same simulator, meets its total
# deadline (1.5 s) before its idle one (5 s)
QUICK = {"connect_s": 1, "first_token_s": 1.2, "idle_s": 0.8, "total_s": 20}
LATE = {"connect_s": 1, "first_token_s": 1.2, "idle_s": 5, "total_s": 1.5}

# (backend asked, simulator fault, the error's code as before): each after two tokens
TRANSIENT = {
    "cut": ("local", "cut_stream", "upstream_cut"),
    "stall": ("local", "stall:3", "upstream_timeout"),
    "abort": ("local", "abort", "upstream_cut"),
    "total deadline": ("late", "stall:4", "upstream_timeout"),
}


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Running, RunningRouter]]:
    """One vLLM-like simulator behind two backends of different deadlines."""
    with simulator(profile="vllm", model="local-model") as local:
        data = config_for({"local": local}, tmp_path_factory.mktemp("words"), QUICK).model_dump()
        first = data["backends"][0]
        data["backends"].append({**first, "name": "late", "timeouts": LATE})
        with router(parse(data)) as proxy:
            yield local, proxy


@pytest.fixture
def fault(setup: tuple[Running, RunningRouter]) -> Iterator[Any]:
    """`fault(spec)` sets the simulator's fault for the rest of the test."""
    local, _ = setup
    yield lambda spec: local.control("faults", {"fault": spec})
    local.control("faults", {"fault": None})


def chat_failure(proxy: RunningRouter, model: str, **extra: Any) -> openai.APIError:
    """The error the `openai` SDK raises for a streamed chat request."""
    client = openai.OpenAI(base_url=proxy.url, api_key="none", max_retries=0, timeout=30)
    with pytest.raises(openai.APIError) as failed:
        for _ in client.chat.completions.create(model=model, messages=ASK, stream=True, **extra):
            pass
    return failed.value


def responses_failure(proxy: RunningRouter, model: str) -> Any:
    """The error of the `response.failed` that ends a Responses stream."""
    client = openai.OpenAI(base_url=proxy.url, api_key="none", max_retries=0, timeout=30)
    events = list(client.responses.create(model=model, input=ASK, stream=True))
    assert events[-1].type == "response.failed"
    return events[-1].response.error  # type: ignore[union-attr]


@pytest.mark.parametrize("kind", TRANSIENT)
def test_a_transient_failure_mid_stream_says_it_in_words_clients_retry_on(
    setup: tuple[Running, RunningRouter], fault: Any, kind: str
) -> None:
    """Over chat (the in-band `data: {"error": ...}`) and Responses (`response.failed`),
    keeping the error's code."""
    _, proxy = setup
    model, spec, code = TRANSIENT[kind]
    fault(spec)
    chat = chat_failure(proxy, model)
    assert PI_RETRY.search(chat.message), chat.message
    assert chat.code == code and chat.type == "upstream_error"
    responses = responses_failure(proxy, model)
    assert PI_RETRY.search(responses.message), responses.message
    assert responses.code == code


# A chat upstream whose stream ends with its answer unfinished: closed, or [DONE] first
# (litellm's adapter ends every stream so). Over Responses the translator reads it.
SHORT = {
    "closed": chat_chunk(0, "Hello") + chat_chunk(0, " the"),
    "done first": chat_chunk(0, "Hello") + chat_chunk(0, " the") + b"data: [DONE]\n\n",
}


@pytest.mark.parametrize("end", SHORT)
def test_a_stream_that_ends_short_says_it_in_words_clients_retry_on(
    tmp_path: Path, end: str
) -> None:
    with scripted_stream(SHORT[end]) as upstream:
        config = config_for({"local": upstream}, tmp_path).model_dump()
        config["backends"][0]["apis"] = ["chat"]  # a Responses request is translated
        with router(parse(config)) as proxy:
            chat = chat_failure(proxy, "local")
            responses = responses_failure(proxy, "local")
    assert chat.code == responses.code == "upstream_cut"
    for said in (chat.message, responses.message):
        assert PI_RETRY.search(said), said


def test_a_refusal_says_no_retry_words(setup: tuple[Running, RunningRouter], fault: Any) -> None:
    """The backend's in-band 400 after the stream began (passed on in its words) and the
    router's own refusal of a stream: a retry gets the same answer."""
    _, proxy = setup
    fault("error_event:2:400")
    in_band = chat_failure(proxy, "local")
    fault(None)
    own = chat_failure(proxy, "local", max_tokens=-1)
    assert isinstance(own, openai.BadRequestError)
    for refused in (in_band, own):
        assert not PI_RETRY.search(refused.message), refused.message


# Through a litellm backend (`router.backends.litellm_errors`), which raises each its own
# way: a connection broken mid-reply (the simulator's cut), and a stream that ends cleanly
# before its finish reason, with `[DONE]` or without (`SHORT`)


def litellm_config(upstream: Running, path: Path) -> Any:
    """A router whose one backend, `local`, is litellm speaking OpenAI's chat to `upstream`."""
    data = config_for({"local": upstream}, path).model_dump()
    data["backends"] = [openai_via_litellm("local", upstream.url, "local-model")]
    return parse(data)


def test_a_litellm_backends_cut_says_it_in_words_clients_retry_on(
    setup: tuple[Running, RunningRouter], fault: Any, tmp_path: Path
) -> None:
    local, _ = setup
    fault("cut_stream")
    with router(litellm_config(local, tmp_path)) as proxy:
        chat = chat_failure(proxy, "local")
    assert PI_RETRY.search(chat.message), chat.message
    assert chat.code == "upstream_cut"


@pytest.mark.parametrize("end", SHORT)
def test_a_litellm_stream_that_ends_short_says_it_in_words_clients_retry_on(
    tmp_path: Path, end: str
) -> None:
    with (
        scripted_stream(SHORT[end]) as upstream,
        router(litellm_config(upstream, tmp_path)) as proxy,
    ):
        chat = chat_failure(proxy, "local")
    assert PI_RETRY.search(chat.message), chat.message
    assert chat.code == "upstream_cut"
