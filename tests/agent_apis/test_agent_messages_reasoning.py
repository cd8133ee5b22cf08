"""A chat backend's reasoning on the Messages API (Claude Code through a reasoning model).

The translator dropped the reasoning and sent nothing in its place: no event, not even the
headers (the stream waits for its first output to commit), for as long as the model
reasoned, minutes on a long task; and a stream the client left mid-reasoning was recorded
at 0 output tokens. Now the reasoning is still not shown (a `thinking` block would need
Anthropic's signature), but a `ping` goes out once the model has reasoned for a grace
(`REASONING_GRACE_S`) and then a second at most, which commits the stream, and its
characters count in the estimate of the output. The grace keeps the fallback for a backend
that reasons and then fails before any text (a ping at once committed it there).
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import anthropic
import httpx
import httpx2
import orjson
import pytest

from router.request_size import estimate_tokens
from router.simulator.playback import THOUGHT
from router.translate import anthropic_reply
from router.translate.keep_alive import KEEP_ALIVE_S, REASONING_GRACE_S
from tests.agent_apis.agent_stack import anthropic_client
from tests.agent_apis.chat_chunks import (
    ASK,
    FAILURES,
    SPELLINGS,
    UNSENT,
    chunk,
    payloads,
    sse,
)
from tests.agent_apis.over_chat import ledger_row
from tests.harness import (
    Running,
    RunningRouter,
    collected,
    config_for,
    router,
    scripted_stream,
    simulator,
    upstream,
    wait_until,
)


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_reasoning_sends_a_ping_after_the_grace_then_a_second_at_most_and_counts_as_output(
    spelling: str,
) -> None:
    now = 0.0
    stream = anthropic_reply.MessagesStream(clock=lambda: now)
    thought = SPELLINGS[spelling]

    def sent(*deltas: Any) -> list[str]:
        return [name for d in deltas for name, _ in payloads(stream.feed(chunk(d)))]

    # DeepSeek's first chunk names the role beside the first reasoning: no ping yet, nor
    # all through the grace (a failure then still falls back: nothing committed)
    assert sent({"role": "assistant", **thought("Let me")}) == ["message_start"]
    now = REASONING_GRACE_S - 0.001
    assert sent(thought(" think")) == []
    now = REASONING_GRACE_S
    assert sent(thought(".")) == ["ping"]
    now += KEEP_ALIVE_S - 0.001
    assert sent(thought(" Hm")) == []
    now += 0.001
    assert sent(thought("."), thought(".")) == ["ping"]
    now += 5  # the answer's text says the model is at work: no ping beside it
    assert sent(thought(" So", "Hi")) == ["content_block_start", "content_block_delta"]
    assert stream.held_chars == len("Let me think. Hm.. So")  # generated, never sent
    ended = dict(payloads(stream.end()))
    estimated = estimate_tokens(len("Hi") + len("Let me think. Hm.. So"))
    assert ended["message_delta"]["usage"]["output_tokens"] == estimated


def test_reasoning_under_both_names_is_counted_once_and_a_whole_replys_is_counted() -> None:
    stream = anthropic_reply.MessagesStream()
    stream.feed(chunk({"role": "assistant", "reasoning": "abc", "reasoning_content": "abc"}))
    assert stream.held_chars == 3
    message = {"role": "assistant", "content": "Hi", "reasoning": "x" * 40}
    whole = {**chunk({}), "object": "chat.completion"}
    whole["choices"] = [{"index": 0, "message": message, "finish_reason": "stop"}]
    del whole["usage"]  # no upstream usage: the router's estimate, reasoning included
    reply = anthropic_reply.from_chat(whole)
    assert reply["content"] == [{"type": "text", "text": "Hi"}]
    assert reply["usage"]["output_tokens"] == estimate_tokens(42)


MESSAGES = [{"role": "user", "content": ASK}]


@pytest.mark.parametrize("failure", sorted(FAILURES))
def test_reasoning_that_fails_within_the_grace_falls_back(tmp_path: Path, failure: str) -> None:
    """Reasoning, then a failure before any text: nothing reached the client (the ping waits
    out the grace), so the next backend answers. A ping on the first reasoning piece had
    committed the stream, and Claude Code got the error instead (found in re-review)."""
    thinking = [chunk({"reasoning": "Let me think. "}) for _ in range(5)]
    body = sse(chunk({"role": "assistant", "content": ""}), *thinking) + FAILURES[failure]
    with (
        scripted_stream(body) as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
        router(config_for({"local": local, "cloud": cloud}, tmp_path)) as proxy,
    ):
        records = collected(proxy)
        client = anthropic_client(proxy)
        with client.messages.stream(model="coding", max_tokens=50, messages=MESSAGES) as stream:  # type: ignore[arg-type]
            final = stream.get_final_message()
        record = records.wait(10)
    assert final.content[0].type == "text" and final.content[0].text
    assert [a.backend for a in record.attempts] == ["local", "cloud"]
    assert record.attempts[0].error_kind is not None and record.attempts[1].error_kind is None
    assert (record.outcome, record.backend) == ("ok", "cloud")


class Held(BaseHTTPRequestHandler):
    """A chat upstream that streams `BODY` and then holds its stream open (up to 15 s, until
    `RELEASED`): a model still at work when the client leaves."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()  # HTTP/1.0: the body ends with the connection
        self.wfile.write(LEFT_BODY)
        self.wfile.flush()
        RELEASED.wait(15)

    def log_message(self, *args: object) -> None:
        pass


RELEASED = threading.Event()
THOUGHTS = 10
LEFT_BODY = sse(
    chunk({"role": "assistant", "content": ""}),
    *[chunk({"reasoning": THOUGHT}) for _ in range(THOUGHTS)],
    chunk({"content": "Hi"}),
)


@pytest.mark.parametrize("api", ["chat", "responses"])
def test_a_chat_or_responses_client_that_leaves_records_the_reasoning(
    tmp_path: Path, api: str
) -> None:
    """The client leaves at the answer's first text, the model still at work: the ledger's
    estimate counts the reasoning it generated before (the chat tally counted content and
    tool calls only, the Responses translator its held tool input: "Hi" alone, 1 token)."""
    path, body = {
        "chat": ("chat/completions", {"model": "coding", "stream": True, "messages": MESSAGES}),
        "responses": ("responses", {"model": "coding", "stream": True, "input": "Hi"}),
    }[api]
    RELEASED.clear()
    try:
        with upstream(Held) as local, router(config_for({"local": local}, tmp_path)) as proxy:
            with httpx.stream("POST", f"{proxy.url}/{path}", json=body, timeout=30) as reply:
                request_id = reply.headers["x-request-id"]
                for line in reply.iter_lines():
                    if '"Hi"' in line:
                        break  # the client leaves
            row = ledger_row(tmp_path / "ledger", request_id)
    finally:
        RELEASED.set()
    generated = len("Hi") + THOUGHTS * len(THOUGHT)
    assert (row[0], row[2], row[3]) == ("cancelled", estimate_tokens(generated), True)


def _reasons_then(ending: bytes | None) -> type[BaseHTTPRequestHandler]:
    """A chat upstream whose first chunk names the role and reasons `UNSENT` (the openers and
    the held reasoning come of that one chunk), then sends `ending` (a failure), or, given
    None, holds its stream open (up to 15 s, until `RELEASED`): a model still reasoning."""

    class Reasons(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", 0)))
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.end_headers()  # HTTP/1.0: the body ends with the connection
            self.wfile.write(sse(chunk({"role": "assistant", "reasoning": UNSENT})))
            self.wfile.flush()
            if ending is None:
                RELEASED.wait(15)
            else:
                self.wfile.write(ending)

        def log_message(self, *args: object) -> None:
            pass

    return Reasons


UNCOMMITTED = {  # the API's path and body
    "messages": ("/messages", {"max_tokens": 50, "messages": MESSAGES}),
    "responses": ("/responses", {"input": ASK}),
}


@pytest.mark.usefixtures("long_grace")  # nothing commits
@pytest.mark.parametrize("api", sorted(UNCOMMITTED))
@pytest.mark.parametrize("ending", ["backend_fails", "client_leaves"])
def test_reasoning_held_when_the_request_ends_uncommitted_is_recorded(
    tmp_path: Path, api: str, ending: str
) -> None:
    """The model reasoned inside the grace, then its only backend failed, or the client
    left: nothing reached the client, but the reasoning was generated (a Responses item or
    a Messages ping would have shown it), and the record's estimate counts it (it said 0
    output tokens, not estimated: the estimate was made for a committed stream only)."""
    path, body = UNCOMMITTED[api]
    fails = ending == "backend_fails"
    handler = _reasons_then(FAILURES["error_event"] if fails else None)
    RELEASED.clear()
    try:
        with upstream(handler) as local:
            config = config_for({"local": local}, tmp_path, {"idle_s": 30, "total_s": 60})
            with router(config) as proxy:
                records = collected(proxy)
                data = orjson.dumps({"model": "coding", "stream": True, **body})
                if fails:
                    assert httpx.post(proxy.url + path, content=data, timeout=30).status_code == 502
                else:
                    _left_once_reasoning(proxy, path, data)
                record = records.wait(10)
                row = ledger_row(tmp_path / "ledger", record.request_id)
    finally:
        RELEASED.set()
    outcome = "upstream_error" if fails else "cancelled"
    assert (record.backend, record.outcome) == (None, outcome)  # no backend served it
    assert row[0] == outcome and row[1] > 0  # the prompt, which the backend read, estimated
    assert (row[2], row[3]) == (estimate_tokens(len(UNSENT)), True)


def _left_once_reasoning(proxy: RunningRouter, path: str, data: bytes) -> None:
    """Send a request on a socket of its own and leave once the backend reasoned: its
    stream's openers showed it at work (`Life.heard`), after the translator held the chunk
    they came of."""
    dispatcher = proxy.components.gateway.dispatcher
    local = dispatcher.backends["local"]
    url = httpx.URL(proxy.url + path)
    head = (
        f"POST {url.raw_path.decode()} HTTP/1.1\r\nhost: {url.host}:{url.port}\r\n"
        f"content-type: application/json\r\ncontent-length: {len(data)}\r\n\r\n"
    )
    since = time.monotonic()
    with socket.create_connection((url.host, url.port or 80), timeout=10) as sock:
        sock.sendall(head.encode() + data)
        assert wait_until(lambda: dispatcher.life.busy(local, since))
    # the client left


class Tee(httpx2.BaseTransport):
    """The SDK's transport (its own `httpx2`), keeping the bytes of every response it reads:
    the SDK drops pings, so only the bytes show them."""

    def __init__(self) -> None:
        self.inner = httpx2.HTTPTransport()
        self.read: list[bytes] = []

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        response = self.inner.handle_request(request)
        return httpx2.Response(
            response.status_code,
            headers=response.headers,
            stream=Kept(response.stream, self.read),
            extensions=response.extensions,
        )

    def close(self) -> None:
        self.inner.close()


class Kept(httpx2.SyncByteStream):
    def __init__(self, inner: Any, read: list[bytes]) -> None:
        self.inner, self.kept = inner, read

    def __iter__(self) -> Iterator[bytes]:
        for piece in self.inner:
            self.kept.append(piece)
            yield piece

    def close(self) -> None:
        self.inner.close()


@pytest.mark.usefixtures("short_grace")
@pytest.mark.parametrize("backend", ["local", "cloud"])
def test_a_reasoning_phase_sends_pings_and_the_sdk_gets_the_whole_answer(
    chat_proxy: RunningRouter, chat_sims: dict[str, Running], backend: str
) -> None:
    """Seconds of reasoning before the answer: pings after message_start (past the grace),
    before the first block, which the SDK takes in its stride; its final message is the
    answer."""
    tee = Tee()
    client = anthropic.Anthropic(
        base_url=chat_proxy.root,
        api_key="none",
        max_retries=0,
        http_client=httpx2.Client(transport=tee, timeout=30),
    )
    chat_sims[backend].control("faults", {"fault": "thinking:3"})
    try:
        with client.messages.stream(model=backend, max_tokens=50, messages=MESSAGES) as stream:  # type: ignore[arg-type]
            kinds = [event.type for event in stream]
            final = stream.get_final_message()
    finally:
        chat_sims[backend].control("faults", {"fault": None})
    lines = b"".join(tee.read).decode().splitlines()
    names = [line.removeprefix("event: ") for line in lines if line.startswith("event: ")]
    reasoning = names[: names.index("content_block_start")]
    assert reasoning[0] == "message_start" and reasoning.count("ping") >= 1
    assert set(reasoning[1:]) == {"ping"}
    assert kinds[0] == "message_start" and kinds[-1] == "message_stop"
    assert final.content[0].type == "text" and final.content[0].text
    assert final.stop_reason in ("end_turn", "max_tokens") and final.usage.output_tokens > 0


@pytest.mark.usefixtures("short_grace")
def test_a_stream_left_mid_reasoning_records_the_reasoning_and_kept_the_backend_heard(
    chat_proxy: RunningRouter, chat_sims: dict[str, Running]
) -> None:
    """Claude Code's Esc while the model reasons: the model generated a ping's worth of
    reasoning at least per ping, recorded as estimated output (it was 0), and each ping told
    the breaker's evidence (`router.silence.Life`) that the backend was at work."""
    records = collected(chat_proxy)
    dispatcher = chat_proxy.components.gateway.dispatcher
    local = dispatcher.backends["local"]
    body = {"model": "local", "max_tokens": 50, "stream": True, "messages": MESSAGES}
    pings, since, heard = 0, 0.0, False
    chat_sims["local"].control("faults", {"fault": "thinking:15"})
    try:
        with httpx.stream("POST", f"{chat_proxy.url}/messages", json=body, timeout=30) as reply:
            for line in reply.iter_lines():
                assert "content_block" not in line  # still reasoning: the client leaves first
                if line != "event: ping":
                    continue
                pings += 1
                if pings == 1:
                    since = time.monotonic()
                elif dispatcher.life.busy(local, since) or pings > 20:
                    heard = pings <= 20
                    break  # the client leaves
        record = records.wait(30)
    finally:
        chat_sims["local"].control("faults", {"fault": None})
        chat_proxy.components.gateway.sinks.remove(records)
    assert heard
    assert record.outcome == "cancelled" and record.usage.estimated
    assert record.usage.completion_tokens >= estimate_tokens(pings * len(THOUGHT)) > 0
