"""A key that an error reply repeats just where the router stops reading it (`MAX_ERROR_BYTES`)
reaches the client masked, not in part: the message read from the cut reply
(`router.cut_error_body`) was cleaned as a whole one, whose keys are whole, so the 29 of the
key's 30 characters before the cut went to the client, as did the head of an `sk-` key or a
bearer token too short there for its pattern (found in re-review). Real sockets: the router,
a fake upstream (`tests.harness.upstream`), the official openai SDK.
"""

from __future__ import annotations

from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import openai
import orjson
import pytest

from router.config import parse
from router.upstream_errors import MAX_ERROR_BYTES
from tests.harness import INTENTS, RunningRouter, router, send_json, upstream

ENV = "SMF_TEST_CUT_ERROR_SECRET_KEY"
KEY = "gwlive7f3a9c2e5b1d4f60a8e2c9d0e"  # the backend's key, which the router holds
# Credentials the gateway holds, not the router: only their patterns can find them.
SK = "sk-proj-4fA9b2C7d1E8f3G6h5J0k"
TOKEN = "9f86d081884c7d659a2feaa0"
FORMS = {  # model: how the upstream's message ends, `{}` the credential it repeats
    "header": "headers: authorization={}",
    "sk": "upstream key {}",
    "bearer": "Authorization: Bearer {}",
}
SECRETS = {"header": KEY, "sk": SK, "bearer": TOKEN}


def reply(model: str, secret: str, keep: int) -> bytes:
    """A 400 longer than the router reads, whose message repeats `secret` so that the first
    `keep` of its characters are the last the router reads."""

    def body(pad: int) -> bytes:
        message = "gateway rejected request; prompt: " + "x" * pad + " "
        message += FORMS[model].format(secret) + " (see logs)"
        error = {"type": "invalid_request_error", "code": "request_rejected", "param": None}
        return orjson.dumps({"error": error | {"message": message}})  # the names first

    at = body(0).index(secret.encode())
    data = body(MAX_ERROR_BYTES - at - keep)
    assert data[:MAX_ERROR_BYTES].endswith(secret[:keep].encode())
    return data


class Repeating(BaseHTTPRequestHandler):
    """Answers with `reply`: the model names the form, the prompt how much of the secret
    (the key it was sent, for `header`) comes before the cut."""

    def do_POST(self) -> None:
        body = orjson.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        model, keep = str(body["model"]), int(body["messages"][0]["content"])
        key = self.headers.get("authorization", "").removeprefix("Bearer ")
        secret = key if model == "header" else SECRETS[model]
        send_json(self, 400, reply(model, secret, keep))

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningRouter]:
    with pytest.MonkeyPatch.context() as env, upstream(Repeating) as fake:
        env.setenv(ENV, KEY)
        config = parse(
            {
                "backends": [
                    {"name": name, "tier": "cloud", "base_url": fake.url, "model": name}
                    | {"api_key_env": ENV, "apis": ["chat"]}
                    for name in FORMS
                ],
                "routes": {intent: list(FORMS) for intent in INTENTS},
                "ledger": {"path": str(Path(tmp_path_factory.mktemp("secret")) / "ledger")},
                "resilience": {"enabled": False},
            }
        )
        with router(config) as running:
            yield running


@pytest.mark.parametrize("model", list(FORMS))
def test_a_key_the_cut_goes_through_reaches_the_client_masked(
    proxy: RunningRouter, model: str
) -> None:
    secret = SECRETS[model]
    client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
    for keep in (4, 6, 8, 12, 15, 20, len(secret) - 1, len(secret)):
        with pytest.raises(openai.BadRequestError) as raised:
            client.chat.completions.create(
                model=model, messages=[{"role": "user", "content": str(keep)}]
            )
        shown = raised.value.response.text
        assert secret[:4] not in shown, (keep, shown[-80:])
        assert raised.value.code == "request_rejected"  # still read as the error it is
        error = raised.value.body
        assert isinstance(error, dict), error
        message = str(error["message"])
        assert "gateway rejected request; prompt: xxx" in message and message.endswith("***")
