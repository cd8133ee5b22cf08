"""Clients that read an answer slowly or not at all (`router.api.corking`): the one that
stopped is let go after `CLIENT_STALL_S`, the slow one gets its whole answer. First the
protocol's stall checks on a virtual clock, then a real router and raw sockets."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import cast

import pytest
from uvicorn.protocols.http.flow_control import FlowControl

from router.api import corking
from router.api.corking import CorkedHttpToolsProtocol
from tests.harness import Collect, RunningRouter, config_for, router, simulator
from tests.resilience.conftest import until

BODY = {"model": "local", "messages": [{"role": "user", "content": "Tell me a long story."}]}
# The unpaced simulator builds a long answer's events before its first byte (seconds on a
# loaded runner): a patient first-token deadline keeps that out of these tests.
PATIENT: dict[str, float] = {"first_token_s": 60, "total_s": 120}


class Timer:
    def __init__(self, when: float, callback: Callable[[], None]) -> None:
        self.when, self.callback, self.cancelled = when, callback, False

    def cancel(self) -> None:
        self.cancelled = True


class Clock:
    """The loop's timers on a virtual clock: `advance` runs the latest one at its time."""

    def __init__(self) -> None:
        self.now = 0.0
        self.timer: Timer | None = None

    def call_later(self, delay: float, callback: Callable[[], None]) -> asyncio.TimerHandle:
        self.timer = Timer(self.now + delay, callback)
        return cast(asyncio.TimerHandle, self.timer)

    def advance(self) -> None:
        timer, self.timer = self.timer, None
        assert timer is not None and not timer.cancelled, "no timer armed"
        self.now = timer.when
        timer.callback()


class Socket:
    """The corked transport as the stall checks see it: bytes taken so far, and abort."""

    def __init__(self) -> None:
        self.taken = 0
        self.aborted = False

    def bytes_taken(self) -> int:
        return self.taken

    def abort(self) -> None:
        self.aborted = True


def paused(clock: Clock, sock: Socket) -> CorkedHttpToolsProtocol:
    """A protocol (none of uvicorn's per-connection state but flow control) whose writes
    just paused."""
    protocol = CorkedHttpToolsProtocol.__new__(CorkedHttpToolsProtocol)
    protocol.loop = cast(asyncio.AbstractEventLoop, clock)
    protocol.transport = cast(asyncio.Transport, sock)
    protocol.flow = FlowControl(protocol.transport)
    protocol._corked = cast(corking.CorkedTransport, sock)
    protocol.pause_writing()
    return protocol


def test_a_reader_that_takes_bytes_in_every_stall_period_is_never_cut() -> None:
    clock, sock = Clock(), Socket()
    paused(clock, sock)
    while clock.now < 20 * corking.CLIENT_STALL_S:
        sock.taken += 300  # 300 bytes a period: far slower than the buffer's 48 KiB
        clock.advance()
    assert not sock.aborted


def test_a_stopped_reader_is_cut_a_stall_period_after_the_last_byte_taken() -> None:
    """The socket takes bytes just after writes pause (its buffers had room), then none:
    the cut comes `CLIENT_STALL_S` after that, within a quarter, not two periods later as
    with one timer a period."""
    clock, sock = Clock(), Socket()
    paused(clock, sock)
    sock.taken = 4096  # at 0 s
    while not sock.aborted:
        clock.advance()
    assert corking.CLIENT_STALL_S <= clock.now <= 1.25 * corking.CLIENT_STALL_S


def stream_from(running: RunningRouter, max_tokens: int) -> socket.socket:
    """A raw client with a 4 KB receive buffer, its streamed request sent: the caller reads."""
    raw = json.dumps({**BODY, "stream": True, "max_tokens": max_tokens, "ignore_eos": True})
    head = (
        f"POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\n"
        f"content-type: application/json\r\ncontent-length: {len(raw)}\r\n\r\n"
    )
    client = socket.socket()
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    client.settimeout(90)  # a hang guard
    client.connect(("127.0.0.1", int(running.root.rpartition(":")[2])))
    client.sendall(head.encode() + raw.encode())
    return client


def test_a_client_that_stops_reading_is_let_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An agent suspended mid-stream keeps its socket open and reads nothing: once the
    buffers fill, the router's writes wait. After `CLIENT_STALL_S` of that the connection
    is closed, which frees the backend and finishes the record as cancelled."""
    monkeypatch.setattr(corking, "CLIENT_STALL_S", 0.5)
    with (
        simulator(profile="vllm", model="local-model") as fast,  # unpaced: fills buffers
        router(config_for({"local": fast}, tmp_path, timeouts=PATIENT)) as running,
    ):
        collect = Collect()
        running.components.gateway.sinks.append(collect)
        with stream_from(running, 200_000) as client:
            assert client.recv(1024).startswith(b"HTTP/1.1 200")
            record = collect.wait(30.0)  # then reads nothing more, the socket left open
        assert (record.outcome, record.status) == ("cancelled", 499)
        # the simulator's loop sees the router's close on its own time
        until(lambda: fast.stats()["running"] == 0, what="the backend let go of the stream")


def test_a_client_that_reads_slowly_gets_the_whole_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client that reads, slowly, is not gone: the stream goes on while its end takes
    some of the router's bytes in each `CLIENT_STALL_S`. It did not when only the router's
    own buffer was watched: that moves only once a third of the socket's send queue has
    drained (MBs on loopback), minutes at 600 B/s, so the reader was cut at 60 s and its
    answer recorded cancelled. Here the reader takes about 20 KB/s from a 1 MB queue for
    three stall periods (1 s each), then the rest at full speed."""
    monkeypatch.setattr(corking, "CLIENT_STALL_S", 1.0)
    paused: list[bool] = []
    connection_made = CorkedHttpToolsProtocol.connection_made
    pause_writing = CorkedHttpToolsProtocol.pause_writing

    def fixed_send_buffer(self: CorkedHttpToolsProtocol, transport: asyncio.BaseTransport) -> None:
        # Autotuning grows the queue up to the host's `tcp_wmem` limit, which the answer
        # must exceed to fill the router's buffer: a fixed size keeps that the same on
        # every host (the kernel doubles it).
        sock = transport.get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 512 * 1024)
        connection_made(self, transport)

    def counted(self: CorkedHttpToolsProtocol) -> None:
        paused.append(True)
        pause_writing(self)

    monkeypatch.setattr(CorkedHttpToolsProtocol, "connection_made", fixed_send_buffer)
    monkeypatch.setattr(CorkedHttpToolsProtocol, "pause_writing", counted)
    with (
        simulator(profile="vllm", model="local-model") as fast,  # unpaced: fills buffers
        router(config_for({"local": fast}, tmp_path, timeouts=PATIENT)) as running,
    ):
        collect = Collect()
        running.components.gateway.sinks.append(collect)
        answer = b""
        slow_until: float | None = None
        with stream_from(running, 10_000) as client:  # about 2 MB
            while not answer.endswith(b"\r\n0\r\n\r\n"):  # the chunked body's end
                try:
                    chunk = client.recv(1024)
                except ConnectionResetError:  # the router gave up on this client
                    break
                if not chunk:
                    break
                answer += chunk
                if paused and slow_until is None:
                    slow_until = time.monotonic() + 3 * corking.CLIENT_STALL_S
                if slow_until is None or time.monotonic() < slow_until:
                    time.sleep(0.05)  # a steady reader: 1 KB at a time, with a pause
        record = collect.wait(30.0)
    assert paused, "the router's buffer never filled: the test tested nothing"
    assert answer.startswith(b"HTTP/1.1 200")
    assert b"data: [DONE]" in answer
    assert (record.outcome, record.status) == ("ok", 200)
