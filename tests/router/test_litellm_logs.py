"""litellm's own warnings reach `serve`'s log as JSON lines that do not quote the request.

litellm gives its loggers a plain-text stderr handler of its own as it is imported, and its
records went on to the router's JSON handler too: each warning was written twice, once as a
line no log pipeline parses, and its image-fetch warning quoted the client's image URL,
whose path can be the prompt's (found in review). `smf-router serve` as a real process,
a litellm backend on the simulator.
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path

import httpx

from tests.harness import INTENTS, claude_backend, simulator
from tests.processes import router_process


def test_litellm_warnings_are_json_lines_without_the_request(tmp_path: Path) -> None:
    marker = "IMAGEPATHMARKER-" + secrets.token_hex(8)
    with simulator(profile="anthropic", model="claude-sonnet-4-5") as claude:
        config = {
            "backends": [claude_backend(claude)],
            "routes": {intent: ["claude"] for intent in INTENTS},
            "ledger": {"path": str(tmp_path / "ledger")},
            "resilience": {"enabled": False},
        }
        with router_process(config, tmp_path) as (proxy, _):
            # litellm fetches an image itself, and refuses a loopback address first, saying so
            image = {"type": "image_url", "image_url": {"url": f"http://127.0.0.1:1/{marker}.png"}}
            ask = [{"role": "user", "content": [{"type": "text", "text": "What is it?"}, image]}]
            body = {"model": "claude", "messages": ask, "max_tokens": 20}
            response = httpx.post(f"{proxy.url}/chat/completions", json=body, timeout=60)
            assert response.status_code == 400, response.text  # the client's image
    (log,) = tmp_path.glob("router-*.log")  # its stderr and stdout, read once it has stopped
    lines = [line for line in log.read_text().splitlines() if line.strip()]
    records = []
    for line in lines:
        try:
            records.append(json.loads(line))
        except ValueError:
            raise AssertionError(f"not a JSON line: {line!r}") from None
    assert marker not in log.read_text()
    litellm = [r for r in records if r["logger"] == "LiteLLM" and r["level"] == "warning"]
    assert len(litellm) == 1, records  # the fetch's warning, once, where it was logged
    assert litellm[0]["msg"].startswith("litellm logged at "), litellm
