"""The router's own refusal of a field it reads (`router.request`) is OpenAI's, word for word
and with its code (`router.field_refusals`): a `max_tokens: 0`, a `messages: "hi"`, a
`model: 5` were answered in the router's words with `"code": null` (found in review). The
official SDKs against a running router whose backends are simulators; nothing reaches
them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import anthropic
import openai
import pytest

from tests.echo_zero import echo_nothing_streamed
from tests.harness import Running, RunningRouter, config_for, router, simulator

HI: Any = [{"role": "user", "content": "hi"}]


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RunningRouter, Running]]:
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
        router(config_for({"local": local, "cloud": cloud}, tmp_path_factory.mktemp("f"))) as r,
    ):
        yield r, local


def _sdk(proxy: RunningRouter) -> openai.OpenAI:
    return openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)


def _refusal(ask: Callable[[], object]) -> tuple[str | None, str | None, str]:
    """The `code`, `param` and message of the 400 `ask` met."""
    with pytest.raises(openai.BadRequestError) as refused:
        ask()
    error = refused.value
    assert error.type == "invalid_request_error"
    body = error.body
    assert isinstance(body, dict)
    return error.code, error.param, body["message"]


def _type(param: str, expected: str, got: str) -> tuple[str, str, str]:
    message = f"Invalid type for '{param}': expected {expected}, but got {got} instead."
    return "invalid_type", param, message


def _missing(param: str) -> tuple[str, str, str]:
    return "missing_required_parameter", param, f"Missing required parameter: '{param}'."


def _below(param: str, least: int, got: int) -> tuple[str, str, str]:
    message = (
        f"Invalid '{param}': integer below minimum value. Expected a value >= {least}, but got"
        f" {got} instead."
    )
    return "integer_below_min_value", param, message


def _above(param: str, most: int, got: int) -> tuple[str, str, str]:
    message = (
        f"Invalid '{param}': integer above maximum value. Expected a value <= {most}, but got"
        f" {got} instead."
    )
    return "integer_above_max_value", param, message


def _empty(param: str, kind: str) -> tuple[str, str, str]:
    message = (
        f"Invalid '{param}': empty {kind}. Expected a{'n' if kind == 'array' else ''} {kind}"
        f" with minimum length 1, but got an empty {kind} instead."
    )
    return f"empty_{kind}", param, message


CONTENT = "one of a string or array of objects"
CHAT: list[tuple[dict[str, Any], tuple[str, str, str]]] = [
    # it-at-m/mucgpt#608, word for word
    ({"max_tokens": 0}, _below("max_tokens", 1, 0)),
    ({"max_tokens": -1}, _below("max_tokens", 1, -1)),  # YSocialTwin/YClient#6
    ({"max_completion_tokens": 0}, _below("max_completion_tokens", 1, 0)),
    # portkey.ai's error library quotes it
    ({"messages": "hi"}, _type("messages", "an array of objects", "a string")),
    ({"messages": {"role": "user"}}, _type("messages", "an array of objects", "an object")),
    ({"messages": []}, _empty("messages", "array")),  # CopilotKit/CopilotKit#529
    ({"messages": None}, _missing("messages")),
    ({"messages": [42]}, _type("messages[0]", "an object", "an integer")),
    ({"messages": [{"content": "x"}]}, _missing("messages[0].role")),
    (
        {"messages": [{"role": 1, "content": "x"}]},
        _type("messages[0].role", "a string", "an integer"),
    ),
    # pydantic/pydantic-ai#2653
    (
        {"messages": [*HI, {"role": "user", "content": {}}]},
        _type("messages[1].content", CONTENT, "an object"),
    ),
    (
        {"messages": [*HI, {"role": "assistant", "tool_calls": 5}, *HI]},
        _type("messages[1].tool_calls", "an array of objects", "an integer"),
    ),
    (
        {"messages": [*HI, {"role": "assistant", "tool_calls": [7]}, *HI]},
        _type("messages[1].tool_calls[0]", "an object", "an integer"),
    ),
    ({"model": 5}, _type("model", "a string", "an integer")),
    ({"model": ""}, _empty("model", "string")),
    ({"model": None}, _missing("model")),  # mattermost/mattermost-plugin-agents#476
    # `n` as OpenAI bounds it (1 to 128): passed on unchecked, one `n` of 2**64 - 1 took the
    # demo router down (found in review); 129 was served
    ({"n": 129}, _above("n", 128, 129)),
    ({"n": 0}, _below("n", 1, 0)),
    ({"n": "2"}, _type("n", "an integer", "a string")),
    ({"n": 2.0}, _type("n", "an integer", "a decimal number")),
    ({"n": True}, _type("n", "an integer", "a boolean")),
]


@pytest.mark.parametrize(("asked", "expected"), CHAT, ids=lambda v: str(v)[:50])
def test_a_chat_field_is_refused_in_openais_words(
    stack: tuple[RunningRouter, Running], asked: dict[str, Any], expected: tuple[str, ...]
) -> None:
    proxy, _ = stack
    sdk = _sdk(proxy)
    ask = lambda: sdk.chat.completions.create(model="auto", messages=HI, extra_body=asked)  # noqa: E731
    assert _refusal(ask) == expected


INPUT = "one of a string or array of input items"
RESPONSES: list[tuple[dict[str, Any], tuple[str, str, str]]] = [
    ({"max_output_tokens": 0}, _below("max_output_tokens", 1, 0)),
    ({"input": {"role": "user"}}, _type("input", INPUT, "an object")),
    ({"input": []}, _empty("input", "array")),
    ({"input": ""}, _empty("input", "string")),
    ({"input": None}, _missing("input")),
    ({"input": ["hi"]}, _type("input[0]", "an object", "a string")),
    ({"input": [{"role": "user", "content": 7}]}, _type("input[0].content", CONTENT, "an integer")),
]


@pytest.mark.parametrize(("asked", "expected"), RESPONSES, ids=lambda v: str(v)[:50])
def test_a_responses_field_is_refused_in_openais_words(
    stack: tuple[RunningRouter, Running], asked: dict[str, Any], expected: tuple[str, ...]
) -> None:
    proxy, _ = stack
    sdk = _sdk(proxy)
    ask = lambda: sdk.responses.create(model="auto", input="hi", extra_body=asked)  # noqa: E731
    assert _refusal(ask) == expected


PROMPT = "one of a string, array of strings, array of integers, or array of arrays of integers"


@pytest.mark.parametrize(
    ("asked", "expected"),
    [
        ({"max_tokens": 0}, _below("max_tokens", 1, 0)),
        ({"max_tokens": -1}, _below("max_tokens", 1, -1)),
        ({"max_tokens": -1, "echo": True}, _below("max_tokens", 0, -1)),
        # an `echo` vLLM cannot read lifts no minimum; "true" it reads as true, as the
        # router does since 2026-12-06 (`router.scoring.echo_asked`): served, not refused
        ({"max_tokens": 0, "echo": "maybe"}, _below("max_tokens", 1, 0)),
        ({"prompt": {"text": "hi"}}, _type("prompt", PROMPT, "an object")),
        ({"prompt": None}, _missing("prompt")),
        ({"n": 129}, _above("n", 128, 129)),
        ({"n": -1}, _below("n", 1, -1)),
    ],
    ids=lambda v: str(v)[:50],
)
def test_a_completions_field_is_refused_in_openais_words(
    stack: tuple[RunningRouter, Running], asked: dict[str, Any], expected: tuple[str, ...]
) -> None:
    proxy, _ = stack
    sdk = _sdk(proxy)
    ask = lambda: sdk.completions.create(model="auto", prompt="hi", extra_body=asked)  # noqa: E731
    assert _refusal(ask) == expected


def test_completions_max_tokens_0_without_echo_reaches_no_backend(
    stack: tuple[RunningRouter, Running],
) -> None:
    """Without `echo` a `max_tokens: 0` asks for nothing: vLLM refuses it in its own words,
    which reached the client with a null code; the router refuses it as OpenAI words a
    limit below 1 (`integer_below_min_value`), and nothing is sent on."""
    proxy, local = stack
    before = local.completions("/v1/completions")
    ask = lambda: _sdk(proxy).completions.create(model="local", prompt="hi", max_tokens=0)  # noqa: E731
    assert _refusal(ask) == _below("max_tokens", 1, 0)
    assert local.completions("/v1/completions") == before


@pytest.mark.parametrize("stream", [False, True])
def test_completions_max_tokens_0_with_echo_is_the_prompt_echoed(
    stack: tuple[RunningRouter, Running], stream: bool
) -> None:
    """`max_tokens: 0` with `echo` asks for the prompt back (with its log probabilities,
    lm-eval's loglikelihood request) and nothing written, which vLLM serves: the router sends
    it on, and the client gets the prompt as the choice's text, "length", the one token vLLM
    generates and does not show in the usage."""
    proxy, local = stack
    sdk = _sdk(proxy)
    prompt = "The capital of France is"
    if stream:
        chunks = echo_nothing_streamed(sdk, "local", prompt)
        said = [(c.choices[0].text, c.choices[0].finish_reason) for c in chunks if c.choices]
        usage = chunks[-1].usage
    else:
        raw = sdk.completions.with_raw_response.create(
            model="local", prompt=prompt, max_tokens=0, echo=True
        )
        assert raw.headers["x-smf-backend"] == "local"
        done = raw.parse()
        said = [(c.text, c.finish_reason) for c in done.choices]
        usage = done.usage
    assert said == [(prompt, "length")]
    assert usage is not None and usage.completion_tokens == 1
    sent = local.stats()["last_request"]
    assert (sent["max_tokens"], sent["echo"]) == (0, True)


@pytest.mark.parametrize(
    ("asked", "message"),
    [
        ({"max_tokens": 0}, "max_tokens: Input should be greater than or equal to 1, not 0"),
        ({"max_tokens": None}, "max_tokens: Field required"),
        (
            {"system": 5},
            "system: Input should be a string or an array of content blocks, not an integer",
        ),
        ({"messages": "hi"}, "messages: Input should be an array of objects, not a string"),
        ({"tool_choice": "auto"}, "tool_choice: Input should be an object, not a string"),
        ({"tool_choice": {}}, "tool_choice.type: Field required"),
        (
            {"messages": [{"role": "user", "content": [{"type": "image", "source": "x"}]}]},
            "messages.0.content.0.source: Input should be an object, not a string",
        ),
        (  # absent, it was "expected an object, but got null instead" (found in review)
            {"messages": [{"role": "user", "content": [{"type": "image"}]}]},
            "messages.0.content.0.source: Field required",
        ),
        (
            {"messages": [HI[0], {"role": "user", "content": [{"type": "image", "source": None}]}]},
            "messages.1.content.0.source: Field required",
        ),
    ],
    ids=lambda v: str(v)[:50],
)
def test_a_messages_field_is_refused_in_anthropics_envelope_named_as_sent(
    stack: tuple[RunningRouter, Running], asked: dict[str, Any], message: str
) -> None:
    """Anthropic's envelope carries a message and a type alone: the words are Anthropic's,
    naming the field as its API does (`messages.0.content.0.source`), where they were
    OpenAI's ("Missing required parameter: 'messages[0].content[0].source'."); every other
    refusal of the router's own on Messages: `test_agent_messages_words`."""
    proxy, _ = stack
    claude = anthropic.Anthropic(base_url=proxy.root, api_key="x", max_retries=0)
    with pytest.raises(anthropic.BadRequestError) as refused:
        claude.messages.create(model="auto", max_tokens=5, messages=HI, extra_body=asked)
    body = refused.value.body
    assert isinstance(body, dict) and body["type"] == "error"
    assert body["error"] == {"type": "invalid_request_error", "message": message}
