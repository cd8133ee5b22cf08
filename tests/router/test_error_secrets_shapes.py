"""Error replies of shapes no simulator speaks, each repeating the router's key, reach the
client without it.

A re-review's hostile upstream found a 200 whole chat reply that is an error object and no
answer, passed to the client as the answer.
Real sockets: the router, a fake upstream (`tests.harness.upstream`) and a simulator to fall
back to, the official openai SDK.
"""

from __future__ import annotations

from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import openai
import orjson
import pytest

from router.config import parse
from tests.harness import INTENTS, RunningRouter, router, send_json, simulator, upstream

ENV = "SMF_TEST_ERROR_SHAPES_KEY"
KEY = "gw-7f3a9c2e1b5d-router-key"
ASK = [{"role": "user", "content": "Write a haiku about rain."}]


def shapes(key: str, model: str) -> tuple[int, bytes]:
    """What the upstream answers a request for `model`, `key` the one it was sent."""
    bodies: dict[str, Any] = {
        "error200": {"error": {"message": f"failed for credential {key}", "code": 502}},
    }
    return 200, orjson.dumps(bodies[model])


class Shady(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = orjson.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        key = self.headers.get("authorization", "").removeprefix("Bearer ")
        status, reply = shapes(key, str(body.get("model")))
        send_json(self, status, reply)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningRouter]:
    """One backend per shape on the fake upstream (its model names the shape); every route
    tries `error200` first, then a simulator."""
    names = ["error200"]
    with (
        pytest.MonkeyPatch.context() as env,
        upstream(Shady) as shady,
        simulator(profile="cloud", model="good-model") as good,
    ):
        env.setenv(ENV, KEY)
        backends = [  # chat only: a Responses request reaches them translated
            {"name": name, "tier": "cloud", "base_url": shady.url, "model": name}
            | {"api_key_env": ENV, "apis": ["chat"]}
            for name in names
        ]
        backends.append(
            {"name": "good", "tier": "cloud", "base_url": good.url, "model": "good-model"}
        )
        ledger = Path(tmp_path_factory.mktemp("shapes")) / "ledger"
        config = parse(
            {
                "backends": backends,
                "routes": {intent: ["error200", "good"] for intent in INTENTS},
                "ledger": {"path": str(ledger)},
                "resilience": {"enabled": False},
            }
        )
        with router(config) as running:
            yield running


def test_an_error_in_place_of_a_whole_reply_falls_back(proxy: RunningRouter) -> None:
    """A 200 whole chat reply that is an `error` object and no `choices` (a proxy's): a
    failed attempt, as the same error in a stream is, so the next backend answers."""
    client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
    raw = client.chat.completions.with_raw_response.create(model="coding", messages=ASK)  # type: ignore[arg-type]
    assert raw.headers["x-smf-backend"] == "good"
    assert raw.parse().choices[0].message.content


@pytest.mark.parametrize("api", ["chat", "responses"])
def test_an_error_in_place_of_a_whole_reply_reaches_the_client_as_an_error(
    proxy: RunningRouter, api: str
) -> None:
    """Without another backend: a 502 (its `code` 502 an HTTP status, a server error),
    natively on chat and translated for Responses, its message without the key."""
    client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
    with pytest.raises(openai.APIStatusError) as raised:
        if api == "chat":
            client.chat.completions.create(model="error200", messages=ASK)  # type: ignore[arg-type]
        else:
            client.responses.create(model="error200", input=ASK)  # type: ignore[arg-type]
    error = raised.value
    assert error.status_code == 502
    assert KEY[:8] not in error.response.text
    assert "failed for credential ***" in error.message
