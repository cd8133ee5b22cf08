"""A litellm backend whose host never completes a connection gives up after `connect_s`.

The adapter gave litellm `total_s` alone, so a black-holed host held a request for all of it.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from classifier.intent import INTENTS
from router.config import parse
from tests.harness import router

HELLO = [{"role": "user", "content": "Say hello."}]


@contextmanager
def black_hole() -> Iterator[str]:
    """A base URL whose connections never complete: a listener whose one-slot accept queue
    is full drops every further SYN."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    port = listener.getsockname()[1]
    fillers = [socket.socket() for _ in range(4)]
    for filler in fillers:
        filler.setblocking(False)
        filler.connect_ex(("127.0.0.1", port))
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        for sock in (*fillers, listener):
            sock.close()


def test_a_connection_that_never_completes_gives_up_after_connect_s(tmp_path: Path) -> None:
    """The adapter gave litellm total_s alone, so a black-holed host held the request for
    all of it (60 s here, longer than this client waits) instead of connect_s. litellm
    takes a connect timeout for OpenAI-style providers (its openai/ models through a
    gateway or proxy)."""
    with black_hole() as url:
        backend = {
            "name": "proxied",
            "tier": "cloud",
            "kind": "litellm",
            "base_url": url,
            "model": "openai/gpt-4o",
            "api_key_env": "HOME",
            "timeouts": {"connect_s": 0.5, "first_token_s": 60, "idle_s": 60, "total_s": 60},
        }
        config = parse(
            {
                "backends": [backend],
                "routes": {i: ["proxied"] for i in INTENTS},
                "ledger": {"path": str(tmp_path / "ledger")},
                "resilience": {"enabled": False},
            }
        )
        with router(config) as proxy:
            body = {"model": "proxied", "messages": HELLO, "max_tokens": 20}
            response = httpx.post(f"{proxy.url}/chat/completions", json=body, timeout=20)
    assert response.status_code == 504
    assert response.json()["error"]["code"] == "upstream_timeout"
