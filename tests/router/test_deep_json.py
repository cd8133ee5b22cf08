"""A body nested too deeply is the client's 400, and a request the router cannot build
blames no backend.

orjson reads JSON nested up to 1024 levels but writes no more than 254. A body between the
two passed every check, then failed where the router wrote it (found in review): in a
pass-through field, building the upstream body, taken for an unreadable reply
(`Malformed`) that counts against the backend's breaker, so three such requests opened
every circuit and everyone else got 503; in `tools`, estimating the prompt, a 500 with a
traceback. All through a running router with its breakers on.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import openai
import orjson
import pytest

from router.backends.openai_compatible import OpenAICompatibleBackend
from router.translate import exchange
from tests.harness import Collect, RunningRouter, config_for, router, simulator
from tests.resilience.conftest import status

# Breakers as in production, but a circuit once open stays open for the test's length (a
# half-open trial would close it again before the status is read).
BREAKERS = {
    "failure_threshold": 3,
    "open_s": 60.0,
    "max_open_s": 120.0,
    "probe_interval_s": 60.0,
}
CODING = [{"role": "user", "content": "Write a Python function that adds two numbers."}]
ANTHROPIC = {"anthropic-version": "2023-06-01"}
MAX_JSON_DEPTH = 128  # router.request.MAX_JSON_DEPTH: the body itself is level 1


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningRouter]:
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        config = config_for(
            {"local": local, "cloud": cloud},
            tmp_path_factory.mktemp("deep"),
            resilience=BREAKERS,
        )
        with router(config) as running:
            yield running


DEEP = "<nested>"  # stands for `nested(levels)` in a body: httpx's json= recurses


def nested(levels: int) -> bytes:
    """`levels` arrays and objects, each inside the one before, as JSON text."""
    text = b'"leaf"'
    for level in range(levels):
        text = b'{"a":%s}' % text if level % 2 else b"[%s]" % text
    return text


def circuits(proxy: RunningRouter) -> dict[str, str]:
    return {b["name"]: b["circuit"] for b in status(proxy.root)["backends"]}


def post(proxy: RunningRouter, path: str, body: dict[str, Any], levels: int = 0) -> httpx.Response:
    """POST `body` with `nested(levels)` where it says `DEEP`."""
    content = orjson.dumps(body).replace(orjson.dumps(DEEP), nested(levels))
    headers = {**ANTHROPIC, "content-type": "application/json"}
    return httpx.post(f"{proxy.root}{path}", content=content, headers=headers, timeout=30)


def deep_requests() -> list[tuple[str, dict[str, Any], str]]:
    """(path, body, the top-level field) of requests with `DEEP` in some field."""
    schema = DEEP
    chat = {"model": "auto", "messages": CODING}
    tool = {"type": "function", "function": {"name": "f", "parameters": schema}}
    response_format = {"type": "json_schema", "json_schema": {"name": "s", "schema": schema}}
    anthropic = {"model": "auto", "messages": CODING, "max_tokens": 20}
    anthropic_tools = [{"name": "f", "input_schema": schema}]
    return [
        ("/v1/chat/completions", chat | {"metadata": {"deep": schema}}, "metadata"),
        ("/v1/chat/completions", chat | {"tools": [tool]}, "tools"),
        ("/v1/chat/completions", chat | {"response_format": response_format}, "response_format"),
        ("/v1/chat/completions", chat | {"stream": True, "metadata": schema}, "metadata"),
        ("/v1/completions", {"model": "auto", "prompt": "hi", "logit_bias": schema}, "logit_bias"),
        ("/v1/responses", {"model": "auto", "input": "hi", "metadata": schema}, "metadata"),
        ("/v1/messages", anthropic | {"tools": anthropic_tools}, "tools"),
        ("/v1/messages", anthropic | {"metadata": schema}, "metadata"),
        ("/v1/messages/count_tokens", anthropic | {"tools": anthropic_tools}, "tools"),
        ("/v1/router/explain", chat | {"tools": [tool]}, "tools"),
    ]


@pytest.mark.parametrize("levels", [MAX_JSON_DEPTH, 300, 1000])
def test_a_body_nested_too_deeply_is_a_400_naming_the_field(
    proxy: RunningRouter, levels: int
) -> None:
    for path, body, field in deep_requests():
        response = post(proxy, path, body, levels)
        assert response.status_code == 400, (path, field, response.text)
        if path.startswith("/v1/messages"):  # Claude Code reads Anthropic's envelope
            assert response.json()["type"] == "error"
            error = response.json()["error"]
            assert error["type"] == "invalid_request_error"
        else:
            error = response.json()["error"]
            assert (error["type"], error["param"]) == ("invalid_request_error", field)
        assert f"'{field}' is nested too deeply" in error["message"]
        assert str(MAX_JSON_DEPTH) in error["message"]


def test_nesting_up_to_the_limit_is_served(proxy: RunningRouter) -> None:
    """The body is level 1; its `tools` array level 2, a tool 3, its function 4, the schema
    5: what it holds fills the rest. Translated to chat (Messages to a chat backend), it
    goes a level deeper, well within what the router can write."""
    client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
    schema = {"type": "object", "properties": {}, "x": orjson.loads(nested(MAX_JSON_DEPTH - 5))}
    tool = {"type": "function", "function": {"name": "f", "parameters": schema}}
    reply = client.chat.completions.create(model="auto", messages=CODING, tools=[tool])
    assert reply.choices[0].message is not None
    messages = {"model": "auto", "messages": CODING, "max_tokens": 20}
    schema = {"type": "object", "properties": {}, "x": DEEP}
    tools = [{"name": "f", "input_schema": schema}]
    response = post(proxy, "/v1/messages", messages | {"tools": tools}, MAX_JSON_DEPTH - 4)
    assert response.status_code == 200, response.text
    response = post(proxy, "/v1/messages", messages | {"tools": tools}, MAX_JSON_DEPTH - 3)
    assert response.status_code == 400, response.text


def test_deep_bodies_open_no_circuit(proxy: RunningRouter) -> None:
    """Three were enough to open every backend's circuit: then an innocent request got 503."""
    for _ in range(3):
        for path, body, _field in deep_requests():
            post(proxy, path, body, 300)
    assert set(circuits(proxy).values()) == {"closed"}
    innocent = httpx.post(
        f"{proxy.url}/chat/completions", json={"model": "auto", "messages": CODING}, timeout=30
    )
    assert innocent.status_code == 200, innocent.text


@pytest.mark.parametrize("api", ["chat", "messages"])
def test_a_request_the_router_cannot_build_is_its_own_500_and_blames_no_backend(
    proxy: RunningRouter, monkeypatch: pytest.MonkeyPatch, api: str
) -> None:
    """No body the parser lets through makes orjson fail any longer, so a bug is forced where
    the request for a backend is made: the upstream body (chat, sent as it is), the chat
    translation (Messages to a chat backend). Before, each was a backend's `malformed`."""

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise ZeroDivisionError("a bug")

    if api == "chat":
        monkeypatch.setattr(OpenAICompatibleBackend, "body_for", broken)
        path, body = "/v1/chat/completions", {"model": "auto", "messages": CODING}
    else:
        monkeypatch.setattr(exchange, "to_chat", broken)
        path, body = "/v1/messages", {"model": "auto", "messages": CODING, "max_tokens": 20}
    collect = Collect()
    proxy.components.gateway.sinks.append(collect)
    try:
        responses = [post(proxy, path, body) for _ in range(4)]  # over the threshold
        assert set(circuits(proxy).values()) == {"closed"}
        for response in responses:
            assert response.status_code == 500, response.text
            assert "ZeroDivisionError" not in response.text
        record = collect.wait(30)
    finally:
        proxy.components.gateway.sinks.remove(collect)
    assert (record.outcome, record.status) == ("router_error", 500)
    # the next backend was tried, through its own adapter, and blamed no more than the first
    attempts = {a.backend: a.error_kind for a in record.attempts}
    assert attempts == {"local": "router_error", "cloud": "router_error"}
    monkeypatch.undo()
    assert post(proxy, path, body).status_code == 200
