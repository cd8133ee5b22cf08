"""A litellm backend that refuses the router, or was never reached, is the backend's problem.

Gemini answers a wrong key with a 400 ("API key not valid"), which litellm makes a 401 on
purpose; Anthropic answers an account out of credit with a 400. Both reached the client as
its own 400, nothing else tried. Gemini's stream is opened on its first chunk, so a refused
connection came while reading and was `cut`. A reload built litellm adapters that were never
warmed, so a new Anthropic backend answered `n: 2` with one choice. All found in review.
`_Refusing` speaks just enough of Gemini's and Anthropic's APIs to refuse.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from router import reload
from router.config import parse
from tests.harness import (
    INTENTS,
    RunningRouter,
    claude_backend,
    collected,
    litellm_backend,
    local_backend,
    router,
    send_json,
    simulator,
    upstream,
)

ASK = [{"role": "user", "content": "hi"}]
WRONG_KEY = {
    "error": {
        "code": 400,
        "message": "API key not valid. Please pass a valid API key.",
        "status": "INVALID_ARGUMENT",
    }
}
NO_CREDIT = {
    "type": "error",
    "error": {
        "type": "invalid_request_error",
        "message": "Your credit balance is too low to access the Anthropic API. Please go to "
        "Plans & Billing to upgrade or purchase credits.",
    },
}


class _Refusing(BaseHTTPRequestHandler):
    """Anthropic's Messages path: out of credit; anything else (Gemini's): a wrong key."""

    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        said = NO_CREDIT if self.path.startswith("/v1/messages") else WRONG_KEY
        send_json(self, 400, json.dumps(said).encode())

    def log_message(self, *args: object) -> None:
        pass


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningRouter]:
    """math: a Gemini with a wrong key, then local; coding: an Anthropic out of credit, then
    local; prose: a Gemini whose port is closed, alone. No breaker: each failure is seen."""
    with upstream(_Refusing) as refusing, simulator(profile="vllm", model="local-model") as local:
        closed = f"http://127.0.0.1:{_closed_port()}"
        backends = [
            litellm_backend("gem", "gemini/gemini-2.0-flash", refusing.root),
            litellm_backend("broke", "anthropic/claude-sonnet-4-5", refusing.root),
            litellm_backend("off", "gemini/gemini-2.0-flash", closed),
            local_backend(local),
        ]
        routes = {i: ["local"] for i in INTENTS} | {
            "math": ["gem", "local"],
            "coding": ["broke", "local"],
            "prose": ["off"],
        }
        ledger = str(tmp_path_factory.mktemp("refusals") / "ledger")
        config = parse(
            {
                "backends": backends,
                "routes": routes,
                "ledger": {"path": ledger},
                "resilience": {"enabled": False},
            }
        )
        with router(config) as proxy:
            yield proxy


def _asked(proxy: RunningRouter, intent: str, **extra: Any) -> httpx.Response:
    body = {"model": intent, "messages": ASK, "max_tokens": 10, **extra}
    return httpx.post(f"{proxy.url}/chat/completions", json=body, timeout=60)


@pytest.mark.parametrize("intent", ["math", "coding"], ids=["gemini_key", "anthropic_credit"])
def test_a_backend_that_refuses_the_router_falls_back(stack: RunningRouter, intent: str) -> None:
    """Gemini's wrong key was the client's 400: the provider's 400 overrode litellm's 401.
    Anthropic's "credit balance is too low" is billing, as a 402 is, not the request."""
    records = collected(stack)
    response = _asked(stack, intent)
    assert response.status_code == 200, response.text
    assert response.headers["x-smf-backend"] == "local"
    tried = records.wait(30).attempts[0]
    assert tried.error_kind == "backend_refused", tried


def test_a_stream_to_a_closed_port_is_unreachable_not_cut(stack: RunningRouter) -> None:
    """litellm opens a Gemini stream on its first chunk: the refused connection came while
    reading, and was called `cut` (a reply that broke off)."""
    records = collected(stack)
    response = _asked(stack, "prose", stream=True)
    assert response.status_code == 502
    assert response.json()["error"]["code"] == "upstream_unreachable"
    assert records.wait(30).error_kind == "unreachable"


def test_a_reload_warms_its_new_litellm_backends(stack: RunningRouter, tmp_path: Path) -> None:
    """Never warmed, a new Anthropic backend did not know that litellm drops its `n` until a
    first request: `n: 2` got one choice, with a 200. Last: it changes the module's router."""
    with simulator(profile="anthropic", model="claude-sonnet-4-5") as anthropic:
        data = stack.components.config.model_dump(mode="json")
        data["backends"].append(claude_backend(anthropic))
        data["routes"]["reasoning"] = ["claude", "local"]
        path = tmp_path / "router.yaml"
        path.write_text(yaml.safe_dump(data))
        reloader = reload.reloader_of(stack.components)
        reloader.source = path
        try:
            reloaded = httpx.post(f"{stack.url}/router/reload", timeout=60)
        finally:
            reloader.source = None
        assert reloaded.status_code == 200, reloaded.text
        response = _asked(stack, "reasoning", n=2)
        assert response.status_code == 200, response.text
        assert response.headers["x-smf-backend"] == "local"
        assert len(response.json()["choices"]) == 2


def test_the_credit_wording_quoted_by_another_provider_stays_the_clients_400() -> None:
    """OpenAI quotes an invalid `role` back: a client sending Anthropic's billing words as
    its role made its own mistake a 402 refusal, which opened the circuit for everyone
    (found in review). Only Anthropic's own message, from Anthropic, is billing."""
    import litellm

    from router.attempt_errors import Rejected
    from router.backend_refused import BackendRefused
    from router.backends.litellm_errors import translate

    quoted = (
        "OpenAIException - Invalid value: 'Your credit balance is too low to access the"
        " Anthropic API'. Supported values are: 'system', 'assistant', 'user'."
    )
    echo = litellm.BadRequestError(message=quoted, model="gpt-4o", llm_provider="openai")
    error = translate(echo, "cloud")
    assert isinstance(error, Rejected) and error.status == 400
    billing = litellm.BadRequestError(
        message="AnthropicException - Your credit balance is too low to access the Anthropic"
        " API. Please go to Plans & Billing to upgrade or purchase credits.",
        model="claude-sonnet-4-5",
        llm_provider="anthropic",
    )
    assert isinstance(translate(billing, "claude"), BackendRefused)
