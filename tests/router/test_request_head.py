"""Limits on a request's head: an endless header line gets a 431 before the router holds it,
a head that never ends gets a 408, and neither touches a body, a reply or a kept-alive
connection (`router.api.request_head`). The router is `tests/router/conftest.py`'s `proxy`."""

from __future__ import annotations

import contextlib
import logging
import re
import select
import socket
import time
from pathlib import Path

import orjson
import pytest

from router.api import request_head
from router.log_sparing import Sparing
from tests.harness import RunningRouter, config_for, router, scrape, simulator, wait_until
from tests.router.raw_requests import connect, read_reply, read_until_closed, rejected

CHAT = {"model": "local", "messages": [{"role": "user", "content": "say hi"}]}
START = b"POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\n"
SHORT_DEADLINE_S = 0.3


@pytest.fixture
def short_deadline(monkeypatch: pytest.MonkeyPatch) -> float:
    """The head deadline of connections made from now on (read when each is armed)."""
    monkeypatch.setattr(request_head, "HEAD_DEADLINE_S", SHORT_DEADLINE_S)
    return SHORT_DEADLINE_S


@pytest.fixture(autouse=True)
def fresh_431_lines(monkeypatch: pytest.MonkeyPatch) -> Sparing:
    """The 431 line's interval, the process's: new for each test, so that one test's 431s
    do not hold back the line another waits for."""
    lines = Sparing(request_head.LOG_INTERVAL_S)
    monkeypatch.setattr(request_head, "_TOO_LARGE_LINES", lines)
    return lines


@pytest.fixture(autouse=True)
def fresh_400_lines(monkeypatch: pytest.MonkeyPatch) -> Sparing:
    """The same for the line of a head the parser rejects."""
    lines = Sparing(request_head.LOG_INTERVAL_S)
    monkeypatch.setattr(request_head, "_UNPARSED_LINES", lines)
    return lines


def request(body: bytes, extra: bytes = b"") -> bytes:
    return START + extra + b"content-length: %d\r\n\r\n" % len(body) + body


def refusal(data: bytes) -> tuple[bytes, dict[str, str]]:
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:])
    assert int(headers["content-length"]) == len(body)
    error = orjson.loads(body)["error"]
    assert error["type"] == "invalid_request_error" and error["message"]
    return lines[0].encode(), {**headers, "code": error["code"]}


def test_an_endless_header_line_is_refused_before_the_router_reads_it_all(
    proxy: RunningRouter,
) -> None:
    """The review's attack: one header line that never ends, from a client with no key.
    The 431 comes once the head passes the limit, long before the 1 MB is sent, and the
    connection closes."""
    before = rejected(scrape(proxy.root), "431")
    chunk, sent = b"a" * 32768, 0
    with connect(proxy) as sock:
        sock.sendall(START + b"x-big: ")
        while sent < 1 << 20 and not select.select([sock], [], [], 0.25)[0]:
            try:
                sock.sendall(chunk)
            except (BrokenPipeError, ConnectionResetError):
                break  # closed on us: the reply is already on its way
            sent += len(chunk)
        assert sent < 1 << 20, "no answer while 1 MB of header went out"
        sock.shutdown(socket.SHUT_WR)  # as a client that gave up: the router may close
        data = read_until_closed(sock)
    status, headers = refusal(data)
    assert status == b"HTTP/1.1 431 Request Header Fields Too Large"
    assert headers["code"] == "request_header_too_large"
    assert headers["connection"] == "close" and headers["x-request-id"]
    assert headers["x-should-retry"] == "false"  # `FINAL`, as docs/agents/errors.md says
    assert rejected(scrape(proxy.root), "431") == before + 1


def test_a_large_head_within_the_limit_sent_in_pieces_is_served(proxy: RunningRouter) -> None:
    wire = request(orjson.dumps(CHAT), b"x-pad: " + b"p" * 32768 + b"\r\nconnection: close\r\n")
    with connect(proxy) as sock:
        for start in range(0, len(wire), 4096):
            sock.sendall(wire[start : start + 4096])
            time.sleep(0.002)  # pacing only: the router reads the head in several chunks
        data = read_until_closed(sock)
    assert data.startswith(b"HTTP/1.1 200")


def test_a_first_packet_with_head_and_a_large_body_is_served(proxy: RunningRouter) -> None:
    """The head ends in the first chunk: what follows it is body, however much, and never
    counts against the head's limit."""
    body = orjson.dumps(CHAT) + b" " * (1 << 20)  # JSON allows the padding
    with connect(proxy) as sock:
        sock.sendall(request(body, b"connection: close\r\n"))
        data = read_until_closed(sock)
    assert data.startswith(b"HTTP/1.1 200")


def test_a_kept_alive_connection_serves_requests_after_idling_past_the_deadline(
    proxy: RunningRouter, short_deadline: float
) -> None:
    """The deadline runs from a head's first byte: not while the connection waits for the
    next request (uvicorn's keep-alive timer, 5 s, covers that), nor during a body."""
    body = orjson.dumps(CHAT)
    with connect(proxy) as sock:
        sock.sendall(request(body))
        assert read_reply(sock)[0].startswith(b"HTTP/1.1 200")
        time.sleep(short_deadline * 3)
        sock.sendall(request(body))
        assert read_reply(sock)[0].startswith(b"HTTP/1.1 200")
        sock.sendall(START + b"content-length: %d\r\n\r\n" % len(body))
        time.sleep(short_deadline * 3)  # a slow body is `router.api.body`'s to judge
        sock.sendall(body)
        assert read_reply(sock)[0].startswith(b"HTTP/1.1 200")


def test_a_head_that_never_ends_gets_408_and_the_connection_closes(
    proxy: RunningRouter, short_deadline: float
) -> None:
    before = rejected(scrape(proxy.root), "408")
    with connect(proxy) as sock:
        sock.sendall(START)  # and nothing more
        data = read_until_closed(sock)
    status, headers = refusal(data)
    assert status == b"HTTP/1.1 408 Request Timeout"
    assert headers["code"] == "request_timeout" and headers["connection"] == "close"
    assert "x-should-retry" not in headers  # the SDKs retry a 408
    assert rejected(scrape(proxy.root), "408") == before + 1


MESSAGES_START = b"POST /v1/messages HTTP/1.1\r\nhost: 127.0.0.1\r\n"
# What each head sent says of its path: httptools hands a header over only when the next
# one begins, so only a head with one held shows its request line ended.
HEADS = [
    ("a header held", MESSAGES_START + b"content-type: application/json\r\n", True),
    ("the line cut short", b"POST /v1/mess", False),  # `/v1/mess` may be any path yet
    ("a chat path", START + b"content-type: application/json\r\n", False),
]


@pytest.mark.parametrize(("sent", "anthropic"), [h[1:] for h in HEADS], ids=[h[0] for h in HEADS])
def test_a_head_on_anthropics_path_that_never_ends_gets_its_408_in_anthropics_envelope(
    proxy: RunningRouter, short_deadline: float, sent: bytes, anthropic: bool
) -> None:
    """Claude Code reads an error in Anthropic's envelope, and its id from `request-id`: the
    408 of a head on `/v1/messages` was OpenAI's (found in review). Where the path is not
    known yet, it stays OpenAI's."""
    with connect(proxy) as sock:
        sock.sendall(sent)  # and nothing more
        data = read_until_closed(sock)
    status, headers, error = shaped_refusal(data, anthropic)
    assert status == b"HTTP/1.1 408 Request Timeout" and headers["connection"] == "close"
    assert "did not arrive within" in error["message"]


def test_a_head_after_one_on_anthropics_path_is_not_taken_for_it(
    proxy: RunningRouter, short_deadline: float
) -> None:
    """A kept-alive connection's next head began with a stray line end, which begins no
    request: the URL and headers uvicorn holds then are the last request's, not its own."""
    body = orjson.dumps({"model": "no-such-model", "max_tokens": 5, "messages": []})
    with connect(proxy) as sock:
        sock.sendall(MESSAGES_START + b"content-length: %d\r\n\r\n" % len(body) + body)
        assert read_reply(sock)[0].startswith(b"HTTP/1.1 4")  # answered, kept alive
        sock.sendall(b"\r\n")  # and nothing more
        status, _, _ = shaped_refusal(read_until_closed(sock), anthropic=False)
    assert status == b"HTTP/1.1 408 Request Timeout"


def test_a_head_on_anthropics_path_over_the_limit_gets_its_431_in_anthropics_envelope(
    proxy: RunningRouter,
) -> None:
    with connect(proxy) as sock:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # closed on us
            sock.sendall(MESSAGES_START + b"x-big: " + b"a" * (request_head.HEAD_MAX_BYTES + 1))
        sock.shutdown(socket.SHUT_WR)
        data = read_until_closed(sock)
    status, headers, error = shaped_refusal(data, anthropic=True)
    assert status == b"HTTP/1.1 431 Request Header Fields Too Large"
    assert headers["x-should-retry"] == "false"
    assert "larger than the limit" in error["message"]


def shaped_refusal(data: bytes, anthropic: bool) -> tuple[bytes, dict[str, str], dict[str, str]]:
    """A head's refusal in Anthropic's envelope with `request-id`, or in OpenAI's without."""
    if not anthropic:
        status, headers = refusal(data)
        assert "request-id" not in headers
        return status, headers, orjson.loads(data.partition(b"\r\n\r\n")[2])["error"]
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:])
    assert int(headers["content-length"]) == len(body)
    assert headers["x-request-id"] and headers.get("request-id") == headers["x-request-id"]
    shaped = orjson.loads(body)
    assert shaped["type"] == "error" and shaped["error"]["type"] == "invalid_request_error"
    return lines[0].encode(), headers, shaped["error"]


def test_a_connection_that_sends_nothing_is_closed_without_an_answer(
    proxy: RunningRouter, short_deadline: float
) -> None:
    before = rejected(scrape(proxy.root), "408")
    with connect(proxy) as sock:
        assert read_until_closed(sock) == b""
    assert rejected(scrape(proxy.root), "408") == before


class Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def refused_too_large(proxy: RunningRouter) -> None:
    """One head over the limit, sent at once; its 431 read to the end."""
    with connect(proxy) as sock:
        # Closed on us mid-send: the 431 is already on its way.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            sock.sendall(START + b"x-big: " + b"a" * (request_head.HEAD_MAX_BYTES + 1000))
        sock.shutdown(socket.SHUT_WR)
        assert read_until_closed(sock).startswith(b"HTTP/1.1 431")


def test_a_flood_of_heads_over_the_limit_is_logged_sparingly(
    proxy: RunningRouter, fresh_431_lines: Sparing
) -> None:
    """A client with no key wrote one WARNING line per oversized head (~33 lines a second,
    found in review): now the first, then one per interval saying how many were held back.
    The interval is cut to 1 s here, so that the line after the flood comes within the test."""
    fresh_431_lines.interval_s = 1.0
    records, logger = Records(), logging.getLogger("smf_router.api")
    logger.addHandler(records)
    try:
        for _ in range(20):
            refused_too_large(proxy)
        time.sleep(1.1)
        refused_too_large(proxy)  # past the interval: says how many were held back
    finally:
        logger.removeHandler(records)
    lines = [m for m in records.messages if "answered 431" in m]
    assert 2 <= len(lines) <= 5, lines  # the first and the one after the sleep, at least
    held = [int(re.findall(r"\((\d+) such lines held back", m)[0]) for m in lines]
    assert held[0] == 0 and held[-1] > 0
    assert len(lines) + sum(held) == 21  # every 431 is logged or counted in a later line


MALFORMED = [
    b"GARBAGE\r\n\r\n",
    b"GET / HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: abc\r\n\r\n",
    b"GET /\x00 HTTP/1.1\r\n\r\n",
    # a complete head, then a chunk size that is not hex: the same 400, the same line
    START + b"transfer-encoding: chunked\r\n\r\nzz\r\n",
]


def refused_malformed(proxy: RunningRouter, wire: bytes) -> None:
    """One head the parser rejects; uvicorn's 400 read to the end, as it always was."""
    with connect(proxy) as sock:
        sock.sendall(wire)
        data = read_until_closed(sock)
    assert data.startswith(b"HTTP/1.1 400 Bad Request\r\n")
    assert b"\r\nconnection: close\r\n" in data
    assert data.endswith(b"\r\n\r\nInvalid HTTP request received.")


def test_a_flood_of_heads_the_parser_rejects_is_logged_sparingly_and_counted(
    proxy: RunningRouter, fresh_400_lines: Sparing
) -> None:
    """uvicorn wrote one WARNING line per request it could not parse (~6,500 a second from
    one client with no key, found in review), and its 400s were in no counter: now one line
    per interval saying how many were held back, and each 400 counted as `other`."""
    fresh_400_lines.interval_s = 1.0
    ours, uvicorns = Records(), Records()
    logging.getLogger("smf_router.api").addHandler(ours)
    logging.getLogger("uvicorn.error").addHandler(uvicorns)
    before = rejected(scrape(proxy.root), "400")
    try:
        for i in range(49):
            refused_malformed(proxy, MALFORMED[i % len(MALFORMED)])
        time.sleep(1.1)
        refused_malformed(proxy, MALFORMED[0])  # past the interval: says how many were held
    finally:
        logging.getLogger("smf_router.api").removeHandler(ours)
        logging.getLogger("uvicorn.error").removeHandler(uvicorns)
    assert rejected(scrape(proxy.root), "400") == before + 50
    assert not [m for m in uvicorns.messages if "Invalid HTTP request" in m]
    lines = [m for m in ours.messages if "answered 400" in m]
    assert 2 <= len(lines) <= 5, lines
    assert all(m.startswith("the request could not be parsed as HTTP/1.1 (its head") for m in lines)
    held = [int(re.findall(r"\((\d+) such lines held back", m)[0]) for m in lines]
    assert held[0] == 0 and held[-1] > 0
    assert len(lines) + sum(held) == 50  # every 400 is logged or counted in a later line


def test_a_pipelined_head_over_the_limit_lets_the_reply_before_it_end_whole(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """A 431 written while an earlier reply is going out would land inside it: that reply
    ends whole, then the connection closes, and nothing follows it."""
    records, logger = Records(), logging.getLogger("smf_router.api")
    logger.addHandler(records)
    with (
        simulator(profile="vllm", model="local-model", fault="hold") as local,
        router(config_for({"local": local}, tmp_path_factory.mktemp("held"))) as proxy,
        connect(proxy) as sock,
    ):
        try:
            sock.sendall(request(orjson.dumps(CHAT)) + START + b"x-big: ")
            assert wait_until(lambda: local.stats()["held"] == 1)
            sock.sendall(b"b" * 100_000)
            assert wait_until(lambda: any("431" in m for m in records.messages))
            local.control("release", {})
            data = read_until_closed(sock)
        finally:
            logger.removeHandler(records)
    assert data.startswith(b"HTTP/1.1 200") and data.count(b"HTTP/1.1") == 1
    assert orjson.loads(data.partition(b"\r\n\r\n")[2])["object"] == "chat.completion"


def test_a_body_trickled_after_an_early_reply_is_cut_at_the_deadline(
    proxy: RunningRouter, short_deadline: float
) -> None:
    """A 404 answered without reading the body: a client trickling the declared rest (a byte
    now and then, each cancelling uvicorn's keep-alive timer) held the connection for good."""
    with connect(proxy) as sock:
        sock.sendall(b"POST /nothing-here HTTP/1.1\r\nhost: 127.0.0.1\r\n")
        sock.sendall(b"content-length: 1000000\r\n\r\n0123456789")
        head, _ = read_reply(sock)
        assert head.startswith(b"HTTP/1.1 404")
        sock.settimeout(0.05)
        closed = False
        for _ in range(200):  # 20 s of trickle at most, against a deadline of 0.3 s
            try:
                sock.sendall(b"x")
                if sock.recv(1) == b"":
                    closed = True
                    break
            except TimeoutError:
                continue
            except OSError:  # reset: closed too
                closed = True
                break
        assert closed, "the connection outlived the deadline while the body trickled"


def test_a_body_that_ends_after_its_early_reply_leaves_the_connection_under_keep_alive(
    proxy: RunningRouter,
) -> None:
    """A 404 sent before its body came; the body then came whole and the client went quiet:
    the body's first byte had cancelled uvicorn's keep-alive timer, which runs again only
    after a reply, so the connection idled with no timer at all (found in review)."""
    with connect(proxy) as sock:
        sock.sendall(b"POST /nothing-here HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 2\r\n\r\n")
        head, _ = read_reply(sock)
        assert head.startswith(b"HTTP/1.1 404")
        sock.sendall(b"{}")
        sock.settimeout(30)  # uvicorn's keep-alive (5 s) closes it long before
        assert read_until_closed(sock) == b""


def test_a_request_right_behind_an_early_answered_body_is_not_cut_by_keep_alive(
    tmp_path: Path,
) -> None:
    """The keep-alive timer armed when an early-answered body ends must not run while the
    next request, sent in the same packet, is served: here one that takes longer than
    uvicorn's 5 s keep-alive."""
    with (
        simulator(profile="vllm", model="local-model") as local,
        router(config_for({"local": local}, tmp_path)) as running,
    ):
        local.control("faults", {"fault": "slow_first_token:7"})
        with connect(running) as sock:
            sock.sendall(
                b"POST /nothing-here HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 2\r\n\r\n"
            )
            head, _ = read_reply(sock)
            assert head.startswith(b"HTTP/1.1 404")
            sock.sendall(b"{}" + request(orjson.dumps({**CHAT, "max_tokens": 5})))
            sock.settimeout(60)
            head, _ = read_reply(sock)
            assert head.startswith(b"HTTP/1.1 200")
