"""Chat replies in a provider's own shape, read as what they say, through the official SDKs.

Mistral's Magistral models send a message's (and a delta's) `content` as a list of parts,
reasoning first: `[{"type": "thinking", "thinking": [{"type": "text", ...}]}, {"type":
"text", "text": "..."}]` (BerriAI/litellm#16272 shows the stream). The Messages and Responses
translators wrote a whole reply's list as its Python repr and dropped a stream's; the chat
API's ledger recorded no text for it. Now the text parts are the answer, the thinking parts
are reasoning as `reasoning_content` is (a Responses reasoning item, no Messages block), and
chat clients still get the content as it came.

Some servers serialise every chunk with its `"error": null`: read as an in-band error, it
failed every stream of theirs on every API. A null error is none; a real one still ends
the stream (`test_agent_in_band_errors`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from router.translate import events
from router.translate.anthropic_reply import MessagesStream
from router.translate.anthropic_reply import from_chat as messages_from_chat
from router.translate.responses_reply import ResponsesStream
from router.translate.responses_whole import from_chat as responses_from_chat
from router.translate.wire import content_text
from tests.agent_apis.chat_chunks import USAGE, chunk, run
from tests.agent_apis.scripted_chat import ASK, answered, routed, served_by
from tests.harness import Collect, RunningRouter, config_for, router, scripted_stream

ANSWER = "The answer is 4."


def _thought(text: str) -> dict[str, Any]:
    return {"type": "thinking", "thinking": [{"type": "text", "text": text}]}


MAGISTRAL_CONTENT = [_thought("2 plus 2 "), _thought("makes 4."), {"type": "text", "text": ANSWER}]
MAGISTRAL_STREAM = [
    chunk({"role": "assistant", "content": ""}),
    chunk({"content": [_thought("2 plus 2 ")]}),
    chunk({"content": [_thought("makes 4.")]}),
    chunk({"content": [{"type": "text", "text": "The answer"}]}),
    chunk({"content": " is 4."}),  # the answer's later pieces may come as plain text
    chunk({}, "stop"),
    {**chunk({}), "choices": [], "usage": USAGE},
]


def _whole_magistral() -> dict[str, Any]:
    message = {"role": "assistant", "content": MAGISTRAL_CONTENT}
    return {
        "id": "c",
        "object": "chat.completion",
        "created": 0,
        "model": "magistral-medium-2509",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": USAGE,
    }


def _sse(chunks: list[dict[str, Any]]) -> bytes:
    return b"".join(b"data: " + orjson.dumps(c) + b"\n\n" for c in chunks) + b"data: [DONE]\n\n"


@contextmanager
def kept_texts(tmp: Path, body: bytes, whole: bool) -> Iterator[tuple[RunningRouter, Collect]]:
    """The router over one chat upstream answering `body`, storing answer texts."""
    kind = "application/json" if whole else "text/event-stream"
    ledger = {"path": str(tmp / "ledger"), "flush_interval_s": 0.2, "store_text": True}
    with (
        scripted_stream(body, kind) as local,
        router(config_for({"local": local}, tmp, ledger=ledger)) as proxy,
    ):
        records = Collect()
        proxy.components.gateway.sinks.append(records)
        yield proxy, records


def test_reply_text_takes_the_text_parts_and_never_a_repr() -> None:
    assert content_text("hi") == "hi"
    assert content_text(MAGISTRAL_CONTENT) == ANSWER
    assert content_text([_thought("hmm")]) == ""
    assert content_text([{"type": "text", "text": "a"}, "b", {"type": "text", "text": 1}]) == "a"
    assert content_text(None) == content_text({"text": "x"}) == ""


def test_the_translators_read_magistral_parts_as_text() -> None:
    whole = _whole_magistral()
    assert messages_from_chat(whole)["content"] == [{"type": "text", "text": ANSWER}]
    output = responses_from_chat(whole, {})["output"]  # the thinking is a reasoning item
    assert [(item["type"], [p["text"] for p in item["content"]]) for item in output] == [
        ("reasoning", ["2 plus 2 makes 4."]),
        ("message", [ANSWER]),
    ]
    said = run(MessagesStream(), MAGISTRAL_STREAM)
    texts = [e["delta"]["text"] for n, e in said if n == "content_block_delta"]
    assert "".join(texts) == ANSWER
    said = run(ResponsesStream({}), MAGISTRAL_STREAM)
    texts = [e["delta"] for n, e in said if n == "response.output_text.delta"]
    assert "".join(texts) == ANSWER
    thoughts = [e["delta"] for n, e in said if n == "response.reasoning_text.delta"]
    assert "".join(thoughts) == "2 plus 2 makes 4."


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize("api", ["messages", "responses"])
def test_a_magistral_answer_reaches_agent_clients_as_its_text(
    tmp_path: Path, api: str, stream: bool
) -> None:
    """A whole reply's text was `[{'type': 'thinking', ...}]`; a stream's was " is 4."."""
    body = _sse(MAGISTRAL_STREAM) if stream else orjson.dumps(_whole_magistral())
    with routed(tmp_path, body, whole=not stream) as (proxy, records):
        assert answered(proxy, api, stream) == ANSWER
        record = records.wait(10)
    assert (record.outcome, served_by(record)) == ("ok", [("local", None)])


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_a_magistral_answer_passes_through_chat_and_its_text_is_recorded(
    tmp_path: Path, stream: bool
) -> None:
    """The chat client gets the parts as the upstream sent them; the ledger, which recorded
    no text for them, gets the answer's."""
    body = _sse(MAGISTRAL_STREAM) if stream else orjson.dumps(_whole_magistral())
    request = {"model": "coding", "messages": ASK, "stream": stream}
    with kept_texts(tmp_path, body, whole=not stream) as (proxy, records):
        reply = httpx.post(f"{proxy.url}/chat/completions", json=request, timeout=10)
        record = records.wait(10)
    assert reply.status_code == 200
    if stream:  # every chunk with a choice byte for byte (the usage one only we asked for)
        sent = [orjson.dumps(c) for c in MAGISTRAL_STREAM if c["choices"]]
        events = reply.content.split(b"\n\n")
        assert [e.removeprefix(b"data: ") for e in events if b'"choices":[{' in e] == sent
    else:
        assert reply.json()["choices"][0]["message"]["content"] == MAGISTRAL_CONTENT
    assert (record.outcome, record.completion_text) == ("ok", ANSWER)


@pytest.mark.parametrize("api", ["chat", "messages", "responses"])
def test_a_null_error_in_every_chunk_is_no_error(tmp_path: Path, api: str) -> None:
    """Each chunk was read as an in-band error: the attempt failed before its first token."""
    hi = [chunk({"role": "assistant", "content": ""}), chunk({"content": "hi"}), chunk({}, "stop")]
    body = _sse([{**c, "error": None} for c in hi])
    with routed(tmp_path, body) as (proxy, records):
        assert answered(proxy, api, stream=True) == "hi"
        record = records.wait(10)
    assert (record.outcome, served_by(record)) == ("ok", [("local", None)])


@pytest.mark.parametrize("api", ["messages", "responses"])
def test_a_native_upstreams_null_error_is_none_and_a_real_one_still_fails(api: str) -> None:
    assert events.failure(api, {"id": "x", "error": None}) is None
    real = {"type": "server_error", "message": "boom"}
    assert events.failure(api, {"error": real}) == real
    typed = {"type": "error", "error": real, "code": "server_error", "message": "boom"}
    assert events.failure(api, typed)
