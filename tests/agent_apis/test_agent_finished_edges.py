"""The edges of "a finished answer is completed however its connection ended"
(`router.answer_end`), over a raw chat upstream that streams a script, then drops the
connection mid-body (its content-length promised more) or closes it cleanly.

Two were found in review. A connection that dropped inside the usage chunk, after the
choice's finish reason, still ended a passed-through chat stream with an in-band error (the
`openai` SDK raises it) and a 502 record, while the Messages stream translated from the
same upstream was completed: the half-read chunk vetoed it. And with `n: 2`, choice 0 done
and choice 1 never begun, the stream was completed as a whole reply, closed or broken: only
the choices seen were counted, not the `n` asked for (the old code, before a broken
connection was completed, called it a cut).
"""

from __future__ import annotations

import socketserver
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import orjson
import pytest

from tests.agent_apis.agent_stack import anthropic_client, openai_client
from tests.agent_apis.over_chat import ledger_columns
from tests.harness import RunningRouter, config_for, read_body, router, upstream

ASK: Any = [{"role": "user", "content": "Write a Python function that reverses a list."}]
HEAD = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m"}
# the usage chunk as far as the connection carried it
HALF_USAGE = b'data: {"id":"c","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tok'
HALF_CONTENT = b'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"del'


class Script:
    """What the upstream answers next: `body`, then a drop (`broken`) or a clean close."""

    body = b""
    broken = True


class Scripted(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        read_body(self)
        body = Script.body
        promised = len(body) + (500 if Script.broken else 0)
        self.wfile.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
            b"connection: close\r\ncontent-length: %d\r\n\r\n" % promised + body
        )
        self.wfile.flush()


def chunk(index: int, content: str, finish: str | None = None) -> bytes:
    choice = {"index": index, "delta": {"content": content}, "finish_reason": finish}
    return b"data: " + orjson.dumps(HEAD | {"choices": [choice]}) + b"\n\n"


def answer(*choices: int) -> bytes:
    """Each of `choices` says "hello world", then stops."""
    return b"".join(chunk(i, "hello") + chunk(i, " world", "stop") for i in choices)


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RunningRouter, Path]]:
    """The router over the scripted upstream alone (`local`, a chat backend), and its ledger."""
    tmp = tmp_path_factory.mktemp("finished_edges")
    with (
        upstream(Scripted, socketserver.ThreadingTCPServer) as local,
        router(config_for({"local": local}, tmp)) as running,
    ):
        yield running, tmp / "ledger"


@pytest.fixture
def script() -> Iterator[type[Script]]:
    yield Script
    Script.body, Script.broken = b"", True


def recorded(ledger: Path, request_id: str) -> tuple[Any, ...]:
    """(status, outcome, error_kind, tokens_estimated) of the request's ledger row."""
    return ledger_columns(ledger, request_id, "status, outcome, error_kind, tokens_estimated")


def chat(running: RunningRouter, request_id: str, **extra: Any) -> dict[int, str]:
    """Each choice's text and finish reason of a streamed chat answer, read by the openai SDK."""
    stream = openai_client(running).chat.completions.create(
        model="local",
        messages=ASK,
        stream=True,
        extra_headers={"x-request-id": request_id},
        **extra,
    )
    said: dict[int, str] = {}
    for piece in stream:
        for choice in piece.choices:
            said[choice.index] = said.get(choice.index, "") + (choice.delta.content or "")
            said[choice.index] += f"|{choice.finish_reason}" if choice.finish_reason else ""
    return said


OK = (200, "ok", None)
CUT = (502, "upstream_error", "cut")


def test_a_chat_stream_broken_inside_its_usage_chunk_after_its_finish_is_completed(
    proxy: tuple[RunningRouter, Path], script: type[Script]
) -> None:
    """The SDK raised `openai.APIError` here (`upstream_cut`), and the ledger said 502."""
    running, ledger = proxy
    script.body = answer(0) + HALF_USAGE
    request_id = uuid.uuid4().hex
    assert chat(running, request_id) == {0: "hello world|stop"}
    assert recorded(ledger, request_id) == (*OK, True)  # the usage never came: estimated


def test_a_messages_stream_over_chat_broken_inside_its_usage_chunk_is_completed(
    proxy: tuple[RunningRouter, Path], script: type[Script]
) -> None:
    """The translated path read it so already: one rule for both."""
    running, ledger = proxy
    script.body = answer(0) + HALF_USAGE
    request_id = uuid.uuid4().hex
    with anthropic_client(running).messages.stream(
        model="local", max_tokens=60, messages=ASK, extra_headers={"x-request-id": request_id}
    ) as stream:
        final = stream.get_final_message()
    assert final.stop_reason == "end_turn" and final.content[0].type == "text"
    assert final.content[0].text == "hello world"
    assert recorded(ledger, request_id) == (*OK, True)


def test_a_chat_stream_broken_inside_a_content_chunk_is_still_a_cut(
    proxy: tuple[RunningRouter, Path], script: type[Script]
) -> None:
    running, ledger = proxy
    script.body = chunk(0, "hello") + HALF_CONTENT
    request_id = uuid.uuid4().hex
    with pytest.raises(openai.APIError):
        chat(running, request_id)
    assert recorded(ledger, request_id)[:3] == CUT


@pytest.mark.parametrize("broken", [True, False], ids=["broken", "closed"])
def test_a_stream_of_two_choices_that_ended_after_the_first_is_a_cut(
    proxy: tuple[RunningRouter, Path], script: type[Script], broken: bool
) -> None:
    """`n: 2`, choice 0 whole, choice 1 never begun: completed as ok before, closed or
    broken, as every choice seen had ended."""
    running, ledger = proxy
    script.body, script.broken = answer(0), broken
    request_id = uuid.uuid4().hex
    with pytest.raises(openai.APIError):
        chat(running, request_id, n=2)
    assert recorded(ledger, request_id)[:3] == CUT


@pytest.mark.parametrize("broken", [True, False], ids=["broken", "closed"])
def test_a_stream_of_two_choices_that_both_ended_is_completed(
    proxy: tuple[RunningRouter, Path], script: type[Script], broken: bool
) -> None:
    running, ledger = proxy
    script.body, script.broken = answer(0, 1) + HALF_USAGE, broken
    request_id = uuid.uuid4().hex
    assert chat(running, request_id, n=2) == {0: "hello world|stop", 1: "hello world|stop"}
    assert recorded(ledger, request_id)[:3] == OK


def test_a_completions_batch_that_ended_after_its_first_prompt_is_a_cut(
    proxy: tuple[RunningRouter, Path], script: type[Script]
) -> None:
    """Two prompts, one choice each: the second never began."""
    running, ledger = proxy
    text = {"id": "c", "object": "text_completion", "created": 0, "model": "m"}
    choice = {"index": 0, "text": "hello", "finish_reason": "stop"}
    script.body = b"data: " + orjson.dumps(text | {"choices": [choice]}) + b"\n\n"
    request_id = uuid.uuid4().hex
    stream = openai_client(running).completions.create(
        model="local",
        prompt=["def reverse(xs):", "def total(xs):"],
        max_tokens=20,
        stream=True,
        extra_headers={"x-request-id": request_id},
    )
    with pytest.raises(openai.APIError):
        for _ in stream:
            pass
    assert recorded(ledger, request_id)[:3] == CUT
