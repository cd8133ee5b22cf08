"""Chat replies the Messages and Responses translators cannot read, and chat streams that end
with their answer unfinished, seen through the official SDKs (Claude Code's and Codex's
APIs on a chat backend).

Choices that are not a list of objects, or a delta or message that is not an object, were
read past: the stream ended `end_turn` or `completed` and a whole reply became an empty
answer, recorded ok; a text message raised AttributeError, a traceback of the router's own.
A stream that ended ([DONE] or its close) before its choice said why it stopped ended
cleanly too. On the chat API both were already errors (`router.relay`); now the translated
paths say the same: malformed, or cut, and before the commit the next backend answers.
"""

from __future__ import annotations

import logging
from pathlib import Path

import orjson
import pytest

from tests.agent_apis.agent_stack import (
    messages_stream_error,
    responses_stream_error,
)
from tests.agent_apis.scripted_chat import ASK, answered, routed, served_by

HI = {"index": 0, "delta": {"content": "hi"}, "finish_reason": None}
WHOLE_HI = {"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}

# A chunk's choices (or a whole reply's) that no client can read.
STREAMED = {
    "text-choice": ["hi"],
    "object-choices": {"0": HI},
    "text-delta": [{**HI, "delta": "hi"}],
}
WHOLE = {
    "text-choice": ["hi"],
    "object-choices": {"0": WHOLE_HI},
    "text-message": [{**WHOLE_HI, "message": "hi"}],
    "text-tool-calls": [{**WHOLE_HI, "message": {"role": "assistant", "tool_calls": ["x"]}}],
    "null-message": [{**WHOLE_HI, "message": None}],  # became an empty ok answer
    "no-message": [{"index": 0, "finish_reason": "stop"}],  # so did this
}


def _chunk(choices: object) -> bytes:
    body = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m"}
    return b"data: " + orjson.dumps(body | {"choices": choices}) + b"\n\n"


def _whole(choices: object) -> bytes:
    usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    body = {"id": "c", "object": "chat.completion", "created": 0, "model": "m"}
    return orjson.dumps(body | {"choices": choices, "usage": usage})


def no_traceback(caplog: pytest.LogCaptureFixture) -> bool:
    return not any(r.exc_info for r in caplog.records if r.levelno >= logging.ERROR)


@pytest.mark.parametrize("api", ["messages", "responses"])
@pytest.mark.parametrize("odd", STREAMED.values(), ids=STREAMED.keys())
def test_an_unreadable_chunk_after_the_commit_ends_the_stream_with_an_error_event(
    tmp_path: Path, odd: object, api: str
) -> None:
    """The answer had begun ("a"), so the client gets the API's error event, not an
    `end_turn` or `completed` answer missing what the chunk held; the record says why."""
    body = _chunk([{**HI, "delta": {"content": "a"}}]) + _chunk(odd) + b"data: [DONE]\n\n"
    with routed(tmp_path, body) as (proxy, records):
        if api == "messages":
            assert messages_stream_error(proxy, "coding", ASK, 50)["type"] == "api_error"  # a 502's
        else:
            assert responses_stream_error(proxy, "coding", ASK).code == "upstream_malformed"
        record = records.wait(10)
    assert (record.outcome, record.error_kind) == ("upstream_error", "malformed")


@pytest.mark.parametrize("api", ["chat", "messages", "responses"])
@pytest.mark.parametrize("odd", STREAMED.values(), ids=STREAMED.keys())
def test_an_unreadable_chunk_before_the_commit_falls_back(
    tmp_path: Path, odd: object, api: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Nothing had reached the client: the next backend answers (the old code committed an
    empty `end_turn` answer, or failed with a traceback of its own)."""
    body = _chunk(odd) + _chunk([{**HI, "finish_reason": "stop"}]) + b"data: [DONE]\n\n"
    with routed(tmp_path, body, fallback=True) as (proxy, records):
        assert answered(proxy, api, stream=True)
        record = records.wait(10)
    assert served_by(record) == [("local", "malformed"), ("cloud", None)]
    assert no_traceback(caplog)


@pytest.mark.parametrize("api", ["chat", "messages", "responses"])
@pytest.mark.parametrize("odd", WHOLE.values(), ids=WHOLE.keys())
def test_an_unreadable_whole_reply_falls_back(
    tmp_path: Path, odd: object, api: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A whole reply so shaped became an ok answer with no content, or (a text message, tool
    calls that are not objects) an AttributeError logged as "attempt on local failed
    unexpectedly"; on the chat API it was passed to the client as it came."""
    with routed(tmp_path, _whole(odd), whole=True, fallback=True) as (proxy, records):
        assert answered(proxy, api, stream=False)
        record = records.wait(10)
    assert served_by(record) == [("local", "malformed"), ("cloud", None)]
    assert no_traceback(caplog)


@pytest.mark.parametrize("api", ["messages", "responses"])
@pytest.mark.parametrize("body", [b"{}", _whole([])], ids=["empty-object", "empty-choices"])
def test_an_answerless_whole_reply_falls_back(
    tmp_path: Path, body: bytes, api: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A whole chat reply with no choices and no error became an empty `end_turn` or
    `completed` answer, recorded ok; now malformed, and the next backend answers (the chat
    and completions APIs: tests/router/test_answerless_replies.py)."""
    with routed(tmp_path, body, whole=True, fallback=True) as (proxy, records):
        assert answered(proxy, api, stream=False)
        record = records.wait(10)
    assert served_by(record) == [("local", "malformed"), ("cloud", None)]
    assert no_traceback(caplog)


@pytest.mark.parametrize("api", ["messages", "responses"])
@pytest.mark.parametrize("end", [b"data: [DONE]\n\n", b""], ids=["done", "close"])
def test_a_stream_that_ends_before_its_answer_finished_is_cut(
    tmp_path: Path, end: bytes, api: str
) -> None:
    """No finish reason came: the chat API's client gets a cut (`router.relay`), and so
    must Claude Code and Codex, not an `end_turn` or `completed` answer. (After [DONE] they
    got one; a close without it was already a cut, kept here so it stays one.)"""
    body = _chunk([HI]) + _chunk([{**HI, "delta": {"content": " the"}}]) + end
    with routed(tmp_path, body) as (proxy, records):
        if api == "messages":
            assert messages_stream_error(proxy, "coding", ASK, 50)["type"] == "api_error"
        else:
            assert responses_stream_error(proxy, "coding", ASK).code == "upstream_cut"
        record = records.wait(10)
    assert (record.outcome, record.error_kind) == ("upstream_error", "cut")


@pytest.mark.parametrize("api", ["chat", "messages", "responses"])
def test_a_chunk_with_a_null_message_beside_its_delta_is_read(tmp_path: Path, api: str) -> None:
    """Some servers serialise one Choice model for chunks and whole replies alike, nulls
    kept (Volcengine documents `"message": null` in every chunk): refusing a null message in
    a chunk, as in a whole reply, failed every stream of theirs (found in review)."""
    said = [{**HI, "message": None}]
    end = [{**HI, "delta": {}, "message": None, "finish_reason": "stop"}]
    with routed(tmp_path, _chunk(said) + _chunk(end) + b"data: [DONE]\n\n") as (proxy, records):
        assert answered(proxy, api, stream=True) == "hi"
        record = records.wait(10)
    assert (record.outcome, served_by(record)) == ("ok", [("local", None)])
