"""A chat or completions stream that says `[DONE]` before any choice (`[DONE]` alone, or a
usage chunk with `"choices": []` and then `[DONE]`): a failed attempt (`malformed`) before
the commit, so the next backend answers. `[DONE]` was the commit point: the client got a
200 stream with no answer in it, recorded ok with no other backend tried (found in review),
where a whole reply so empty falls back (tests/router/test_answerless_replies.py) and so
did such a stream under a translated Messages or Responses request. A choice that began (a
role chunk) and then `[DONE]` is cut before the commit, as when the stream closes there.
An empty answer that says why it stopped, and a usage chunk ahead of the choices, stay
answers.
"""

from __future__ import annotations

from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, ClassVar

import openai
import orjson
import pytest

from router.config import parse
from tests.agent_apis.agent_stack import openai_client
from tests.agent_apis.over_chat import ledger_columns
from tests.harness import INSTRUCT, RunningRouter, config_for, router, simulator, upstream

ASK: Any = [{"role": "user", "content": "hi"}]
DONE = b"data: [DONE]\n\n"
USAGE = {"prompt_tokens": 1, "completion_tokens": 0, "total_tokens": 1}


def chat(choices: list[dict[str, Any]], **extra: Any) -> bytes:
    body = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m"}
    return b"data: " + orjson.dumps(body | {"choices": choices, **extra}) + b"\n\n"


def text(choices: list[dict[str, Any]], **extra: Any) -> bytes:
    body = {"id": "c", "object": "text_completion", "created": 0, "model": "m"}
    return b"data: " + orjson.dumps(body | {"choices": choices, **extra}) + b"\n\n"


def role(finish: str | None = None) -> dict[str, Any]:
    return {"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": finish}


# What `local` streams, per API, that holds no choice before its [DONE].
CHOICELESS = {
    "done-alone": {"chat": DONE, "completions": DONE},
    "usage-then-done": {
        "chat": chat([], usage=USAGE) + DONE,
        "completions": text([], usage=USAGE) + DONE,
    },
    "comment-then-done": {"chat": b": ping\n\n" + DONE, "completions": b": ping\n\n" + DONE},
}


class Script:
    """What `local` streams next, per API."""

    body: ClassVar[dict[str, bytes]] = {}


class Local(BaseHTTPRequestHandler):
    """A backend streaming `Script.body`'s chat or completions events, then closing."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        body = Script.body["chat" if "/chat/" in self.path else "completions"]
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RunningRouter, Path]]:
    """The router over `local`, then a cloud simulator; and its ledger."""
    tmp = tmp_path_factory.mktemp("answerless-streams")
    # the cloud on OpenAI's completions model, so that completions too fall back to it
    with upstream(Local) as local, simulator(profile="cloud", model=INSTRUCT) as cloud:
        models = {"cloud": INSTRUCT}
        config = config_for({"local": local, "cloud": cloud}, tmp, models=models).model_dump()
        with router(parse(config)) as running:
            yield running, tmp / "ledger"


@pytest.fixture
def script() -> Iterator[type[Script]]:
    yield Script
    Script.body = {}


def attempts(ledger: Path, request_id: str) -> tuple[list[tuple[Any, ...]], Any, Any]:
    """The request's ledger row: (backend, outcome, error_kind) of each attempt, its
    fallback reason and its outcome."""
    tried, reason, outcome = ledger_columns(
        ledger, request_id, "attempts, fallback_reason, outcome"
    )
    return [(a["backend"], a["outcome"], a["error_kind"]) for a in tried], reason, outcome


def streamed(running: RunningRouter, api: str, model: str, rid: str) -> tuple[str, str]:
    """The backend that answered a streamed chat or completions request, and its text."""
    client = openai_client(running)
    head = {"x-request-id": rid}
    if api == "chat":
        with client.chat.completions.with_streaming_response.create(
            model=model, messages=ASK, stream=True, extra_headers=head
        ) as raw:
            said = "".join(c.choices[0].delta.content or "" for c in raw.parse() if c.choices)
            return raw.headers["x-smf-backend"], said
    with client.completions.with_streaming_response.create(
        model=model, prompt="hi", stream=True, extra_headers=head
    ) as raw:
        said = "".join(c.choices[0].text for c in raw.parse() if c.choices)
        return raw.headers["x-smf-backend"], said


def fell_back(kind: str) -> tuple[list[tuple[Any, ...]], str, str]:
    return [("local", "error", kind), ("cloud", "ok", None)], kind, "ok"


@pytest.mark.parametrize("api", ["chat", "completions"])
@pytest.mark.parametrize("bodies", CHOICELESS.values(), ids=CHOICELESS.keys())
def test_a_stream_with_no_choice_before_done_falls_back(
    proxy: tuple[RunningRouter, Path],
    script: type[Script],
    bodies: dict[str, bytes],
    api: str,
    request: Any,
) -> None:
    running, ledger = proxy
    script.body = bodies
    rid = f"{request.node.callspec.id}"
    backend, said = streamed(running, api, "coding", rid)
    assert (backend, bool(said)) == ("cloud", True)
    assert attempts(ledger, rid) == fell_back("malformed")


@pytest.mark.parametrize("api", ["chat", "completions"])
def test_a_choice_that_began_and_never_finished_before_done_falls_back(
    proxy: tuple[RunningRouter, Path], script: type[Script], api: str
) -> None:
    """A role chunk alone, then `[DONE]`: the client got a 200 and an in-band cut, where the
    same stream closed without `[DONE]` fell back."""
    running, ledger = proxy
    began = {"index": 0, "text": "", "finish_reason": None}
    script.body = {"chat": chat([role()]) + DONE, "completions": text([began]) + DONE}
    rid = f"began-{api}"
    backend, said = streamed(running, api, "coding", rid)
    assert (backend, bool(said)) == ("cloud", True)
    assert attempts(ledger, rid) == fell_back("cut")


def test_a_choiceless_stream_with_no_other_backend_is_a_502(
    proxy: tuple[RunningRouter, Path], script: type[Script]
) -> None:
    """Asked of `local` alone, the client gets the malformed reply's error, not a 200."""
    running, ledger = proxy
    script.body = CHOICELESS["usage-then-done"]
    with pytest.raises(openai.APIStatusError) as raised:
        streamed(running, "chat", "local", "stream-alone")
    assert raised.value.status_code == 502
    assert isinstance(raised.value.body, dict) and raised.value.body["code"] == "upstream_malformed"
    tried, _, outcome = attempts(ledger, "stream-alone")
    assert tried == [("local", "error", "malformed")] and outcome != "ok"


# Streams that are answers, and stay so: an empty one that says why it stopped, and one whose
# usage chunk comes ahead of its choices.
ANSWERS = {
    "empty-answer": {
        "chat": chat([role()]) + chat([role("stop")]) + chat([], usage=USAGE) + DONE,
        "completions": text([{"index": 0, "text": "", "finish_reason": "stop"}]) + DONE,
    },
    "usage-first": {
        "chat": chat([], usage=USAGE)
        + chat([role()])
        + chat([{"index": 0, "delta": {"content": "hi"}, "finish_reason": "stop"}])
        + DONE,
        "completions": text([], usage=USAGE)
        + text([{"index": 0, "text": "hi", "finish_reason": "stop"}])
        + DONE,
    },
}


@pytest.mark.parametrize("api", ["chat", "completions"])
@pytest.mark.parametrize("bodies", ANSWERS.values(), ids=ANSWERS.keys())
def test_an_empty_answer_or_usage_first_is_an_answer(
    proxy: tuple[RunningRouter, Path],
    script: type[Script],
    bodies: dict[str, bytes],
    api: str,
    request: Any,
) -> None:
    running, ledger = proxy
    script.body = bodies
    rid = f"answer-{request.node.callspec.id}"
    backend, said = streamed(running, api, "coding", rid)
    assert (backend, said) == ("local", "" if "empty" in rid else "hi")
    assert attempts(ledger, rid) == ([("local", "ok", None)], None, "ok")
