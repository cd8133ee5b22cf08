"""Error replies of shapes no simulator speaks, each repeating the router's key, reach the
client without it, and without costing the router more than a real error does.

A re-review's hostile upstream found them: the key `\\uXXXX`-escaped in a body that is not
JSON, base64-encoded, or a key of the error body's object; a 400 body of a million strings
(each cleaned with a pattern pass, which held the event loop for ten seconds); and a 200
whole chat reply that is an error object and no answer, passed to the client as the answer.
Real sockets: the router, a fake upstream (`tests.harness.upstream`) and a simulator to fall
back to, the official openai SDK.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import openai
import orjson
import pytest

from evals.redaction import MAX_BODY_STRINGS
from router.config import parse
from router.upstream_errors import MAX_ERROR_BYTES
from tests.harness import INTENTS, RunningRouter, router, send_json, simulator, upstream

ENV = "SMF_TEST_ERROR_SHAPES_KEY"
KEY = "gw-7f3a9c2e1b5d-router-key"
ASK = [{"role": "user", "content": "Write a haiku about rain."}]


def escaped(text: str) -> str:
    return "".join(f"\\u{ord(c):04x}" for c in text)


def shapes(key: str, model: str) -> tuple[int, bytes]:
    """What the upstream answers a request for `model`, `key` the one it was sent."""
    refused: dict[str, Any] = {"message": "too many", "type": "invalid_request_error"}
    bodies: dict[str, Any] = {
        "huge": {"error": refused, "x": ["ab"] * 200_000},  # 1.2 MB, past the read cap
        "many": {"error": refused, "x": ["ab"] * (MAX_BODY_STRINGS * 4)},  # under it
        "keyed": {"error": {"message": "bad field", "type": "invalid_request_error", key: 1}},
        "base64": {
            "error": {
                "message": f"invalid token {base64.b64encode(key.encode()).decode()}",
                "type": "invalid_request_error",
            }
        },
        "error200": {"error": {"message": f"failed for credential {key}", "code": 502}},
    }
    if model == "escaped":  # not JSON: cut short, so its escapes were never decoded
        text = '{"error": {"message": "bad key ' + escaped(key) + '", "url": "http:\\/\\/h\\/v1'
        return 500, text.encode()
    return (200 if model == "error200" else 400), orjson.dumps(bodies[model])


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
    names = ["huge", "many", "keyed", "base64", "escaped", "error200"]
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


def refused(proxy: RunningRouter, model: str) -> openai.APIStatusError:
    client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
    with pytest.raises(openai.APIStatusError) as raised:
        client.chat.completions.create(model=model, messages=ASK)  # type: ignore[arg-type]
    return raised.value


def strings(value: Any) -> str:
    """Every string of a JSON value, keys too, with JSON's escapes in them read (as a client
    that parses a message quoting a body would)."""
    if isinstance(value, dict):
        return " ".join(strings(k) + " " + strings(v) for k, v in value.items())
    if isinstance(value, list):
        return " ".join(strings(v) for v in value)
    text = re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), str(value))
    return text.replace("\\/", "/")


@pytest.mark.parametrize("model", ["keyed", "base64", "escaped"])
def test_a_key_in_another_form_reaches_the_client_masked(proxy: RunningRouter, model: str) -> None:
    """As a key of the passed-through body's object, base64-encoded in its message, and
    `\\uXXXX`-escaped in a body that is not JSON (so the router shows it as text)."""
    error = refused(proxy, model)
    text = strings(error.response.json())
    assert KEY[:8] not in text and base64.b64encode(KEY.encode()).decode()[:12] not in text
    assert "***" in text


def test_a_huge_error_body_is_read_only_so_far(proxy: RunningRouter) -> None:
    """1.2 MB of strings: the router reads `MAX_ERROR_BYTES` of it (no JSON then), and the
    client gets a 400 with the error's fields read from that head (its JSON text as the
    message lost the upstream's names: `test_cut_error_body`)."""
    error = refused(proxy, "huge")
    assert error.status_code == 400
    assert len(error.response.content) < MAX_ERROR_BYTES // 8
    shown = error.response.json()["error"]
    assert (shown["message"], shown["type"]) == ("too many", "invalid_request_error")


def test_an_error_body_of_too_many_strings_gives_way_to_its_message(proxy: RunningRouter) -> None:
    """A body under the read cap but of more strings than any error has: each would be
    cleaned in turn; the client gets the upstream's message, in OpenAI's envelope."""
    error = refused(proxy, "many")
    assert error.status_code == 400
    body = error.response.json()
    assert body["error"]["message"] == "too many" and "x" not in body


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
