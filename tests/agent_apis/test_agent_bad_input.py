"""Bad input on the agent APIs (Anthropic Messages, its token counting, OpenAI Responses) gets
a 400 in that API's shape naming the field, never a 5xx; and token counting keeps a private
caller's conversation on the local tier, as a request would."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anthropic
import httpx
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from router.config import hash_key, parse
from tests.harness import Running, RunningRouter, router, simulator
from tests.strategies import json_values

PRIVATE, TEAM = "sk-private-alice", "sk-team-bob"
ASK = [{"role": "user", "content": "Solve 3x + 5 = 20 and show the steps."}]


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, Running]]:
    # both speak Messages natively (vLLM's /v1/messages/count_tokens), so counting may ask either
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="vllm", model="cloud-model") as cloud,
    ):
        yield {"local": local, "cloud": cloud}


@pytest.fixture(scope="module")
def proxy(
    servers: dict[str, Running], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningRouter]:
    backends = [
        {
            "name": name,
            "tier": name,
            "base_url": server.url,
            "model": f"{name}-model",
            "apis": ["chat", "messages"],
        }
        for name, server in servers.items()
    ]
    keys = [
        {"name": "alice", "sha256": hash_key(PRIVATE), "private": True},
        {"name": "bob", "sha256": hash_key(TEAM)},
    ]
    config = parse(
        {
            "backends": backends,
            "auth": {"keys": keys},
            "ledger": {"path": str(tmp_path_factory.mktemp("bad") / "ledger")},
            "resilience": {"enabled": False},
        }
    )
    with router(config) as running:
        yield running


def post(proxy: RunningRouter, path: str, body: Any, key: str = TEAM) -> httpx.Response:
    return httpx.post(f"{proxy.root}{path}", json=body, headers={"x-api-key": key}, timeout=30)


HI = [{"role": "user", "content": "hi"}]


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/v1/messages", {"model": "auto", "max_tokens": 9, "messages": HI, "tools": 5}, "tools"),
        (
            "/v1/messages",
            {"model": "auto", "max_tokens": 9, "messages": HI, "tool_choice": {"type": ["any"]}},
            "tool_choice.type",
        ),
        (
            "/v1/messages",
            {
                "model": "auto",
                "max_tokens": 9,
                "messages": [{"role": "user", "content": [{"type": "image", "source": "abc"}]}],
            },
            "messages.0.content.0.source",
        ),
        (
            "/v1/messages",
            {"model": "auto", "max_tokens": 9, "messages": [{"role": "user", "content": [7]}]},
            "messages.0.content.0",
        ),
        (
            "/v1/messages/count_tokens",
            {"model": "auto", "messages": [{"role": "user", "content": 1.5}]},
            "messages.0.content",
        ),
        ("/v1/messages/count_tokens", {"model": "auto", "messages": HI, "tools": "x"}, "tools"),
        (
            "/v1/responses",
            {"model": "auto", "input": [{"type": "message", "role": "user", "content": True}]},
            "input[0].content",
        ),
        ("/v1/responses", {"model": "auto", "input": "hi", "tools": 5}, "tools"),
    ],
)
def test_wrong_shapes_are_a_400_naming_the_field(
    proxy: RunningRouter, path: str, body: dict[str, Any], field: str
) -> None:
    response = post(proxy, path, body)
    assert response.status_code == 400, response.text
    payload = response.json()
    if path.startswith("/v1/messages"):  # Anthropic's envelope, on both Messages paths
        assert payload["type"] == "error"
        assert payload["error"]["type"] == "invalid_request_error"
        assert payload["error"]["message"].startswith(f"{field}: ")  # Anthropic's words
    else:
        assert payload["error"]["param"] == field


def test_a_body_vllm_refuses_reaches_a_messages_client_in_anthropic_shape(
    proxy: RunningRouter,
) -> None:
    """vLLM checks a Messages body against its request model before its endpoint runs and
    refuses it in FastAPI's OpenAI-style envelope (`"type": "Bad Request"`), not the
    Anthropic one its `/v1/messages` otherwise uses; Claude Code must still read an
    Anthropic error. The router does not check `temperature`, vLLM does."""
    claude = anthropic.Anthropic(base_url=proxy.root, api_key=TEAM, max_retries=0)
    with pytest.raises(anthropic.BadRequestError) as refused:
        claude.messages.create(
            model="local",
            max_tokens=9,
            messages=HI,  # type: ignore[arg-type]
            extra_body={"temperature": "hot"},
        )
    assert refused.value.response.headers["x-should-retry"] == "false"
    body = refused.value.body
    assert isinstance(body, dict) and body["type"] == "error"
    assert body["error"]["type"] == "invalid_request_error"
    assert body["error"]["message"].startswith("1 validation error:")
    assert "'loc': 'body.temperature'" in body["error"]["message"]


def test_count_tokens_keeps_a_private_callers_conversation_local(
    proxy: RunningRouter, servers: dict[str, Running]
) -> None:
    path = "/v1/messages/count_tokens"
    counted = servers["cloud"].completions(path)
    shared = post(proxy, path, {"model": "cloud", "messages": ASK})
    assert shared.headers["x-smf-backend"] == "cloud"  # the set-up does reach the cloud
    assert servers["cloud"].completions(path) == counted + 1
    private = post(proxy, path, {"model": "cloud", "messages": ASK}, key=PRIVATE)
    assert private.status_code == 200 and private.json()["input_tokens"] > 0
    assert private.headers.get("x-smf-backend") != "cloud"  # none when estimated
    header = httpx.post(
        f"{proxy.root}{path}",
        json={"model": "cloud", "messages": ASK},
        headers={"x-api-key": TEAM, "x-smf-private": "true"},
    )
    assert header.status_code == 200 and header.headers.get("x-smf-backend") != "cloud"
    assert servers["cloud"].completions(path) == counted + 1  # neither reached it


def test_count_tokens_resolves_its_target_as_a_messages_request_does(
    proxy: RunningRouter,
) -> None:
    """count_tokens ignored `x-smf-route` and read an unknown `model` as `auto`, where
    `/v1/messages` answers a 404 (found in review): it counts on the backend the request
    would go to, or is refused as the request would be."""
    path = "/v1/messages/count_tokens"

    def count(model: str, headers: dict[str, str]) -> httpx.Response:
        body = {"model": model, "messages": ASK}
        return httpx.post(
            f"{proxy.root}{path}", json=body, headers={"x-api-key": TEAM, **headers}, timeout=30
        )

    assert count("auto", {}).headers["x-smf-backend"] == "cloud"  # math: the cloud first
    assert count("auto", {"x-smf-route": "local"}).headers["x-smf-backend"] == "local"
    unknown = count("claude-x", {})
    served = post(proxy, "/v1/messages", {"model": "claude-x", "max_tokens": 5, "messages": ASK})
    assert unknown.status_code == served.status_code == 404
    assert unknown.json()["error"] == served.json()["error"]
    bad_header = count("auto", {"x-smf-route": "gpu"})
    assert bad_header.status_code == 400 and "x-smf-route 'gpu'" in bad_header.text


block = st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from(["text", "image", "tool_use", "tool_result"]) | json_values,
        "text": json_values,
        "source": json_values,
        "content": json_values,
        "input": json_values,
        "id": json_values,
        "name": json_values,
    },
)
messages_bodies = st.fixed_dictionaries(
    {"model": st.just("local"), "max_tokens": st.just(5)},
    optional={
        "messages": st.lists(
            st.fixed_dictionaries(
                {"role": st.sampled_from(["user", "assistant"])},
                optional={"content": st.text(max_size=8) | st.lists(block, max_size=3)},
            ),
            min_size=1,
            max_size=3,
        )
        | json_values,
        "system": json_values,
        "tools": json_values,
        "tool_choice": json_values,
        "stop_sequences": json_values,
    },
)


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(body=messages_bodies)
# a block whose type is a list: `type in {...}` raised TypeError, a 500 (found by this test)
@example(
    body={
        "model": "local",
        "max_tokens": 5,
        "messages": [{"role": "user", "content": [{"type": []}]}],
    }
)
def test_no_messages_body_makes_the_router_answer_5xx(
    proxy: RunningRouter, body: dict[str, Any]
) -> None:
    for path in ("/v1/messages", "/v1/messages/count_tokens"):
        response = post(proxy, path, body)
        assert response.status_code < 500, (path, body, response.text)
        if response.status_code >= 400:
            assert response.json()["type"] == "error"


def test_errors_the_framework_raises_on_anthropic_paths_come_in_anthropic_shape(
    proxy: RunningRouter,
) -> None:
    """A wrong method on /v1/messages came back in OpenAI's envelope (found in review)."""
    response = httpx.get(f"{proxy.root}/v1/messages", headers={"x-api-key": TEAM})
    assert response.status_code == 405
    payload = response.json()
    assert payload["type"] == "error" and payload["error"]["type"] == "invalid_request_error"
    assert int(response.headers["content-length"]) == len(response.content)
    other = httpx.get(f"{proxy.root}/v1/chat/completions", headers={"x-api-key": TEAM})
    assert other.status_code == 405 and "type" in other.json()["error"]  # OpenAI's, elsewhere
