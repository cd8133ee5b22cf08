"""Nothing tried, one backend's window under the prompt, another's holding the prompt but not
the output room asked: the refusal names the output limit, with the numbers, since a lower
`max_tokens` is served. It told the client its prompt was too long ("prompt is too long ...
or lower max_tokens", `param: messages`, no numbers): Claude Code compacted its history or
stopped, where lowering `max_tokens` by the numbers would have been served (found in
review). With no window holding even the prompt, the prompt refusal stays.
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
from tests.harness import RunningRouter, router, simulator

# Claude Code's own pattern (parseMaxTokensContextOverflowError)
CLAUDE_CODE = re.compile(
    r"input length and `max_tokens` exceed context limit: (\d+) \+ (\d+) > (\d+)"
)
SERVED = 2048  # the simulator's own window
SMALL, WIDE = 400, 1600  # the windows the router is told: under the prompt, and over it
ASK = [{"role": "user", "content": "word " * 500}]  # 630 tokens by the router's estimate
LONG = [{"role": "user", "content": "word " * 2000}]  # over both windows
ASKED = 1500  # fits neither with ASK: 630 + 1500 > 1600


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningRouter]:
    """Two backends on one vLLM simulator (chat: Messages and Responses translated), told
    windows of 400 and 1600 tokens."""
    with simulator(profile="vllm", model="cloud-model", max_model_len=SERVED) as cloud:
        data = stack_config({"cloud": cloud}, tmp_path_factory.mktemp("mixed"), ["cloud"])
        config = data.model_dump()
        small = {**config["backends"][0], "context_window": SMALL}
        wide = {**small, "name": "wide", "context_window": WIDE}
        config["backends"] = [small, wide]
        config["routes"] = {route: ["cloud", "wide"] for route in config["routes"]}
        with router(parse({**config, "resilience": {"enabled": False}})) as running:
            yield running


def estimate(max_tokens: int) -> int:
    body: dict[str, Any] = {"model": "auto", "max_tokens": max_tokens, "messages": ASK}
    return estimate_prompt_tokens("messages", body)


def skipped(proxy: RunningRouter, body: dict[str, Any]) -> list[tuple[str, str]]:
    explained = httpx.post(f"{proxy.url}/router/explain", json=body, trust_env=False, timeout=30)
    return [(s["backend"], s["reason"]) for s in explained.json()["skipped"]]


def message_of(error: anthropic.APIStatusError) -> str:
    body = error.body
    assert isinstance(body, dict) and body["error"]["type"] == "invalid_request_error"
    return str(body["error"]["message"])


def test_the_plan_skips_one_for_the_prompt_and_one_for_the_output_room(
    proxy: RunningRouter,
) -> None:
    body = {"model": "auto", "max_tokens": ASKED, "messages": ASK}
    assert skipped(proxy, body) == [("cloud", "context_window"), ("wide", "max_tokens_window")]


@pytest.mark.parametrize("stream", [False, True])
def test_claude_code_is_told_the_numbers_to_lower_max_tokens_by(
    proxy: RunningRouter, stream: bool
) -> None:
    client = anthropic_client(proxy)
    with pytest.raises(anthropic.BadRequestError) as refused:
        if stream:
            with client.messages.stream(model="auto", max_tokens=ASKED, messages=ASK) as s:  # type: ignore[arg-type]
                s.get_final_message()
        else:
            client.messages.create(model="auto", max_tokens=ASKED, messages=ASK)  # type: ignore[arg-type]
    said = message_of(refused.value)
    found = CLAUDE_CODE.search(said)
    assert found is not None, said
    assert tuple(map(int, found.groups())) == (estimate(ASKED), ASKED, WIDE)
    assert not said.lower().startswith("prompt is too long")


def test_max_tokens_lowered_as_the_numbers_say_is_served(proxy: RunningRouter) -> None:
    """What Claude Code does with them: ask again with the room the numbers leave."""
    client = anthropic_client(proxy)
    with pytest.raises(anthropic.BadRequestError) as refused:
        client.messages.create(model="auto", max_tokens=ASKED, messages=ASK)  # type: ignore[arg-type]
    found = CLAUDE_CODE.search(message_of(refused.value))
    assert found is not None
    prompt, _, window = map(int, found.groups())
    raw = client.messages.with_raw_response.create(
        model="auto",
        max_tokens=window - prompt,
        messages=ASK,  # type: ignore[arg-type]
    )
    assert raw.headers["x-smf-backend"] == "wide"
    assert raw.parse().type == "message"


@pytest.mark.parametrize(
    ("api", "field"),
    [
        ("chat", "max_tokens"),
        ("chat", "max_completion_tokens"),
        ("responses", "max_output_tokens"),
    ],
)
def test_openai_clients_are_told_the_output_limit_they_sent(
    proxy: RunningRouter, api: str, field: str
) -> None:
    """Codex reads `context_length_exceeded`; `param` is the client's own limit field."""
    sdk = openai_client(proxy)
    with pytest.raises(openai.BadRequestError) as refused:
        if api == "chat":
            sdk.chat.completions.create(model="auto", messages=ASK, **{field: ASKED})  # type: ignore[call-overload]
        else:
            sdk.responses.create(model="auto", input=ASK, max_output_tokens=ASKED)  # type: ignore[arg-type]
    body = refused.value.body
    assert isinstance(body, dict)
    assert (body["code"], body["param"]) == ("context_length_exceeded", field)
    assert body["message"].startswith(f"This request's prompt and the output its {field}")
    assert body["message"].endswith(f"lower {field}.")
    assert "exceed context limit" not in body["message"]


def test_explain_says_the_same_refusal(proxy: RunningRouter) -> None:
    body = {"model": "auto", "max_tokens": ASKED, "messages": ASK}
    explained = httpx.post(f"{proxy.url}/router/explain", json=body, trust_env=False, timeout=30)
    refusal = explained.json()["refusal"]
    assert (refusal["status"], refusal["param"]) == (400, "max_tokens")


def test_a_prompt_no_window_holds_is_still_the_prompts_refusal(proxy: RunningRouter) -> None:
    """Both skipped for the prompt (a limit sent): lowering it serves nothing."""
    body = {"model": "auto", "max_tokens": 10, "messages": LONG}
    assert skipped(proxy, body) == [("cloud", "context_window"), ("wide", "context_window")]
    with pytest.raises(anthropic.BadRequestError) as refused:
        anthropic_client(proxy).messages.create(model="auto", max_tokens=10, messages=LONG)  # type: ignore[arg-type]
    said = message_of(refused.value)
    assert said.lower().startswith("prompt is too long")
    assert said.endswith("shorten the prompt.")
    with pytest.raises(openai.BadRequestError) as chat:
        openai_client(proxy).chat.completions.create(model="auto", max_tokens=10, messages=LONG)  # type: ignore[arg-type]
    assert isinstance(chat.value.body, dict) and chat.value.body["param"] == "messages"
