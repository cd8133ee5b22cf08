"""What a litellm backend's failures are called, and in whose words the client hears them.

A reply that broke off after it began is `cut`, as on a `kind: openai` backend, not
`unreachable` (a box that is off) or `malformed` (bytes that are not the API). A client's
error carries the provider's own message and status, not litellm's wrapping of them. The
simulator cannot say all of that: `odd` is a minimal Anthropic that fails as its prompt asks.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import httpx
import openai
import pytest

from tests.harness import (
    Running,
    RunningRouter,
    claude_beside,
    collected,
    router,
    sdk,
    send_json,
    simulator,
    upstream,
)

TOO_LARGE = "Request exceeds the maximum allowed number of bytes."
ERRORS = {
    "E400": (400, "invalid_request_error", "messages.0.content: field required"),
    "E413": (413, "request_too_large", TOO_LARGE),
    "E500": (500, "api_error", "Internal server error"),
}


def _event(name: str, **data: Any) -> bytes:
    return f"event: {name}\ndata: {json.dumps({'type': name, **data})}\n\n".encode()


OPENING = _event(
    "message_start",
    message={"id": "m", "type": "message", "role": "assistant", "content": [], "usage": {}},
) + _event("content_block_start", index=0, content_block={"type": "text", "text": ""})
HELLO = _event("content_block_delta", index=0, delta={"type": "text_delta", "text": "Hello"})


class _Odd(BaseHTTPRequestHandler):
    """Anthropic's error bodies (E400, E413, E500); a stream that ends cleanly before its
    `message_delta` (EOF); one whose chunked body breaks off (BREAK)."""

    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        said = json.dumps(body["messages"])
        self.close_connection = True
        for word, (status, kind, message) in ERRORS.items():
            if word in said:
                error = {"type": "error", "error": {"type": kind, "message": message}}
                return send_json(self, status, json.dumps(error).encode())
        if "BREAK" in said:
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            piece = OPENING + HELLO
            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))  # and no last chunk
            return
        self.send_response(200)  # EOF: the body ends with the connection, before the finish
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        self.wfile.write(OPENING + HELLO)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Running, RunningRouter]]:
    """claude on the simulator, odd on `_Odd`; no breaker, so one failure after another
    can be looked at."""
    with (
        upstream(_Odd) as odd,
        simulator(profile="anthropic", model="claude-sonnet-4-5") as claude,
        router(claude_beside(claude, "odd", odd, tmp_path_factory.mktemp("said"))) as proxy,
    ):
        yield claude, proxy


def _ask(text: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": text}]


def _streamed(proxy: RunningRouter, model: str, text: str) -> None:
    stream = sdk(proxy).chat.completions.create(
        model=model, messages=_ask(text), max_tokens=20, stream=True
    )
    with pytest.raises(openai.APIError):
        for _ in stream:
            pass


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_a_reply_cut_mid_body_is_cut(stack: tuple[Running, RunningRouter], stream: bool) -> None:
    """It was `unreachable`: the backend was reached and had begun answering."""
    claude, proxy = stack
    records = collected(proxy)
    claude.control("faults", {"fault": "cut_stream"})
    try:
        if stream:
            _streamed(proxy, "claude", "Say hello.")
        else:
            with pytest.raises(openai.APIStatusError) as info:
                sdk(proxy).chat.completions.create(
                    model="claude", messages=_ask("Say hello."), max_tokens=20
                )
            assert info.value.status_code == 502
    finally:
        claude.control("faults", {"fault": None})
    assert records.wait(30).error_kind == "cut"


@pytest.mark.parametrize("how", ["EOF", "BREAK"])
def test_a_stream_that_ends_before_its_finish_is_cut(
    stack: tuple[Running, RunningRouter], how: str
) -> None:
    """A clean end before the finish reason was `malformed`, a broken one `unreachable`."""
    _, proxy = stack
    records = collected(proxy)
    _streamed(proxy, "odd", how)
    assert records.wait(30).error_kind == "cut"


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("word", ["E400", "E500"])
def test_the_client_hears_the_providers_own_message(
    stack: tuple[Running, RunningRouter], word: str, stream: bool
) -> None:
    """It heard litellm's: `litellm.BadRequestError: AnthropicException - b'{"type": ...'`
    (a stream's body as a Python bytes repr), a 500 ending "Handle with
    `litellm.InternalServerError`"."""
    _, proxy = stack
    body = {"model": "odd", "messages": _ask(word), "max_tokens": 20, "stream": stream}
    response = httpx.post(f"{proxy.url}/chat/completions", json=body, timeout=30)
    named = "odd: " if word == "E500" else ""  # a 5xx names its backend first (`plan_error`)
    assert response.json()["error"]["message"] == named + ERRORS[word][2]


def test_a_request_too_large_keeps_its_413(stack: tuple[Running, RunningRouter]) -> None:
    """litellm raises a BadRequestError (400) for Anthropic's 413 `request_too_large`."""
    _, proxy = stack
    chat = {"model": "odd", "messages": _ask("E413"), "max_tokens": 20}
    response = httpx.post(f"{proxy.url}/chat/completions", json=chat, timeout=30)
    assert (response.status_code, response.json()["error"]["message"]) == (413, TOO_LARGE)
    messages = httpx.post(f"{proxy.url}/messages", json=chat, timeout=30)
    assert messages.status_code == 413
    assert messages.json()["error"] == {"type": "request_too_large", "message": TOO_LARGE}
