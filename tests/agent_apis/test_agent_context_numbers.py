"""Claude Code lowers `max_tokens` and asks again only on Anthropic's output refusal with
its numbers: its `parseMaxTokensContextOverflowError` matches "input length and
`max_tokens` exceed context limit: (\\d+) \\+ (\\d+) > (\\d+)". The router's own refusal
said the phrase without them, and a vLLM refusal naming the limit and the window left the
input length "not known": the session stopped at the error (found in review). The router
says its estimate of the prompt, the `max_tokens` asked and the largest window it skipped.

And a refusal of the router's own, nothing tried, sent `x-smf-backend` empty: it leaves the
header out, on every API, as `count_tokens` does for an estimate (found in review).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import anthropic
import httpx
import openai
import pytest

from router.config import parse
from router.request_size import estimate_prompt_tokens
from tests.agent_apis.agent_stack import anthropic_client, openai_client, stack_config
from tests.harness import Running, RunningRouter, router, simulator

# Claude Code's own pattern (parseMaxTokensContextOverflowError)
CLAUDE_CODE = re.compile(
    r"input length and `max_tokens` exceed context limit: (\d+) \+ (\d+) > (\d+)"
)
ANTHROPICS = (
    "input length and `max_tokens` exceed context limit: {} + {} > {}, decrease input "
    "length or `max_tokens` and try again. "
)
SERVED = 2048  # the simulator's own window
NARROW, WIDE = 1200, 1600  # the two windows the router is told
ASK = [{"role": "user", "content": "word " * 500}]  # fits either window, by any count
ROUTERS_OWN = "This request's prompt and the output its max_tokens asks room for"


@pytest.fixture(scope="module")
def cloud() -> Iterator[Running]:
    """vLLM with a 2048-token window, which the router sends chat: Messages translated."""
    with simulator(profile="vllm", model="cloud-model", max_model_len=SERVED) as running:
        yield running


@pytest.fixture(scope="module")
def proxy(cloud: Running, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningRouter]:
    """Two backends on `cloud`, told windows of 1200 and 1600: the router refuses before
    either is asked when the prompt and its `max_tokens` fit neither."""
    data = stack_config({"cloud": cloud}, tmp_path_factory.mktemp("numbers"), ["cloud"])
    config = data.model_dump()
    narrow = {**config["backends"][0], "context_window": NARROW}
    wide = {**narrow, "name": "wide", "context_window": WIDE}
    config["backends"] = [narrow, wide]
    config["routes"] = {route: ["cloud", "wide"] for route in config["routes"]}
    with router(parse({**config, "resilience": {"enabled": False}})) as running:
        yield running


@pytest.fixture(scope="module")
def unconfigured(
    cloud: Running, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningRouter]:
    """`cloud` alone with no window told: the backend refuses, in vLLM's words."""
    data = stack_config({"cloud": cloud}, tmp_path_factory.mktemp("vllm"), ["cloud"])
    with router(parse({**data.model_dump(), "resilience": {"enabled": False}})) as running:
        yield running


def estimate(max_tokens: int) -> int:
    """The router's estimate of the prompt the SDK sends."""
    body: dict[str, Any] = {"model": "auto", "max_tokens": max_tokens, "messages": ASK}
    return estimate_prompt_tokens("messages", body)


def refusal(proxy: RunningRouter, max_tokens: int, model: str = "auto") -> anthropic.APIStatusError:
    with pytest.raises(anthropic.BadRequestError) as refused:
        anthropic_client(proxy).messages.create(
            model=model,
            max_tokens=max_tokens,
            messages=ASK,  # type: ignore[arg-type]
        )
    return refused.value


def message_of(error: anthropic.APIStatusError) -> str:
    body = error.body
    assert isinstance(body, dict) and body["error"]["type"] == "invalid_request_error"
    return str(body["error"]["message"])


def test_the_routers_own_output_refusal_says_its_numbers_as_claude_code_reads_them(
    proxy: RunningRouter, cloud: Running
) -> None:
    before = cloud.stats()["requests"]
    refused = refusal(proxy, max_tokens=1500)
    said = message_of(refused)
    assert cloud.stats()["requests"] == before  # the router's own: nothing was sent
    found = CLAUDE_CODE.search(said)
    assert found is not None, said
    prompt, max_tokens, window = map(int, found.groups())
    assert (prompt, max_tokens, window) == (estimate(1500), 1500, WIDE)  # the largest window
    assert said.startswith(ANTHROPICS.format(prompt, max_tokens, window))
    assert ROUTERS_OWN in said  # then the router's own words
    assert "The input length is the router's estimate of the prompt's tokens" in said
    assert CLAUDE_CODE.search(str(refused))  # as the SDK's error reads, which Claude Code matches


def test_a_stream_refused_so_is_a_400_with_the_numbers(proxy: RunningRouter) -> None:
    with (
        pytest.raises(anthropic.BadRequestError) as refused,
        anthropic_client(proxy).messages.stream(
            model="auto",
            max_tokens=1500,
            messages=ASK,  # type: ignore[arg-type]
        ) as stream,
    ):
        stream.get_final_message()
    found = CLAUDE_CODE.search(message_of(refused.value))
    assert found is not None and int(found.group(3)) == WIDE


def test_max_tokens_lowered_as_the_numbers_say_is_served(proxy: RunningRouter) -> None:
    """What Claude Code does with them: ask again with the room the numbers leave."""
    found = CLAUDE_CODE.search(message_of(refusal(proxy, max_tokens=1500)))
    assert found is not None
    prompt, _, window = map(int, found.groups())
    raw = anthropic_client(proxy).messages.with_raw_response.create(
        model="auto",
        max_tokens=window - prompt,
        messages=ASK,  # type: ignore[arg-type]
    )
    assert raw.headers["x-smf-backend"] == "wide"  # the window the refusal named
    assert raw.parse().type == "message"


def test_a_backends_output_refusal_takes_the_routers_estimate_for_the_input_length(
    unconfigured: RunningRouter,
) -> None:
    """vLLM names `max_tokens` and its window, not the prompt: the router's estimate of it
    completes the numbers, and a note says whose each one is."""
    said = message_of(refusal(unconfigured, max_tokens=4000, model="cloud"))
    found = CLAUDE_CODE.search(said)
    assert found is not None, said
    assert tuple(map(int, found.groups())) == (estimate(4000), 4000, SERVED)
    assert "max_tokens=4000 cannot be greater than max_model_len=2048" in said  # vLLM's
    assert "The input length is the router's estimate of the prompt's tokens" in said


def test_openai_clients_keep_the_routers_words(proxy: RunningRouter) -> None:
    """The same refusal on chat and Responses: the router's words and the OpenAI code Codex
    reads, no Anthropic phrase."""
    sdk = openai_client(proxy)
    with pytest.raises(openai.BadRequestError) as chat:
        sdk.chat.completions.create(model="auto", max_tokens=1500, messages=ASK)  # type: ignore[arg-type]
    with pytest.raises(openai.BadRequestError) as responses:
        sdk.responses.create(model="auto", max_output_tokens=1500, input=ASK)  # type: ignore[arg-type]
    for refused, field in ((chat.value, "max_tokens"), (responses.value, "max_output_tokens")):
        body = refused.body
        assert isinstance(body, dict) and body["code"] == "context_length_exceeded"
        assert body["param"] == field
        assert body["message"].startswith(f"This request's prompt and the output its {field}")
        assert "exceed context limit" not in body["message"]


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/chat/completions", {"max_tokens": 1500, "messages": ASK}),
        ("/v1/completions", {"max_tokens": 1500, "prompt": "word " * 500}),
        ("/v1/responses", {"max_output_tokens": 1500, "input": ASK}),
        ("/v1/messages", {"max_tokens": 1500, "messages": ASK}),
        ("/v1/messages", {"max_tokens": 1500, "messages": ASK, "stream": True}),
    ],
)
def test_a_refusal_with_nothing_tried_names_no_backend(
    proxy: RunningRouter, path: str, body: dict[str, Any]
) -> None:
    """On the wire, as any client gets it: no `x-smf-backend` at all, not an empty one."""
    answer = httpx.post(
        f"{proxy.root}{path}", json={"model": "auto", **body}, timeout=30, trust_env=False
    )
    assert answer.status_code == 400, answer.text
    assert answer.headers["x-smf-attempts"] == "0"
    assert "x-smf-backend" not in answer.headers
    assert answer.headers["x-smf-route"]  # the decision's other headers are there
