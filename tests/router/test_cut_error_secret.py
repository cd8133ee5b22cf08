"""A key that an error reply repeats just where the router stops reading it (`MAX_ERROR_BYTES`)
reaches the client masked, not in part: the message read from the cut reply
(`router.cut_error_body`) was cleaned as a whole one, whose keys are whole, so the 29 of the
key's 30 characters before the cut went to the client, as did the head of an `sk-` key or a
bearer token too short there for its pattern (found in re-review). A cut reply of other words
(FastAPI's `detail`, a page, plain text) became its text cut at 500 characters once cleaned:
a `?a=` before 64 KiB of filler, cleaned to `?***`, showed the end of the read, 30 of the
key's 31 characters (found in re-review). Real sockets: the router, a fake upstream
(`tests.harness.upstream`), the official openai and anthropic SDKs, on chat, Messages and
Responses.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import anthropic
import openai
import orjson
import pytest

from router.config import parse
from router.upstream_errors import MAX_ERROR_BYTES
from tests.agent_apis.agent_stack import anthropic_client, openai_client
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


# Replies no envelope: (content type, what comes before the filler, what ends it).
SHAPES = {
    "detail": ("application/json", '{"detail":"', ' (see logs)"}'),
    "html": ("text/html", "<html><body><p>", " (see logs)</p></body></html>"),
    "plain": ("text/plain", "", " (see logs)"),
}


def other_words(shape: str, form: str, secret: str, keep: int) -> bytes:
    """A 400 of `shape`, longer than the router reads: `?a=` and a filler of non-space that
    cleaning takes for a URL's query, then `form` with `secret`, the first `keep` of its
    characters the last the router reads."""
    _, opening, ending = SHAPES[shape]
    said = " upstream said " + FORMS[form].format(secret)
    at = len(opening) + len("?a=") + said.index(secret)
    filler = "x" * (MAX_ERROR_BYTES - at - keep)
    data = (opening + "?a=" + filler + said + ending).encode()
    assert data[:MAX_ERROR_BYTES].endswith(secret[:keep].encode())
    return data


ECHO = "echo"


def echo(key: str, keep: int) -> bytes:
    """A whole 400, shorter than the router reads, whose message the upstream itself cut
    `keep` characters into the key it repeats."""
    message = "proxy echo: authorization=" + key[:keep]
    error = {"type": "invalid_request_error", "code": "request_rejected", "message": message}
    return orjson.dumps({"error": error})


WORDS = "words"  # a backend whose key begins with a word (vLLM's documented `--api-key`)
WORDS_ENV = "SMF_TEST_CUT_ERROR_SECRET_WORDS_KEY"
WORDS_KEY = "token-abc123"


def unfinished(ending: str) -> bytes:
    """A whole 400, shorter than the router reads, whose message and code end in `ending`."""
    message = "prompt ends with an unfinished " + ending
    error = {"type": "BadRequestError", "code": ending, "param": None, "message": message}
    return orjson.dumps({"error": error})


class Repeating(BaseHTTPRequestHandler):
    """Answers with `reply`: the model names the form, the prompt how much of the secret
    (the key it was sent, for `header`) comes before the cut. A model named for a shape
    answers with `other_words`, the prompt `form:keep`; `echo` with `echo`; `words` with
    `unfinished`, the prompt how the message ends."""

    def do_POST(self) -> None:
        body = orjson.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        model, prompt = str(body["model"]), _prompt(body)
        key = self.headers.get("authorization", "").removeprefix("Bearer ")
        if model == ECHO:
            send_json(self, 400, echo(key, int(prompt)))
            return
        if model == WORDS:
            send_json(self, 400, unfinished(prompt))
            return
        if model not in SHAPES:
            secret = key if model == "header" else SECRETS[model]
            send_json(self, 400, reply(model, secret, int(prompt)))
            return
        form, keep = prompt.split(":")
        data = other_words(model, form, key if form == "header" else SECRETS[form], int(keep))
        self.send_response(400)
        self.send_header("content-type", SHAPES[model][0])
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


def _prompt(body: dict[str, Any]) -> str:
    """The text of the chat request's one message (a list of parts from Messages)."""
    content = body["messages"][-1]["content"]
    return str(content if isinstance(content, str) else content[0]["text"])


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningRouter]:
    with pytest.MonkeyPatch.context() as env, upstream(Repeating) as fake:
        env.setenv(ENV, KEY)
        env.setenv(WORDS_ENV, WORDS_KEY)
        config = parse(
            {
                "backends": [
                    {"name": name, "tier": "cloud", "base_url": fake.url, "model": name}
                    | {"api_key_env": ENV, "apis": ["chat"]}
                    for name in [*FORMS, *SHAPES, ECHO]
                ]
                + [
                    {"name": WORDS, "tier": "cloud", "base_url": fake.url, "model": WORDS}
                    | {"api_key_env": WORDS_ENV, "apis": ["chat"]}
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


def _chat(proxy: RunningRouter, model: str, prompt: str) -> None:
    messages: Any = [{"role": "user", "content": prompt}]
    openai_client(proxy).chat.completions.create(model=model, messages=messages)


def _messages(proxy: RunningRouter, model: str, prompt: str) -> None:
    messages: Any = [{"role": "user", "content": prompt}]
    anthropic_client(proxy).messages.create(model=model, max_tokens=10, messages=messages)


def _responses(proxy: RunningRouter, model: str, prompt: str) -> None:
    openai_client(proxy).responses.create(model=model, input=prompt)


APIS: dict[str, Callable[[RunningRouter, str, str], None]] = {
    "chat": _chat,
    "messages": _messages,
    "responses": _responses,
}


@pytest.mark.parametrize("api", list(APIS))
@pytest.mark.parametrize("shape", list(SHAPES))
def test_a_key_the_cut_goes_through_in_a_reply_of_other_words_reaches_the_client_masked(
    proxy: RunningRouter, shape: str, api: str
) -> None:
    for form, secret in SECRETS.items():
        for keep in (4, 12, len(secret) - 1):
            with pytest.raises((openai.BadRequestError, anthropic.BadRequestError)) as raised:
                APIS[api](proxy, shape, f"{form}:{keep}")
            shown = raised.value.response.text
            assert "upstream said" in shown, (form, keep, shown[-120:])  # the reply's words
            assert secret[:4] not in shown, (form, keep, shown[-120:])


@pytest.mark.parametrize("api", list(APIS))
def test_a_key_a_whole_reply_ends_in_the_head_of_reaches_the_client_masked(
    proxy: RunningRouter, api: str
) -> None:
    """Only a cut text's end was checked for a key's head: a whole envelope whose message
    the upstream had cut in the key showed the client its first 20 characters, as did the
    passed-through body (found in re-review)."""
    for keep in (4, 12, 20, len(KEY) - 1):
        with pytest.raises((openai.BadRequestError, anthropic.BadRequestError)) as raised:
            APIS[api](proxy, ECHO, str(keep))
        shown = raised.value.response.text
        assert KEY[:4] not in shown, (keep, shown[-120:])
        assert "proxy echo: authorization=***" in shown, (keep, shown[-120:])


@pytest.mark.parametrize("api", list(APIS))
def test_a_whole_reply_ending_in_a_word_the_key_begins_with_reaches_the_client_as_it_is(
    proxy: RunningRouter, api: str
) -> None:
    """A whole text's end was masked for any head of a key: with vLLM's `--api-key
    token-abc123`, "prompt ends with an unfinished token" reached the client as "... an
    unfinished ***", its code "token" as "***" (found in re-review). A head that ends inside
    a run of the key's letters and digits is still masked: it may be a key the upstream cut."""
    for ending, shown in (("token", "token"), ("token-abc", "***"), ("token-ab", "***")):
        with pytest.raises((openai.BadRequestError, anthropic.BadRequestError)) as raised:
            APIS[api](proxy, WORDS, ending)
        text = raised.value.response.text
        assert "prompt ends with an unfinished " + shown in text, (ending, text)
        assert WORDS_KEY[:7] not in text, (ending, text)
        if shown == "token" and isinstance(raised.value, openai.BadRequestError):
            assert isinstance(raised.value.body, dict)
            assert raised.value.body["message"] == "prompt ends with an unfinished token"
            assert raised.value.code == "token"
