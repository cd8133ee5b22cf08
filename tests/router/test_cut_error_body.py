"""An error reply longer than the router reads (`MAX_ERROR_BYTES`) is still read as the
error it is: a vLLM-style pydantic 400 quoting a client's 72 KB prompt, cut to 64 KiB, no
longer parsed; its raw JSON became the message, its names were lost, and the prompt's own
words ("maximum context length") made it `context_length_exceeded`, on which Codex compacts
its history (found in review). Real sockets: the router, a fake upstream
(`tests.harness.upstream`), the official openai SDK.
"""

from __future__ import annotations

from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import openai
import orjson
import pytest

from router.config import parse
from router.errors import ContextTooLong, Rejected
from router.upstream_errors import MAX_ERROR_BYTES, classify_error
from tests.harness import INTENTS, RunningRouter, router, send_json, upstream

PROMPT = "Explain what 'maximum context length' means for a model. " * 1300  # ~72 KB


class Pydantic400(BaseHTTPRequestHandler):
    """vLLM's validation handler: the flat error, its message quoting the request."""

    def do_POST(self) -> None:
        body = orjson.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        quoted = str(body["messages"][0]["content"])
        message = f"1 validation error: {{'type': 'value_error', 'input': '{quoted}'}}"
        error = {"object": "error", "message": message, "type": "BadRequestError"}
        send_json(self, 400, orjson.dumps(error | {"param": None, "code": 400}))

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningRouter]:
    with upstream(Pydantic400) as fake:
        config = parse(
            {
                "backends": [{"name": "vllm", "tier": "local", "base_url": fake.url, "model": "m"}],
                "routes": {intent: ["vllm"] for intent in INTENTS},
                "ledger": {"path": str(Path(tmp_path_factory.mktemp("cut")) / "ledger")},
                "resilience": {"enabled": False},
            }
        )
        with router(config) as running:
            yield running


def test_a_cut_validation_error_quoting_context_words_stays_a_bad_request(
    proxy: RunningRouter,
) -> None:
    assert len(PROMPT) > MAX_ERROR_BYTES
    client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
    with pytest.raises(openai.BadRequestError) as raised:
        client.chat.completions.create(
            model="vllm",
            messages=[{"role": "user", "content": PROMPT}],
        )
    error = raised.value.body
    assert isinstance(error, dict), error
    assert error.get("code") != "context_length_exceeded", error.get("code")
    assert str(error["message"]).startswith("1 validation error"), str(error["message"])[:80]


def test_a_cut_reply_keeps_the_names_it_holds_and_a_context_error_is_one_by_them() -> None:
    names = {"type": "invalid_request_error", "code": "context_length_exceeded"}
    head = orjson.dumps({"error": names | {"param": "messages", "message": "x " * MAX_ERROR_BYTES}})
    error = classify_error(400, head[:MAX_ERROR_BYTES], {}, "b", truncated=True)
    assert isinstance(error, ContextTooLong)  # by its code, the message cut
    quoted = {"message": "Say: This model's maximum context length is 8 tokens. " * 2000}
    head = orjson.dumps({"error": quoted | {"type": "invalid_request_error", "param": "input"}})
    error = classify_error(400, head[:MAX_ERROR_BYTES], {}, "b", truncated=True)
    assert isinstance(error, Rejected)  # its words alone, cut: maybe the client's
    assert error.body()["error"]["message"].startswith("Say: This model")
