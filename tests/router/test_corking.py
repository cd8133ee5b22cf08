"""Replies written once per loop turn: the same bytes, in order, fewer writes."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator
from typing import cast

import orjson
import pytest

from router.api.corking import EAGER_BYTES, CorkedTransport
from tests.harness import RunningRouter, config_for, router, simulator


class Recorder:
    """The transport under a CorkedTransport: records each write it is given."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = False
        self.buffered = 0  # what the socket has not taken yet

    def write(self, data: bytes) -> None:
        self.writes.append(data)

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True

    def get_write_buffer_size(self) -> int:
        return self.buffered

    def get_extra_info(self, name: str) -> None:
        return None  # no socket: no send queue to ask about


def corked() -> tuple[CorkedTransport, Recorder]:
    recorder = Recorder()
    transport = cast(asyncio.Transport, recorder)
    return CorkedTransport(transport, asyncio.get_running_loop()), recorder


async def test_writes_in_one_turn_leave_as_one_write_in_order() -> None:
    transport, recorder = corked()
    transport.write(b"HTTP/1.1 200 OK\r\n\r\n")
    transport.write(b"")
    transport.write(bytearray(b"data: 1\n\n"))
    transport.write(b"data: 2\n\n")
    assert recorder.writes == []
    assert transport.get_write_buffer_size() == 37
    await asyncio.sleep(0)
    assert recorder.writes == [b"HTTP/1.1 200 OK\r\n\r\ndata: 1\n\ndata: 2\n\n"]
    transport.write(b"data: 3\n\n")  # a later turn: a write of its own
    await asyncio.sleep(0)
    assert recorder.writes[1:] == [b"data: 3\n\n"]


async def test_close_sends_what_is_pending_first() -> None:
    transport, recorder = corked()
    transport.write(b"last reply")
    transport.close()
    assert recorder.writes == [b"last reply"] and recorder.closed
    await asyncio.sleep(0)  # the scheduled flush finds nothing left
    assert recorder.writes == [b"last reply"]


async def test_large_writes_are_not_held_back() -> None:
    transport, recorder = corked()
    transport.write(b"head")
    transport.write(b"x" * EAGER_BYTES)
    assert recorder.writes == [b"head" + b"x" * EAGER_BYTES]


async def test_nothing_is_written_to_a_connection_that_went_away() -> None:
    transport, recorder = corked()
    transport.write(b"for nobody")
    recorder.closed = True  # the client hung up before the flush
    await asyncio.sleep(0)
    assert recorder.writes == []


async def test_bytes_taken_grows_as_the_client_reads_even_while_more_is_written() -> None:
    """The stall timer's measure of progress: a write landing as the buffer drains leaves
    its size where it was, yet the client took bytes."""
    transport, recorder = corked()
    transport.write(b"x" * 100)
    await asyncio.sleep(0)
    recorder.buffered = 100  # none taken yet
    assert transport.bytes_taken() == 0
    transport.write(b"y" * 60)
    await asyncio.sleep(0)
    recorder.buffered = 100  # the client took 60 as 60 more came: the same size as before
    assert transport.bytes_taken() == 60
    recorder.closed = True  # nothing handed to a closed transport counts as taken
    transport.write(b"z" * 10)
    await asyncio.sleep(0)
    assert transport.bytes_taken() == 60


async def test_bytes_handed_count_before_the_write_that_pauses_the_protocol() -> None:
    """A transport calls `pause_writing` from inside `write`, where the stall check takes
    its baseline: counted after the write, the bytes it was given were missing from it, the
    first check saw them as taken, and a client that had stopped reading was cut a stall
    period late (found in re-review)."""
    transport, recorder = corked()
    seen: list[int] = []

    def write_and_pause(data: bytes) -> None:
        recorder.writes.append(data)
        recorder.buffered += len(data)  # none of it taken: the socket is full
        seen.append(transport.bytes_taken())  # what `pause_writing` would measure

    recorder.write = write_and_pause  # type: ignore[method-assign]
    transport.write(b"x" * 100)
    await asyncio.sleep(0)
    assert seen == [0] and transport.bytes_taken() == 0


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningRouter]:
    with (
        simulator(profile="vllm", model="local-model") as local,
        router(config_for({"local": local}, tmp_path_factory.mktemp("corking"))) as running,
    ):
        yield running


def _request(body: dict[str, object], close: bool = False) -> bytes:
    payload = orjson.dumps(body)
    head = (
        "POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\n"
        f"content-type: application/json\r\ncontent-length: {len(payload)}\r\n"
    )
    if close:
        head += "connection: close\r\n"
    return head.encode() + b"\r\n" + payload


def _read_until_closed(sock: socket.socket) -> bytes:
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def test_pipelined_requests_get_whole_replies_in_order(proxy: RunningRouter) -> None:
    """Three requests in one packet, the last asking to close: three replies, in order,
    each complete, then the close (after the last reply, never before it)."""
    host, port = proxy.root.removeprefix("http://").split(":")
    bodies = [
        {"model": "local", "messages": [{"role": "user", "content": f"say {word}"}]}
        for word in ("one", "two", "three")
    ]
    bodies[1] = {**bodies[1], "stream": True}
    wire = _request(bodies[0]) + _request(bodies[1]) + _request(bodies[2], close=True)
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(wire)
        data = _read_until_closed(sock)
    replies = data.split(b"HTTP/1.1 ")[1:]
    assert [r[:3] for r in replies] == [b"200", b"200", b"200"]
    assert b"text/event-stream" in replies[1] and replies[1].endswith(
        b"data: [DONE]\n\n\r\n0\r\n\r\n"
    )
    head, _, body = replies[2].partition(b"\r\n\r\n")
    length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
    assert len(body) == length
    assert orjson.loads(body)["object"] == "chat.completion"


def test_an_error_reply_before_close_arrives_whole(proxy: RunningRouter) -> None:
    host, port = proxy.root.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nhost: [::1]\r\ncontent-length: 3\r\n")
        sock.sendall(b"connection: close\r\n\r\n{x}")
        data = _read_until_closed(sock)
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400")
    assert orjson.loads(body)["error"]["type"] == "invalid_request_error"


def test_expect_100_continue_is_answered_before_the_body_is_sent(proxy: RunningRouter) -> None:
    """The interim `100 Continue` is a write like any other: it must leave without waiting
    for the body the client holds back until it sees it."""
    host, port = proxy.root.removeprefix("http://").split(":")
    payload = orjson.dumps({"model": "local", "messages": [{"role": "user", "content": "hi"}]})
    head = (
        "POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\n"
        "content-type: application/json\r\nexpect: 100-continue\r\n"
        f"content-length: {len(payload)}\r\nconnection: close\r\n\r\n"
    )
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(head.encode())
        interim = sock.recv(65536)
        sock.sendall(payload)
        data = _read_until_closed(sock)
    assert interim == b"HTTP/1.1 100 Continue\r\n\r\n"
    assert data.startswith(b"HTTP/1.1 200")
