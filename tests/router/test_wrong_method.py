"""A request with a method its path does not take gets a 405 that names the method, the
path and what the path takes (`router.api.errors.wrong_method`), with its `Allow` header;
a WebSocket upgrade of `/v1/responses` is told the router serves Responses over HTTP only.
Starlette's "Method Not Allowed", with no `Allow`, said none of it: the `openai` SDK's
`responses.connect()` and the OpenAI Agents SDK's websocket transport met it (found in a
live run of openai 3.63 and openai-agents 0.24)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
import websockets

from tests.harness import RunningRouter, config_for, router, simulator


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningRouter]:
    folder = tmp_path_factory.mktemp("wm")
    with (
        simulator(profile="vllm", model="local-model") as local,
        router(config_for({"local": local}, folder)) as running,
    ):
        yield running


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("GET", "/v1/chat/completions", "POST"),
        ("GET", "/v1/completions", "POST"),
        ("GET", "/v1/responses", "POST"),
        ("PUT", "/v1/responses/input_tokens", "POST"),
        ("DELETE", "/v1/models", "GET"),
    ],
)
def test_a_wrong_method_is_named_with_what_the_path_takes(
    proxy: RunningRouter, method: str, path: str, allowed: str
) -> None:
    response = httpx.request(method, proxy.root + path)
    assert response.status_code == 405
    assert response.headers["allow"] == allowed
    assert response.headers["x-should-retry"] == "false"
    assert response.json() == {
        "error": {
            "message": f"smf-router does not serve {method} {path}: it takes {allowed} there.",
            "type": "invalid_request_error",
            "param": None,
            "code": None,
        }
    }


@pytest.mark.parametrize("path", ["/v1/messages", "/v1/messages/count_tokens"])
def test_a_wrong_method_on_messages_is_named_in_anthropics_envelope(
    proxy: RunningRouter, path: str
) -> None:
    response = httpx.delete(proxy.root + path)
    assert response.status_code == 405 and response.headers["allow"] == "POST"
    assert response.json() == {
        "type": "error",
        "error": {
            "type": "invalid_request_error",
            "message": f"smf-router does not serve DELETE {path}: it takes POST there.",
        },
    }


async def test_a_websocket_to_responses_is_told_to_use_http(proxy: RunningRouter) -> None:
    """A real WebSocket handshake, as `responses.connect()` opens it: refused with the
    reason in its body, which `InvalidStatus` keeps."""
    url = proxy.url.replace("http://", "ws://") + "/responses"
    with pytest.raises(websockets.InvalidStatus) as refused:
        async with websockets.connect(url, additional_headers={"authorization": "Bearer x"}):
            pass
    response = refused.value.response
    assert response.status_code == 405 and response.headers["allow"] == "POST"
    error = httpx.Response(405, content=bytes(response.body or b"")).json()["error"]
    assert error["type"] == "invalid_request_error"
    assert error["message"].startswith(
        "smf-router serves the Responses API over HTTP only (POST /v1/responses)"
    )
    assert "default HTTP transport" in error["message"]


def test_a_websocket_elsewhere_is_a_wrong_method_as_any(proxy: RunningRouter) -> None:
    upgrade = {"connection": "Upgrade", "upgrade": "websocket", "sec-websocket-version": "13"}
    response = httpx.get(f"{proxy.root}/v1/chat/completions", headers=upgrade)
    assert response.status_code == 405
    assert "it takes POST there" in response.json()["error"]["message"]
