"""The router's own refusals reach a Messages client in Anthropic's words, not OpenAI's.

Every refusal the router makes itself on `/v1/messages` and `/v1/messages/count_tokens`
(a body it cannot read, a field it checks, an unknown model, a body too large, a wrong key,
its `x-smf-*` headers, vLLM's own field, every backend away) comes in Anthropic's envelope
with Anthropic's type for its status, as the `anthropic` SDK reads it. A field it checks is
named as Anthropic's API names one, a path of dots and indexes and then what is wrong
("max_tokens: Field required", "messages.2.content.1: ..."): these said OpenAI's
"Missing required parameter: 'max_tokens'." and `messages[2].content[1]` (found in review),
words and paths no Anthropic client or document uses.

Through the official `anthropic` SDK (its generic `post`, which sends a body its typed
`messages.create` would not) against a real router on simulators.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anthropic
import pytest

from router.config import hash_key, parse
from tests.harness import INTENTS, Running, RunningRouter, router, simulator

KEY = "sk-team-alice-7c41"
LIMIT = 64 * 1024
HI: Any = [{"role": "user", "content": "Write a Python function that reverses a list."}]
ASK: dict[str, Any] = {"model": "local", "max_tokens": 9, "messages": HI}
LONG: Any = [
    {"role": "user", "content": "a"},
    {"role": "assistant", "content": "b"},
    {"role": "user", "content": [{"type": "text", "text": "c"}, 7]},
]
# What no Anthropic refusal says: OpenAI's words, its paths and its own field
OPENAI_WORDS = ("Missing required parameter", "Invalid type for", "Invalid '", "[", "instead.")


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, Running]]:
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="vllm", model="limited-model", fault="rate_limit:600") as limited,
        simulator(profile="vllm", model="failing-model") as failing,
    ):
        yield {"local": local, "limited": limited, "failing": failing}


@pytest.fixture(scope="module")
def proxy(
    servers: dict[str, Running], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningRouter]:
    backends = [
        {
            "name": name,
            "tier": "local" if name == "local" else "cloud",
            "base_url": server.url,
            "model": f"{name}-model",
            "apis": ["chat", "messages"],
        }
        for name, server in servers.items()
    ]
    config = parse(
        {
            "backends": backends,
            "routes": {intent: ["local"] for intent in INTENTS},
            "auth": {"keys": [{"name": "alice", "sha256": hash_key(KEY)}]},
            "server": {"max_body_bytes": LIMIT},
            "ledger": {"path": str(tmp_path_factory.mktemp("words") / "ledger")},
            # one failure opens a circuit for an hour: the router's own 503 after it
            "resilience": {"failure_threshold": 1, "open_s": 3600, "max_open_s": 3600},
        }
    )
    with router(config) as running:
        yield running


def refused(
    proxy: RunningRouter, path: str, body: Any, key: str = KEY, **headers: str
) -> anthropic.APIStatusError:
    """The SDK's error for `body` (raw bytes sent as they are) posted to `path`."""
    claude = anthropic.Anthropic(base_url=proxy.root, api_key=key, max_retries=0)
    sent: dict[str, Any] = {"content": body} if isinstance(body, bytes) else {"body": body}
    options: Any = {"headers": {"content-type": "application/json", **headers}}
    with pytest.raises(anthropic.APIStatusError) as raised:
        claude.post(path, cast_to=object, options=options, **sent)
    return raised.value


def said(error: anthropic.APIStatusError) -> tuple[str, str]:
    """The type and message of an error in Anthropic's envelope, checked to be in it."""
    body: Any = error.body
    assert isinstance(body, dict) and body["type"] == "error", body
    assert set(body["error"]) == {"type", "message"}, body
    return body["error"]["type"], body["error"]["message"]


# A body the router refuses for a field it checks, on both paths, and Anthropic's words
FIELDS: list[tuple[str, dict[str, Any], str]] = [
    ("no model", {"max_tokens": 9, "messages": HI}, "model: Field required"),
    ("model int", {**ASK, "model": 5}, "model: Input should be a string, not an integer"),
    ("model empty", {**ASK, "model": ""}, "model: String should have at least 1 character"),
    ("no messages", {"model": "local", "max_tokens": 9}, "messages: Field required"),
    ("messages empty", {**ASK, "messages": []}, "messages: at least one message is required"),
    (
        "messages str",
        {**ASK, "messages": "hi"},
        "messages: Input should be an array of objects, not a string",
    ),
    (
        "message int",
        {**ASK, "messages": [3]},
        "messages.0: Input should be an object, not an integer",
    ),
    ("no role", {**ASK, "messages": [{"content": "hi"}]}, "messages.0.role: Field required"),
    (
        "content number",
        {**ASK, "messages": [{"role": "user", "content": 1.5}]},
        "messages.0.content: Input should be a string or an array of content blocks, not a"
        " decimal number",
    ),
    (
        "block int",
        {**ASK, "messages": LONG},
        "messages.2.content.1: Input should be an object, not an integer",
    ),
    (
        "image without source",
        {**ASK, "messages": [{"role": "user", "content": [{"type": "image"}]}]},
        "messages.0.content.0.source: Field required",
    ),
    (
        "system int",
        {**ASK, "system": 5},
        "system: Input should be a string or an array of content blocks, not an integer",
    ),
    (
        "tool_choice str",
        {**ASK, "tool_choice": "auto"},
        "tool_choice: Input should be an object, not a string",
    ),
    ("tool_choice untyped", {**ASK, "tool_choice": {}}, "tool_choice.type: Field required"),
    (
        "tools int",
        {**ASK, "tools": 5},
        "tools: Input should be an array of objects, not an integer",
    ),
    ("tool str", {**ASK, "tools": ["x"]}, "tools.0: Input should be an object, not a string"),
]
# Fields only a Messages request has (count_tokens takes neither)
MESSAGES_FIELDS: list[tuple[str, dict[str, Any], str]] = [
    ("no max_tokens", {"model": "local", "messages": HI}, "max_tokens: Field required"),
    (
        "max_tokens str",
        {**ASK, "max_tokens": "9"},
        "max_tokens: Input should be an integer, not a string",
    ),
    (
        "max_tokens 0",
        {**ASK, "max_tokens": 0},
        "max_tokens: Input should be greater than or equal to 1, not 0",
    ),
    ("stream str", {**ASK, "stream": "yes"}, "stream: Input should be a boolean, not a string"),
    (
        "stream_options str",
        {**ASK, "stream_options": "usage"},
        "stream_options: Input should be an object, not a string",
    ),
]
PATHS = ["/v1/messages", "/v1/messages/count_tokens"]
CASES = [(p, *case) for p in PATHS for case in FIELDS] + [
    ("/v1/messages", *case) for case in MESSAGES_FIELDS
]


@pytest.mark.parametrize(
    ("path", "case", "body", "words"),
    CASES,
    ids=[f"{c[0][12:] or 'create'}: {c[1]}" for c in CASES],
)
def test_a_field_refusal_is_in_anthropics_words(
    proxy: RunningRouter, path: str, case: str, body: dict[str, Any], words: str
) -> None:
    if path.endswith("count_tokens"):
        body = {k: v for k, v in body.items() if k != "max_tokens"}
    error = refused(proxy, path, body)
    assert isinstance(error, anthropic.BadRequestError)
    assert said(error) == ("invalid_request_error", words)


def nested(levels: int) -> Any:
    """An array nested `levels` deep."""
    value: Any = []
    for _ in range(levels - 1):
        value = [value]
    return value


# The router's other refusals, each in words of its own (no OpenAI's to replace), in
# Anthropic's envelope with the type for its status
OTHERS: list[tuple[str, Any, dict[str, str], int, str, str]] = [
    ("bad json", b"{not json", {}, 400, "invalid_request_error", "the request body is not valid"),
    ("empty body", b"", {}, 400, "invalid_request_error", "the request body is empty"),
    ("array body", b"[1]", {}, 400, "invalid_request_error", "the request body must be a JSON"),
    (
        "unknown model",
        {**ASK, "model": "claude-x"},
        {},
        404,
        "not_found_error",
        "model: 'claude-x' does not exist here; use one of: auto",
    ),
    (
        "too large",
        {**ASK, "system": "x" * LIMIT},
        {},
        413,
        "request_too_large",
        "the request body is larger than the limit",
    ),
    (
        "too deep",
        {**ASK, "metadata": nested(130)},
        {},
        400,
        "invalid_request_error",
        "'metadata' is nested too deeply",
    ),
    ("bad route", ASK, {"x-smf-route": "gpu"}, 400, "invalid_request_error", "x-smf-route 'gpu'"),
    (
        "empty route",
        ASK,
        {"x-smf-route": ","},
        400,
        "invalid_request_error",
        "x-smf-route is empty",
    ),
    ("bad private", ASK, {"x-smf-private": "maybe"}, 400, "invalid_request_error", "x-smf-private"),
]
# Refusals of a Messages request only: count_tokens reads neither field nor header
MESSAGES_OTHERS: list[tuple[str, Any, dict[str, str], int, str, str]] = [
    (
        "two sessions",
        ASK,
        {"x-smf-session-id": "a,b"},
        400,
        "invalid_request_error",
        "x-smf-session-id was sent more than once",
    ),
    (
        "vLLM's field",
        {**ASK, "structured_outputs": {"regex": "a"}},
        {},
        400,
        "invalid_request_error",
        "structured_outputs: the Messages API has no such field",
    ),
]
OTHER_CASES = [(p, *case) for p in PATHS for case in OTHERS] + [
    ("/v1/messages", *case) for case in MESSAGES_OTHERS
]


@pytest.mark.parametrize(
    ("path", "case", "body", "headers", "status", "kind", "words"),
    OTHER_CASES,
    ids=[f"{c[0][12:] or 'create'}: {c[1]}" for c in OTHER_CASES],
)
def test_every_other_refusal_is_anthropics_shape_and_type(
    proxy: RunningRouter,
    path: str,
    case: str,
    body: Any,
    headers: dict[str, str],
    status: int,
    kind: str,
    words: str,
) -> None:
    error = refused(proxy, path, body, **headers)
    assert error.status_code == status
    found, message = said(error)
    assert found == kind and message.startswith(words), message
    assert not any(word in message for word in OPENAI_WORDS), message


def test_a_wrong_key_is_an_authentication_error(proxy: RunningRouter) -> None:
    for path in PATHS:
        error = refused(proxy, path, ASK, key="sk-wrong-key")
        assert isinstance(error, anthropic.AuthenticationError)
        assert said(error)[0] == "authentication_error"


def test_backends_away_are_anthropics_rate_limit_and_overload(
    proxy: RunningRouter, servers: dict[str, Running]
) -> None:
    """`limited` answers a 429 with a 10-minute `Retry-After`, which the router waits out:
    the next request is the router's own 429 (`RateLimitedBackends`). `failing` fails once,
    its circuit opens for an hour: the next is the router's own 503, which Anthropic's SDK
    and Claude Code read by its `overloaded_error`."""
    ask = {**ASK, "model": "limited"}
    first = refused(proxy, "/v1/messages", ask)  # the backend's own 429, passed on
    assert isinstance(first, anthropic.RateLimitError)
    own = refused(proxy, "/v1/messages", ask)
    assert isinstance(own, anthropic.RateLimitError)
    kind, message = said(own)
    assert kind == "rate_limit_error" and message.startswith("no backend can serve"), message
    servers["failing"].control("faults", {"down": True})
    ask = {**ASK, "model": "failing"}
    assert said(refused(proxy, "/v1/messages", ask))[0] == "api_error"  # the failed attempt
    away = refused(proxy, "/v1/messages", ask)
    assert away.status_code == 503
    kind, message = said(away)
    assert kind == "overloaded_error" and message.startswith("no backend can serve"), message
