"""What uvicorn's httptools protocol logs for a request it does not serve as asked, as the
router's protocol writes it (`router.api.request_head`): a request asking to upgrade the
connection (one accurate line now and then, not two misleading ones per request), a router
bug inside a parser callback (an ERROR with its traceback, not the line of a client's bad
request, and sparingly too), and a request line uvicorn's own callback rejects (a client's
bad request, not a router bug). The router is `tests/router/conftest.py`'s `proxy`.
"""

from __future__ import annotations

import logging
import socket
import subprocess
import sys
from collections.abc import Iterator

import pytest

from router.api import request_head
from router.log_sparing import Sparing
from tests.harness import RunningRouter, scrape
from tests.router.raw_requests import connect, read_reply, read_until_closed, rejected

UPGRADES = [
    b"GET /v1/models HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: Upgrade, HTTP2-Settings\r\n"
    b"upgrade: h2c\r\nhttp2-settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n",
    b"GET /v1/models HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: Upgrade\r\nupgrade: websocket\r\n"
    b"sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-version: 13\r\n\r\n",
]


class Captured(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def logged() -> Iterator[tuple[Captured, Captured]]:
    """The router's lines and uvicorn's, while the test runs."""
    ours, uvicorns = Captured(), Captured()
    loggers = [logging.getLogger("smf_router.api"), logging.getLogger("uvicorn.error")]
    levels = [logger.level for logger in loggers]
    for logger, handler in zip(loggers, [ours, uvicorns], strict=True):
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
    try:
        yield ours, uvicorns
    finally:
        for logger, handler, level in zip(loggers, [ours, uvicorns], levels, strict=True):
            logger.removeHandler(handler)
            logger.setLevel(level)


@pytest.fixture
def fresh_upgrade_lines(monkeypatch: pytest.MonkeyPatch) -> Sparing:
    """The upgrade line's interval, the process's: new for this test, so that its first line
    passes whatever came before."""
    lines = Sparing(60.0)
    monkeypatch.setattr(request_head, "_UPGRADE_LINES", lines, raising=False)
    return lines


@pytest.fixture
def fresh_bug_lines(monkeypatch: pytest.MonkeyPatch) -> Sparing:
    """The same for the line of a router bug inside a parser callback."""
    lines = Sparing(60.0)
    monkeypatch.setattr(request_head, "_BUG_LINES", lines, raising=False)
    return lines


@pytest.fixture
def fresh_400_lines(monkeypatch: pytest.MonkeyPatch) -> Sparing:
    """The same for the line of a request the parser rejects."""
    lines = Sparing(60.0)
    monkeypatch.setattr(request_head, "_UNPARSED_LINES", lines)
    return lines


def test_requests_asking_to_upgrade_are_served_and_logged_sparingly(
    proxy: RunningRouter,
    logged: tuple[Captured, Captured],
    fresh_upgrade_lines: Sparing,
) -> None:
    """uvicorn wrote two WARNING lines for each such request, from any client with no key:
    "Unsupported upgrade request." and one telling to install a WebSocket library, though
    WebSockets are off on purpose (found in re-review). Now one accurate line, then the
    others held back; each request is still served as plain HTTP/1.1."""
    ours, uvicorns = logged
    for i in range(20):
        with connect(proxy) as sock:
            sock.sendall(UPGRADES[i % len(UPGRADES)])
            head, _ = read_reply(sock)
        assert head.startswith(b"HTTP/1.1 200 OK\r\n"), head
    assert [r.getMessage() for r in uvicorns.records if "pgrade" in r.getMessage()] == []
    assert [r.getMessage() for r in uvicorns.records if "WebSocket" in r.getMessage()] == []
    lines = [r.getMessage() for r in ours.records if "served as plain HTTP/1.1" in r.getMessage()]
    assert len(lines) == 1, lines
    assert "(0 such lines held back" in lines[0] and fresh_upgrade_lines.held == 19


def test_a_bug_in_a_parser_callback_is_logged_as_one_with_its_traceback(
    proxy: RunningRouter,
    logged: tuple[Captured, Captured],
    monkeypatch: pytest.MonkeyPatch,
    fresh_bug_lines: Sparing,
) -> None:
    """An exception in one of the router's parser callbacks reaches uvicorn as httptools'
    `HttpParserCallbackError`, a parser error: it was answered 400 and logged as a client's
    bad request, at most once a minute and with no traceback (found in re-review). It is
    now an ERROR with the exception's traceback, written sparingly (a request that sets it
    off can be sent at will); the 400 is counted as before."""
    plain = request_head.HeadLimitedProtocol.on_url

    def on_url(self: request_head.HeadLimitedProtocol, url: bytes) -> None:
        if b"boom" in url:
            raise KeyError("a simulated router bug")
        plain(self, url)

    monkeypatch.setattr(request_head.HeadLimitedProtocol, "on_url", on_url)
    ours, _ = logged
    before = rejected(scrape(proxy.root), "400")
    for _ in range(3):
        with connect(proxy) as sock:
            sock.sendall(b"GET /v1/models?boom HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n")
            sock.shutdown(socket.SHUT_WR)
            assert read_until_closed(sock).startswith(b"HTTP/1.1 400 Bad Request\r\n")
    assert rejected(scrape(proxy.root), "400") == before + 3
    errors = [r for r in ours.records if r.levelno == logging.ERROR]
    assert len(errors) == 1, [r.getMessage() for r in ours.records]
    assert "router bug" in errors[0].getMessage() and errors[0].exc_info is not None
    assert isinstance(errors[0].exc_info[1], KeyError)
    assert fresh_bug_lines.held == 2
    assert not [r for r in ours.records if "could not be parsed" in r.getMessage()]


# Request lines uvicorn's own `on_headers_complete` rejects, parsing the URL: httptools'
# `parse_url` raises its `HttpParserInvalidURLError`, which reaches the router wrapped in a
# `HttpParserCallbackError`, as a router bug's exception does.
UNPARSED_URLS = [
    b"CONNECT example.com:443 HTTP/1.1\r\nhost: example.com:443\r\n\r\n",
    b"GET http://a:99999999/ HTTP/1.1\r\nhost: a\r\n\r\n",
    b"GET http://u@/ HTTP/1.1\r\nhost: a\r\n\r\n",
]


def test_a_url_uvicorn_rejects_is_a_clients_bad_request_not_a_router_bug(
    proxy: RunningRouter,
    logged: tuple[Captured, Captured],
    fresh_bug_lines: Sparing,
    fresh_400_lines: Sparing,
) -> None:
    """`CONNECT example.com:443`, which any client may send with no key, was logged as a
    router bug, an ERROR with ~900 bytes of traceback per request (3.7 MB/s from one
    client, found in re-review). It is a client's bad request: the sparing WARNING line."""
    ours, _ = logged
    before = rejected(scrape(proxy.root), "400")
    n = 30
    for i in range(n):
        with connect(proxy) as sock:
            sock.sendall(UNPARSED_URLS[i % len(UNPARSED_URLS)])
            sock.shutdown(socket.SHUT_WR)
            assert read_until_closed(sock).startswith(b"HTTP/1.1 400 Bad Request\r\n")
    assert rejected(scrape(proxy.root), "400") == before + n
    assert not [r for r in ours.records if r.levelno >= logging.ERROR]
    warnings = [r.getMessage() for r in ours.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "could not be parsed" in warnings[0], warnings
    assert fresh_400_lines.held == n - 1 and fresh_bug_lines.held == 0


FILTERS_OF_UVICORN = """
import logging
import router.app, router.api.request_head
from router.default_config import demo
from router.serve import uvicorn_config
uvicorn_error = logging.getLogger("uvicorn.error")
print(len(uvicorn_error.filters))
uvicorn_config(None, demo("http://127.0.0.1:1", "http://127.0.0.1:2"), "127.0.0.1", 0)
uvicorn_config(None, demo("http://127.0.0.1:1", "http://127.0.0.1:2"), "127.0.0.1", 0)
print(len(uvicorn_error.filters))
"""


def test_uvicorn_s_unparsed_line_is_dropped_by_a_served_router_only() -> None:
    """The filter that drops uvicorn's own 400 line was installed on import: any program
    importing the router's modules lost that line of uvicorn's. It is installed where the
    server is set up, once however often."""
    done = subprocess.run(
        [sys.executable, "-c", FILTERS_OF_UVICORN], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0", "1"]
