"""Claude Code compacts its history on Anthropic's own words for a context refusal: "prompt
is too long" (the prompt alone over the window) and "input length and `max_tokens` exceed
context limit" (the output room asked over it), matched case-insensitively. vLLM's, OpenAI's
and the router's own words it read as any 400, and the session stopped at its window (found
in review). Seen here through the `anthropic` SDK, as Claude Code sees them; OpenAI clients
keep the backend's words.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest

from router.config import parse
from tests.agent_apis.agent_stack import (
    anthropic_client,
    messages_stream_error,
    openai_client,
    stack_config,
)
from tests.harness import Running, RunningRouter, router, simulator

PROMPT = "prompt is too long"
OUTPUT = "input length and `max_tokens` exceed context limit"
WINDOW = 2048
LONG = [{"role": "user", "content": "word " * 5000}]  # over 2048 tokens by any count
SHORT = [{"role": "user", "content": "word " * 500}]


@pytest.fixture(scope="module")
def cloud() -> Iterator[Running]:
    """A vLLM server of a 2048-token window that the router sends chat only: Messages
    reaches it translated, and its refusals come back in vLLM's words."""
    with simulator(profile="vllm", model="cloud-model", max_model_len=WINDOW) as running:
        yield running


@pytest.fixture(scope="module")
def proxy(cloud: Running, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningRouter]:
    """`cloud` alone, with no window configured: the backend refuses, not the router."""
    data = stack_config({"cloud": cloud}, tmp_path_factory.mktemp("words"), ["cloud"])
    with router(parse({**data.model_dump(), "resilience": {"enabled": False}})) as running:
        yield running


def refused(proxy: RunningRouter, **request: Any) -> anthropic.BadRequestError:
    with pytest.raises(anthropic.BadRequestError) as failed:
        anthropic_client(proxy).messages.create(model="cloud", **request)
    return failed.value


def message_of(error: anthropic.APIStatusError) -> str:
    body = error.body
    assert isinstance(body, dict) and body["type"] == "error"
    assert body["error"]["type"] == "invalid_request_error"
    return str(body["error"]["message"])


def test_a_backends_prompt_refusal_leads_with_anthropics_words_and_numbers(
    proxy: RunningRouter,
) -> None:
    said = message_of(refused(proxy, max_tokens=100, messages=LONG))
    assert said.startswith(f"{PROMPT}: {WINDOW + 1} tokens > {WINDOW} maximum. ")
    assert f"This model's maximum context length is {WINDOW} tokens" in said  # vLLM's, after


def test_a_backends_output_refusal_leads_with_anthropics_output_words(
    proxy: RunningRouter,
) -> None:
    """vLLM names the output limit and the window, not the prompt: the phrase stays whole,
    the numbers known follow it, none made up."""
    said = message_of(refused(proxy, max_tokens=4000, messages=SHORT))
    assert said.startswith(OUTPUT)
    assert "`max_tokens` 4000, context limit 2048" in said
    assert "max_tokens=4000 cannot be greater than max_model_len=2048" in said


def test_a_context_fault_is_worded_for_claude_code_whole_and_streamed(
    proxy: RunningRouter, cloud: Running
) -> None:
    """The refusal before a stream's first event is an HTTP 400 as well."""
    cloud.control("faults", {"fault": "context_length"})
    try:
        said = message_of(refused(proxy, max_tokens=100, messages=SHORT))
        with (
            pytest.raises(anthropic.BadRequestError) as failed,
            anthropic_client(proxy).messages.stream(
                model="cloud", max_tokens=100, messages=SHORT
            ) as stream,
        ):
            stream.get_final_message()
    finally:
        cloud.control("faults", {"fault": None})
    assert said.lower().startswith(PROMPT)
    assert message_of(failed.value).lower().startswith(PROMPT)


def test_a_context_error_mid_stream_ends_in_anthropics_words(
    proxy: RunningRouter, cloud: Running
) -> None:
    """vLLM's in-band 400 after two tokens: Anthropic's `error` event, which the SDK raises."""
    cloud.control("faults", {"fault": "error_event:2:400"})
    try:
        error = messages_stream_error(proxy, "cloud", SHORT)
    finally:
        cloud.control("faults", {"fault": None})
    assert error["type"] == "invalid_request_error"
    assert error["message"].startswith(f"{PROMPT}: {WINDOW + 1} tokens > {WINDOW} maximum. ")


def test_openai_clients_keep_the_backends_words(proxy: RunningRouter) -> None:
    with pytest.raises(openai.BadRequestError) as failed:
        openai_client(proxy).chat.completions.create(
            model="cloud",
            max_tokens=100,
            messages=LONG,  # type: ignore[arg-type]
        )
    body = failed.value.body
    assert isinstance(body, dict)
    assert body["message"].startswith(f"This model's maximum context length is {WINDOW}")
    assert body["code"] == "context_length_exceeded"


def test_the_routers_own_refusals_lead_with_anthropics_words(
    cloud: Running, tmp_path: Path
) -> None:
    """A window the router knows (configured) refuses before any backend is asked: a prompt
    over it, and a prompt whose `max_tokens` asks more room than is left."""
    data = stack_config({"cloud": cloud}, tmp_path, ["cloud"]).model_dump()
    data["backends"][0]["context_window"] = 1000
    with router(parse({**data, "resilience": {"enabled": False}})) as proxy:
        before = cloud.stats()["requests"]
        prompt = message_of(refused(proxy, max_tokens=100, messages=SHORT * 4))
        output = message_of(refused(proxy, max_tokens=900, messages=SHORT))
        sent = cloud.stats()["requests"] - before
    assert prompt.startswith(f"{PROMPT}. This request is longer than the context window")
    # with its numbers, the only form Claude Code lowers `max_tokens` on (its own numbers
    # are tests/agent_apis/test_agent_context_numbers.py's)
    advice = "decrease input length or `max_tokens` and try again. "
    assert re.match(rf"{re.escape(OUTPUT)}: \d+ \+ 900 > 1000, {re.escape(advice)}", output)
    assert "This request's prompt and the output its max_tokens asks room for" in output
    assert sent == 0  # the router's own refusals: the backend was never asked
