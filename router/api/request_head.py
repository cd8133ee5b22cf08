"""Limits on a request's head (its request line and headers): its size and its time.

uvicorn's httptools protocol bounds neither. httptools gathers a header's name and value
inside the parser until its line ends, before any callback, so one endless header line
grew the router by whatever a client sent (200 MB in review, from a client with no key,
on its way to a 401). And a connection that sent part of a head and then nothing stayed
open for good: uvicorn's keep-alive timer runs only after a response, and any byte cancels
it; some 20,000 of them used up the process's file descriptors and real clients were
refused. So, as nginx does (`large_client_header_buffers`, `client_header_timeout`):

- the bytes received while a head is incomplete are counted, after each chunk is parsed
  and only when the head is still incomplete then (a first packet holding a head and a
  large body is never counted); past `HEAD_MAX_BYTES` the answer is 431 and the
  connection closes;
- a head must be complete within `HEAD_DEADLINE_S` of the connection's start, or of the
  first byte of a later request on a kept-alive connection; else the answer is 408 and the
  connection closes (one that sent nothing at all is just closed).

Neither covers a body the app reads or a response (`router.api.body` and
`router.api.corking` bound those), nor a kept-alive connection waiting for its next
request (uvicorn's `timeout_keep_alive` closes it); a body the app never read, left
arriving after its reply, gets the same deadline (`on_response_complete`). Both answers
are the router's own refusals, counted in `rejected_requests_total` as `other`: no request
was read whole. So is uvicorn's own 400 for a request the parser rejects (`send_400_response`:
a head that is not HTTP, or a chunked body's bad framing, which comes after a complete head),
whose WARNING line, one per request (~6,500 a second from one client with no key, found in
review), is written sparingly, as the 431's is; and so is uvicorn's pair of lines for each
request asking to upgrade the connection (`_unsupported_upgrade_warning`).

The 431 and the 408 are in OpenAI's envelope; on Anthropic's paths in Anthropic's, with the
id named `request-id` too, once the request line has ended: before, its path is not known
(`_head_path`).
"""

from __future__ import annotations

import asyncio
import logging
import sys
import time
from typing import Any, Literal
from urllib.parse import unquote

from httptools import HttpParserCallbackError, HttpParserError, HttpParserInvalidURLError, parse_url
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol

from router.api import demo
from router.api.anthropic_paths import anthropic_path
from router.api.errors import error_headers
from router.errors import HeadTimeout, HeadTooLarge, RouterError
from router.log_sparing import Sparing
from router.record import new_request_id
from router.translate.events import anthropic_error_body

# A head past this many bytes is refused. nginx's default `large_client_header_buffers`
# holds 4 x 8 KB; an agent's heads are a few KB (keys, a session id, tracing headers).
# What counts is what the parser holds: the 200 MB of a header line that never ends.
HEAD_MAX_BYTES = 64 * 1024
# A head still incomplete this long after it began is answered 408, as a body that stops
# arriving is (`router.api.body.BODY_STALL_S`): a real client sends its head at once.
HEAD_DEADLINE_S = 30.0
# After a refusal the reply and the end of the stream are sent, and what the client still
# sends is read and dropped until it closes, for at most this long: a socket closed with
# bytes unread sends a reset, and a client that gets it can lose the reply before reading
# it (nginx's "lingering close").
LINGER_S = 2.0
# The refusals' lines below, which a client with no key can cause at will, are written the
# first time, then at most one this often, saying how many were held back (one per request
# grew the log at the flood's rate, found in review: ~33 lines a second of 431s, ~6,500 of
# uvicorn's 400s from one client). Each kind has its own interval: the 431, the parser's
# 400, a request asking to upgrade the connection (h2c, websocket: uvicorn wrote two WARNING
# lines for each, one telling to install a WebSocket library, though WebSockets are off on
# purpose, `router.serve`), and a router bug inside a parser callback (an ERROR with its
# traceback, ~900 bytes each, set off by every request that sets it off once). The
# requests refused are counted in `rejected_requests_total` all the same.
LOG_INTERVAL_S = 60.0

Phase = Literal["idle", "head", "rest"]  # before a request / in its head / after its head
log = logging.getLogger("smf_router.api")
_TOO_LARGE_LINES = Sparing(LOG_INTERVAL_S)  # the process's, as its log is
_UNPARSED_LINES = Sparing(LOG_INTERVAL_S)
_UPGRADE_LINES = Sparing(LOG_INTERVAL_S)
_BUG_LINES = Sparing(LOG_INTERVAL_S)
# The end of the refusals' lines: a count held back shows only in the next line, whenever
# that is.
_HELD_BACK = (
    "(%d such lines held back since the last; at most one every %.0f s: those held back "
    "from now are counted with the next such line, and all in rejected_requests_total)"
)
# uvicorn's line for a head its parser rejects, written just before `send_400_response`.
UVICORN_UNPARSED = "Invalid HTTP request received."


class _NoUnparsedLine(logging.Filter):
    """Drops uvicorn's own line for a head its parser rejects: `send_400_response` below
    writes one in its stead, sparingly. uvicorn catches the parser's error inside
    `data_received` and logs before it answers, so nothing around it can hold the line."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.msg == UVICORN_UNPARSED and record.module == "httptools_impl")


_NO_UNPARSED_LINE = _NoUnparsedLine()


def drop_uvicorn_unparsed_line() -> None:
    """Installs the filter on uvicorn's logger, once however often called. Done where the
    router's server is set up (`router.serve.uvicorn_config`), not on import: a program
    that imports the router's modules without serving them keeps uvicorn's logging as it
    was."""
    logging.getLogger("uvicorn.error").addFilter(_NO_UNPARSED_LINE)


class HeadLimitedProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, with a size limit and a deadline on each request head."""

    _phase: Phase = "idle"
    _head_bytes = 0
    _ended_in_chunk = False  # a request ended in the chunk being parsed
    _refused = False  # a head was refused: what follows is dropped, never parsed
    _began = False  # the head's message began: uvicorn's `url` and `headers` are its own
    _deadline: asyncio.TimerHandle | None = None  # the head's; after a refusal, the linger's

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()  # a connection that sends nothing is closed too

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        if self._phase == "idle":
            self._head_began()
        self._ended_in_chunk = False
        super().data_received(data)
        # A chunk in which a request ended holds an unknown share of the next head: it is
        # not counted, so a pipelined body's end is never taken for head bytes (the next
        # head may gain at most one read, 256 KB, over the limit).
        if self._phase != "head" or self._ended_in_chunk or self.transport.is_closing():
            return
        self._head_bytes += len(data)
        if self._head_bytes > HEAD_MAX_BYTES:
            held = _TOO_LARGE_LINES.passes(time.monotonic())
            if held is not None:
                log.warning(
                    "a request head passed %d bytes: answered 431, closing the connection "
                    + _HELD_BACK,
                    HEAD_MAX_BYTES,
                    held,
                    _TOO_LARGE_LINES.interval_s,
                )
            self._refuse(
                HeadTooLarge(
                    f"the request line and headers are larger than the limit of "
                    f"{HEAD_MAX_BYTES} bytes"
                )
            )

    def send_400_response(self, msg: str) -> None:
        """uvicorn's answer to a request its parser rejects (its head, or its body's chunked
        framing), unchanged on the wire (400, then the close); counted as the router's other
        refusals are, its line written sparingly. An exception raised in one of the
        router's parser callbacks (`on_url`, `on_headers_complete`...) reaches here too, as
        httptools' `HttpParserCallbackError`. One whose cause is itself a parser error is a
        client's bad request: uvicorn's own `on_headers_complete` parses the URL, and a
        request line any client may send (`CONNECT host:443`, `GET http://a:99999999/`) has
        one it rejects; it was logged as a router bug, an ERROR with a traceback per
        request (found in re-review). Any other cause is a bug: an ERROR with its traceback,
        written sparingly too, since a request that sets it off can be sent at will."""
        error = sys.exc_info()[1]  # uvicorn calls this inside its `except HttpParserError`
        cause = (error.__cause__ or error.__context__) if error is not None else None
        if isinstance(error, HttpParserCallbackError) and not isinstance(cause, HttpParserError):
            line = "a parser callback raised (a router bug)"
            lines, level, trace = _BUG_LINES, logging.ERROR, cause or error  # httptools' context
        else:
            line = "the request could not be parsed as HTTP/1.1 (its head or its body's framing)"
            lines, level, trace = _UNPARSED_LINES, logging.WARNING, None
        held = lines.passes(time.monotonic())
        if held is not None:
            message = line + ": answered 400, closing the connection " + _HELD_BACK
            log.log(level, message, held, lines.interval_s, exc_info=trace)
        components = _components(self.config.app)
        if components is not None:
            components.metrics.rejected_request("other", 400)
        super().send_400_response(msg)

    def _unsupported_upgrade_warning(self) -> None:
        """uvicorn's two WARNING lines for each request asking to upgrade the connection,
        one telling to install a WebSocket library (found in re-review: WebSockets are off
        on purpose, `router.serve`), replaced by one accurate line, written sparingly: any
        client, with no key, can send such requests at will. The request itself is served
        as plain HTTP/1.1, as it was."""
        held = _UPGRADE_LINES.passes(time.monotonic())
        if held is not None:
            log.info(
                "a request asking to upgrade the connection (h2c, websocket) was served as "
                "plain HTTP/1.1: the router serves no upgrade (%d such lines held back since "
                "the last; at most one every %.0f s)",
                held,
                _UPGRADE_LINES.interval_s,
            )

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._unset_keepalive_if_required()  # one `_idle_again` armed in this very chunk
        if self._phase != "head":  # a request that began mid-chunk, after another ended
            self._head_began()
        self._began = True

    def on_headers_complete(self) -> None:
        self._phase, self._head_bytes = "rest", 0
        self._disarm()
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._phase, self._ended_in_chunk = "idle", True
        self._disarm()  # a body that ended after its early reply (`on_response_complete`)
        super().on_message_complete()
        if self.cycle is not None and self.cycle.response_complete and not self.pipeline:
            self._idle_again()

    def _idle_again(self) -> None:
        """The body of a request already answered (a 401 sent before it arrived) ended: the
        connection waits for its next request, under uvicorn's keep-alive timer again. The
        body's first byte had cancelled that timer, and uvicorn starts it only after a
        reply, so such a connection idled with no timer at all (found in review)."""
        if self.transport.is_closing():
            return
        self._unset_keepalive_if_required()
        self.timeout_keep_alive_task = self.loop.call_later(
            self.timeout_keep_alive, self.timeout_keep_alive_handler
        )

    def on_response_complete(self) -> None:
        """A reply that went out before its request's body ended (a 401 or 404 that never
        read it): the rest is read and dropped, for at most `HEAD_DEADLINE_S`, then the
        connection closes. uvicorn's keep-alive timer, which any byte cancels, let a client
        with no key trickle a declared megabyte and hold the connection for good (found in
        review)."""
        super().on_response_complete()
        if self._phase == "rest" and self._deadline is None and not self.transport.is_closing():
            self._deadline = self.loop.call_later(HEAD_DEADLINE_S, self.transport.close)

    def _head_began(self) -> None:
        self._phase, self._began = "head", False
        if self._deadline is None:  # at a connection's start it runs since connection_made
            self._arm()

    def _arm(self) -> None:
        self._deadline = self.loop.call_later(HEAD_DEADLINE_S, self._head_late)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _head_late(self) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        if self._phase != "head":  # the connection never sent a byte: nobody to answer
            self.transport.close()
            return
        self._refuse(
            HeadTimeout(f"the request line and headers did not arrive within {HEAD_DEADLINE_S:g} s")
        )

    def _refuse(self, error: RouterError) -> None:
        """Answer `error` and close the connection; or, while an earlier request's reply is
        still going out on it (pipelined), let that reply end whole and close after it."""
        self._refused = True
        self._disarm()
        if self.cycle is not None and not self.cycle.response_complete:
            self.cycle.keep_alive = False
            return
        components = _components(self.config.app)
        if components is not None:
            components.metrics.rejected_request("other", error.status)
        demo_mark = components is not None and components.config.demo
        self.transport.write(self._raw_reply(error, demo_mark))
        if not self.transport.can_write_eof():
            self.transport.close()
            return
        self.transport.write_eof()  # the client's own close then closes it (`eof_received`)
        self._deadline = self.loop.call_later(LINGER_S, self.transport.close)

    def _raw_reply(self, error: RouterError, demo_mark: bool) -> bytes:
        """`error` written as uvicorn writes its own 400: no request exists to answer through
        the app. In Anthropic's envelope, its id named `request-id` too, when the head's path
        is known and one of Anthropic's (`router.api.anthropic_paths`); else in OpenAI's.
        With the headers the app would give it (`error_headers`): the 431's
        `x-should-retry: false`, which docs/agents/errors.md promised and it lacked (found in
        review); none for the 408, which the SDKs rightly retry."""
        path = self._head_path()
        anthropic = path is not None and anthropic_path(path)
        body = anthropic_error_body(error) if anthropic else error.json()
        request_id = new_request_id().encode()
        head = [STATUS_LINE[error.status]]
        for name, value in [
            *self.server_state.default_headers,
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"x-request-id", request_id),
            *((k.encode(), v.encode()) for k, v in error_headers(error).items()),
            *([(b"request-id", request_id)] if anthropic else []),
            *([demo.HEADER] if demo_mark else []),
            (b"connection", b"close"),
        ]:
            head += [name, b": ", value, b"\r\n"]
        return b"".join([*head, b"\r\n", body])

    def _head_path(self) -> str | None:
        """The path of the head being read once its request line is whole, else None.
        httptools hands uvicorn a header (`on_header`) only when the next one begins, so a
        header held means the line ended. Before that, the URL read so far may be cut short
        (`/v1/mess`): its path is not known, and the answer stays in OpenAI's envelope."""
        if not (self._began and self.headers):
            return None
        try:
            return unquote(parse_url(self.url).path.decode("latin-1"))  # as uvicorn's scope
        except HttpParserInvalidURLError:
            return None


def _components(app: Any) -> Any | None:
    """The router's components, when uvicorn serves the router's app (see `router.app`)."""
    return getattr(getattr(app, "state", None), "components", None)
