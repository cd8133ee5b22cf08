"""An error reply longer than the router reads (`MAX_ERROR_BYTES`) is still read as the
error it is: a vLLM-style pydantic 400 quoting a client's 72 KB prompt, cut to 64 KiB, no
longer parsed; its raw JSON became the message, its names were lost, and the prompt's own
words ("maximum context length") made it `context_length_exceeded`, on which Codex compacts
its history (found in review). Real sockets: the router, a fake upstream
(`tests.harness.upstream`), the official openai SDK.
"""

from __future__ import annotations

import _json
import json
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import openai
import orjson
import pytest

from router import cut_error_body
from router.attempt_errors import ContextTooLong, Rejected
from router.config import parse
from router.upstream_errors import MAX_ERROR_BYTES, classify_error, parse_body
from tests.harness import INTENTS, RunningRouter, router, send_json, upstream

PROMPT = "Explain what 'maximum context length' means for a model. " * 1300  # ~72 KB


def flat_pydantic(quoted: str) -> bytes:
    """vLLM's validation handler, older: the flat error, its message quoting the request."""
    message = f"1 validation error: {{'type': 'value_error', 'input': '{quoted}'}}"
    error = {"object": "error", "message": message, "type": "BadRequestError"}
    return orjson.dumps(error | {"param": None, "code": 400})


def vllm_pydantic(quoted: str) -> bytes:
    """vLLM's validation handler now (`router.simulator.errors`): the envelope, `type`
    "Bad Request" and its integer `code`."""
    message = f"1 validation error: {{'type': 'value_error', 'input': '{quoted}'}}"
    error = {"message": message, "type": "Bad Request", "param": "body.messages", "code": 400}
    return orjson.dumps({"error": error})


def cloud_too_long(quoted: str) -> bytes:
    """OpenAI's refusal of a string over its limit, in its envelope, string `code`."""
    message = f"Invalid 'messages[0].content': string too long. Got: '{quoted}'"
    error = {"message": message, "type": "invalid_request_error", "param": "messages"}
    return orjson.dumps({"error": error | {"code": "string_above_max_length"}})


REPLIES: dict[str, Callable[[str], bytes]] = {
    "vllm": flat_pydantic,
    "vllm-new": vllm_pydantic,
    "cloud": cloud_too_long,
}


def landing_in(reply: Callable[[str], bytes], value: bytes) -> str:
    """A prompt whose `reply` is cut (at `MAX_ERROR_BYTES`) three bytes into `value`: two
    bytes a character in most of it, so that what is read holds fewer characters than a
    passed-through body may (`redaction.MAX_BODY_CHARS`)."""
    prompt = "Résumé ça " * 3000
    at = reply(prompt).index(b'"' + value + b'"') + 1 + 3
    assert at < MAX_ERROR_BYTES
    return prompt + "." * (MAX_ERROR_BYTES - at)


class Pydantic400(BaseHTTPRequestHandler):
    """A 400 quoting the request's prompt, shaped as the backend (the model) says."""

    def do_POST(self) -> None:
        body = orjson.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        quoted = str(body["messages"][0]["content"])
        send_json(self, 400, REPLIES[str(body["model"])](quoted))

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningRouter]:
    with upstream(Pydantic400) as fake:
        config = parse(
            {
                "backends": [
                    {"name": name, "tier": "local", "base_url": fake.url, "model": name}
                    for name in REPLIES
                ],
                "routes": {intent: list(REPLIES) for intent in INTENTS},
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


@pytest.mark.parametrize(
    ("model", "cut_in", "kind", "param", "code"),
    [
        ("vllm-new", b"Bad Request", "invalid_request_error", None, None),
        ("vllm-new", b"body.messages", "Bad Request", None, None),  # its 400 is no name
        ("cloud", b"string_above_max_length", "invalid_request_error", "messages", None),
    ],
    ids=["type", "param", "code"],
)
def test_a_name_the_cut_went_through_is_not_passed_on_in_part(
    proxy: RunningRouter,
    model: str,
    cut_in: bytes,
    kind: str,
    param: str | None,
    code: str | None,
) -> None:
    """The head of the upstream's `type` ("Bad"), `param` or `code` went to the client."""
    prompt = landing_in(REPLIES[model], cut_in)
    assert len(REPLIES[model](prompt)) > MAX_ERROR_BYTES
    client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
    with pytest.raises(openai.BadRequestError) as raised:
        client.chat.completions.create(model=model, messages=[{"role": "user", "content": prompt}])
    assert (raised.value.type, raised.value.param, raised.value.code) == (kind, param, code)
    error = raised.value.body
    assert isinstance(error, dict), error
    assert "." * 100 + "'" in str(error["message"])  # the whole message, before the cut


ANTHROPIC = {"type": "error", "error": {"type": "not_found_error", "message": "x " * 9}}
NESTED = {
    "message": "2 errors",
    "details": [{"type": "string_too_long", "code": "too_long", "message": "inner"}],
    "type": "invalid_request_error",
    "code": "string_above_max_length",
}


@pytest.mark.parametrize(
    ("head", "fields"),
    [
        # Anthropic's envelope: its own `"type": "error"` is no name of the error.
        (orjson.dumps(ANTHROPIC)[:-3], {"type": "not_found_error", "message": "x " * 9}),
        # The error's own fields, not those of its details, nor of a quoted body.
        (
            orjson.dumps({"error": NESTED | {"input": "y" * 50}})[:-20],
            {k: v for k, v in NESTED.items() if k != "details"},
        ),
        (
            b'{"error": {"message": "said: {\\"type\\": \\"x\\"} \\\\", "type": "t", "code": "c',
            {"message": 'said: {"type": "x"} \\', "type": "t"},
        ),
        # vLLM's integer `code`, and a number the cut may have shortened is not read.
        (
            b'{"error": {"type": "Bad Request", "code": 400, "message": "m ',
            {"type": "Bad Request", "code": 400, "message": "m "},
        ),
        (
            b'{"error": {"type": "Bad Request", "message": "m", "code": 40',
            {"type": "Bad Request", "message": "m"},
        ),
        (
            b'{"object": "error", "type": "BadRequestError", "code": 400, "message": "m ',
            {"type": "BadRequestError", "code": 400, "message": "m "},
        ),
        # A name cut is not read; a cut message is, to the cut (not into an escape), its
        # last run of non-space characters masked (a key the cut went through).
        (b'{"error": {"message": "m\\u00e9 \\u00', {"message": "mé "}),
        (b'{"error": {"message": "key sk-pro', {"message": "key ***"}),
        (b'{"error": {"message": "a \\\\u12 ', {"message": "a \\u12 "}),  # `\\` then u12
        (b'{"error": {"message": "m", "type": "BadReq', {"message": "m"}),
        # Nor the head of an emoji's pair of escapes; a lone one, or an escape that is none,
        # inside a whole message is U+FFFD (either lost the message).
        (b'{"error": {"message": "a \\ud83d\\ude0', {"message": "a "}),
        (b'{"error": {"message": "a \\ud83d', {"message": "a "}),
        (
            b'{"error": {"message": "a \\ud800 b", "type": "t"}, "x',
            {"message": "a \ufffd b", "type": "t"},
        ),
        (
            b'{"error": {"message": "a \\x b", "type": "t"}, "x',
            {"message": "a \ufffd b", "type": "t"},
        ),
        # The flat fields when `error` is null; the last `error` when there are two (orjson's).
        (b'{"error": null, "message": "m", "type": "t", "x', {"message": "m", "type": "t"}),
        (
            b'{"error": {"message": "a", "type": "t"}, "error": {"message": "b"}, "x',
            {"message": "b"},
        ),
        # TGI's error is its message.
        (
            b'{"error": "Input validation error: `inputs` ',
            {"message": "Input validation error: `inputs` "},
        ),
        # Neither envelope: none, and the text is the message, its last run masked.
        (
            b'{"detail": [{"type": "missing", "msg": "Field required", "input": {"a',
            '{"detail": [{"type": "missing", "msg": "Field required", "input": ***',
        ),
        (b'[{"error": {"code": 400, "message": "m', '[{"error": {"code": 400, "message": ***'),
        (
            b'{"error": {"details": [{"type": "x", "message": "y"}, "',
            '{"error": {"details": [{"type": "x", "message": "y"}, ***',
        ),
    ],
    ids=[
        "anthropic",
        "nested",
        "quoted",
        "int-code",
        "cut-number",
        "flat",
        "cut-escape",
        "cut-key",
        "cut-escaped-backslash",
        "cut-name",
        "cut-pair",
        "cut-high",
        "lone-surrogate",
        "bad-escape",
        "null-error",
        "two-errors",
        "tgi",
        "fastapi",
        "list",
        "details",
    ],
)
def test_a_cut_reply_is_read_for_its_error_objects_own_fields(
    head: bytes, fields: dict[str, object] | str
) -> None:
    assert parse_body(head, truncated=True) == _read_as(fields)


def _read_as(fields: dict[str, object] | str) -> dict[str, object]:
    """What `parse_body` makes of a cut reply of which `fields` are read: an OpenAI error;
    `fields` a text when none are, the message then (the reply's text, as one that is no
    JSON, its last run of non-space masked, as a cut message's, and at most 500 of it)."""
    if isinstance(fields, str):
        return {"error": {"message": fields}}
    return {"error": {"type": "invalid_request_error", "param": None, "code": None} | fields}


def test_a_cut_reply_is_cleaned_of_the_backends_secrets_where_it_is_read() -> None:
    key = "gw-7f3a9c2e1b5d-router-key"
    head = orjson.dumps({"error": {"message": f"bad {key}", "type": "t", "code": key}})
    error = classify_error(400, head[:-2] + b', "x": "', {}, "b", secrets=[key], truncated=True)
    assert error.body()["error"] == {
        "message": "bad ***",
        "type": "t",
        "param": None,
        "code": "***",
    }


N = MAX_ERROR_BYTES
ADVERSARIAL = {  # each 64 KiB, and what is read of it
    "deep": ("[" * N, "***"),
    "keys": ('{"error": ' + '{"type": ' * (N // 10), ('{"error": ' + '{"type": ' * 60)[:500]),
    "names": ('{"error": {' + '"type": "t", ' * (N // 13), {"type": "t"}),
    "escapes": ('{"error": {"message": "' + '\\" ' * (N // 3), {"message": '" ' * (N // 3)}),
    "bad-escapes": (
        '{"error": {"message": "' + "\\x " * (N // 3),
        {"message": "\ufffd " * (N // 3)},
    ),
    "details": (
        '{"error": {"d": [' + '{"type": "x"}, ' * (N // 15),
        ('{"error": {"d": [' + '{"type": "x"}, ' * 40)[:500],
    ),
    # More digits than Python reads into an int (4300): no `code`, and the rest still read.
    "digits": ('{"error": {"code": ' + "1" * N + ', "type": "t", ', {"type": "t"}),
    "number": ('{"error": {"code": ' + "1" * N, '{"error": {"code": ***'),
    "spaces": ('{"error": {"type": "t"' + " " * N, {"type": "t"}),
}


@pytest.mark.parametrize("name", ADVERSARIAL)
def test_a_cut_reply_is_read_in_one_pass(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each token is read from where the last one ended, and each string's characters
    once, or twice when the scanner refused it (read again mended: `_lenient_string`):
    linear in the text, however it is built (the redaction patterns once read 64 KiB in
    seconds, found in review). Counted, not timed."""
    text, fields = ADVERSARIAL[name]
    read: list[int] = []

    def scanstring(text: str, start: int, strict: bool) -> tuple[str, int]:
        try:
            value, end = _json.scanstring(text, start, strict)
        except json.JSONDecodeError:
            read.append(len(text) - start)
            raise
        read.append(end - start)
        return value, end

    monkeypatch.setattr(cut_error_body, "scanstring", scanstring)
    ends = [0]
    for token in cut_error_body._tokens(text):
        assert token.start >= ends[-1]  # never back
        ends.append(token.end)
    assert len(ends) - 1 <= len(text) and sum(read) <= 2 * len(text)
    assert parse_body(text.encode(), truncated=True) == _read_as(fields)


@pytest.mark.parametrize(
    ("text", "most", "fields"),
    [
        (("[" + "1," * N)[:N], 1, "***"),  # no object
        (  # after its end
            ('{"error": {"message": "m", "type": "t"}}' + "1," * N)[:N],
            13,
            {"message": "m", "type": "t"},
        ),
        (('{"detail": [' + "1," * N)[:N], cut_error_body.MAX_TOKENS, '{"detail": ***'),  # 422
        (
            ('{"error": {"details": [' + "[]," * N)[:N],
            cut_error_body.MAX_TOKENS,
            '{"error": {"details": ***',
        ),
    ],
    ids=["list", "after-end", "detail", "details"],
)
def test_a_cut_reply_is_read_no_further_than_its_error_can_be(
    text: str, most: int, fields: dict[str, object] | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not past the end of the reply's object, nor past `MAX_TOKENS`: a 422 echoing the
    client's JSON list was read to its 30,000th token, 180 ms of the event loop that any
    client could ask for (found in re-review). Counted, not timed."""
    read = 0
    tokens = cut_error_body._tokens

    def counted(text: str) -> Iterator[cut_error_body._Token]:
        nonlocal read
        for token in tokens(text):
            read += 1
            yield token

    monkeypatch.setattr(cut_error_body, "_tokens", counted)
    assert parse_body(text.encode(), truncated=True) == _read_as(fields)
    assert read <= most


@pytest.mark.parametrize("shift", range(13))
def test_a_message_cut_in_an_escaped_emoji_is_read_to_it(shift: int) -> None:
    """A reply written ASCII-only (Python's `json.dumps`) quoting emoji, cut anywhere in
    `\\ud83d\\ude00 `: the message to the last whole character (a space here, so that
    nothing of it is masked). Read back 6 characters at most, 5 of 13 cuts lost it all."""
    message = "bad prompt: " + "a" * shift + "\U0001f600 " * 7000
    error = {"message": message, "type": "invalid_request_error"}
    head = json.dumps({"error": error}).encode()[:MAX_ERROR_BYTES]
    read = parse_body(head, truncated=True)["error"]["message"]
    assert message.startswith(read.removesuffix("***")) and len(read) > 5000, read[-20:]
