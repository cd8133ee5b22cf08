"""The error tree: every failure the router can report, with its HTTP status and OpenAI shape.

    RouterError                      an error the router answers with (status, type, code)
    ├── BadRequest                   400  invalid_request_error   the client's body is wrong
    │                                     (or its model: no backend of it speaks the API)
    │   ├── BodyTooLarge             413
    │   ├── BodyTimeout              408  the body stopped arriving
    │   ├── HeadTooLarge             431  request line and headers over the limit
    │   ├── HeadTimeout              408  request line and headers not complete in time
    │   ├── UnsupportedEncoding      415  a compressed body (Content-Encoding)
    │   └── BadRequestTooLong        400  context_length_exceeded: fits no backend's window
    ├── Unauthorized                 401  invalid_api_key
    ├── Forbidden                    403
    ├── NotFound                     404  model_not_found / not_found
    ├── NoBackendAvailable           503  every backend of the plan was skipped (retry_after)
    ├── Cancelled                    the request stopped before its answer was complete
    │   ├── ClientClosed             499  the client hung up (recorded, never sent)
    │   └── ShuttingDown             503  the router stopped: its drain ran out
    └── UpstreamError                an attempt failed; `kind` drives fallback
        ├── Unreachable              502  connect refused / reset
        ├── Timeout                  504  connect, first token, stall or total deadline
        ├── RateLimited              429  carries retry_after
        ├── Overloaded               503  carries retry_after
        ├── ServerError              502  other 5xx
        ├── Malformed                502  a reply that is not what the API promises
        ├── ContextTooLong           400  context_length_exceeded
        │   └── OutputTooLong        400  the refusal names max_tokens (not the prompt)
        ├── BackendRefused           502  a 401/402/403/404: the backend's settings are wrong
        │                                     (`router.backend_refused`)
        ├── Rejected                 4xx  passed through faithfully, never retried
        └── RouterFault              500  a bug of ours while sending: not the backend's failure

Fallback is decided by `UpstreamError.retryable`, never by matching message strings.
An error the upstream sent in-band (an event in its stream) keeps its own names in `wire`,
for the client's error event (`router.upstream_errors.in_band`).
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson

from evals.redaction import redacted, redacted_body
from router.request_size import Counts

if TYPE_CHECKING:
    from router.record import Outcome


class RouterError(Exception):
    status = 500
    type = "server_error"
    code: str | None = None
    # When to ask again, in seconds, where the router knows: its `Retry-After` (one rule for
    # every error, `router.api.errors.error_headers`). None: no wait said.
    retry_after: float | None = None

    def __init__(self, message: str, *, param: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.param = param

    def body(self) -> dict[str, Any]:
        return {
            "error": {
                "message": self.message,
                "type": self.type,
                "param": self.param,
                "code": self.code,
            }
        }

    def json(self) -> bytes:
        return orjson.dumps(self.body())


class BadRequest(RouterError):
    status = 400
    type = "invalid_request_error"


class BodyTooLarge(BadRequest):
    status = 413
    code = "request_too_large"


class UnsupportedEncoding(BadRequest):
    """A body sent compressed (`Content-Encoding: gzip`, ...). Nothing in front of the router
    decodes a request body (uvicorn and Starlette do not), so its bytes reached the JSON
    parser and came back as "not valid UTF-8". RFC 9110 (15.5.16) answers 415, naming the
    codings it takes in `Accept-Encoding`."""

    status = 415
    code = "unsupported_content_encoding"


class BodyTimeout(BadRequest):
    """The client stopped sending its body. The rest of it may still arrive, and would be
    read as the next request: the connection closes after this answer."""

    status = 408
    code = "request_timeout"


class HeadTooLarge(BadRequest):
    """The request line and headers passed the limit before they ended. Answered by the
    connection's protocol (`router.api.request_head`), before the app reads the request."""

    status = 431
    code = "request_header_too_large"


class HeadTimeout(BadRequest):
    """The request line and headers did not end in time (`router.api.request_head`)."""

    status = 408
    code = "request_timeout"


class Unauthorized(RouterError):
    status = 401
    type = "invalid_request_error"
    code = "invalid_api_key"


class Forbidden(RouterError):
    status = 403
    type = "permission_error"
    code = "forbidden"


class NotFound(RouterError):
    status = 404
    type = "invalid_request_error"
    code = "model_not_found"


class BadRequestTooLong(BadRequest):
    """The prompt fits no backend's window: the client's error, never worth retrying.
    `sizes`: the router's numbers for it, which a Messages client's words say (`router.
    translate.context_refusal`) and an OpenAI client's message does not."""

    code = "context_length_exceeded"

    def __init__(
        self, message: str, *, param: str | None = None, sizes: Counts | None = None
    ) -> None:
        super().__init__(message, param=param)
        self.sizes = sizes or Counts()


class NoBackendAvailable(RouterError):
    """Every backend was skipped, one at least for a while (circuit open, quality gate).
    `retry_after`: when the soonest may serve again, if known (`Plan.retry_in_s`), whole
    seconds, at least 1 (a circuit just half-open still awaits its trial): `Retry-After`."""

    status = 503
    type = "service_unavailable"
    code = "no_backend_available"

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        self.retry_after = None if retry_after is None else max(1, math.ceil(retry_after))
        super().__init__(
            message if self.retry_after is None else f"{message}; retry in {self.retry_after} s"
        )


class Cancelled(RouterError):
    """The request stopped before its answer was complete, and no backend is to blame."""

    kind = "cancelled"


def refused_outcome(error: BaseException) -> Outcome:
    """The outcome of a request that `error` ended before any backend answered (a refusal,
    a failure while it was planned), as its ledger row and its span both say it: `cancelled`
    when the router stopped it, `client_error` for a 4xx, else `router_error` (an exception
    that is no RouterError is a bug, a 500)."""
    if isinstance(error, Cancelled):
        return "cancelled"
    status = error.status if isinstance(error, RouterError) else 500
    return "client_error" if 400 <= status < 500 else "router_error"


class ClientClosed(Cancelled):
    """The client hung up. Recorded with nginx's 499 ("client closed request"): there is no
    one left to send it to, and a 200 in the ledger would say the answer was delivered."""

    status = 499
    type = "invalid_request_error"
    code = "client_closed_request"


class ShuttingDown(Cancelled):
    """The router is stopping and its drain (`server.drain_s`) ran out: uvicorn cancels what
    still runs. The request itself was fine, so the client may retry it at once (another
    replica, or this one restarted, serves it)."""

    status = 503
    type = "service_unavailable"
    code = "router_shutting_down"


def cancellation(client_left: bool) -> Cancelled:
    """Why a request's task was cancelled: its client left (the front's watcher), else the
    router is stopping (uvicorn, the only other canceller)."""
    if client_left:
        return ClientClosed("the client closed the request")
    return ShuttingDown("the router is shutting down; retry the request")


def error_kind(error: RouterError) -> str | None:
    """The ledger's `error_kind` and the metrics' `kind` of a request that ended in `error`:
    its kind, else its code, else `invalid_request` for a 400 without a code (a private
    request with no local backend, an API no backend speaks), which recorded none."""
    kind = getattr(error, "kind", None) or error.code
    if kind is None and isinstance(error, BadRequest):
        return "invalid_request"
    return kind


@dataclass(frozen=True, slots=True)
class WireError:
    """An upstream's own in-band error as it named it, in its API's vocabulary: Anthropic's
    `type` (`overloaded_error`, which Claude Code waits out), OpenAI's `type` and `code`
    (`context_length_exceeded`, on which Codex compacts its history)."""

    api: str  # the upstream's wire API: "messages" or an OpenAI one
    type: str | None = None
    code: str | None = None


class UpstreamError(RouterError):
    """An attempt failed. `kind` is the closed name the ledger and metrics use.

    Its message may be the upstream's own words, which a gateway may fill with what it was
    sent: it is cleaned here, once, of the backend's `secrets` (the exact values the router
    holds for it) and of whatever looks like a credential (`evals.redaction`), before the
    client, a log, a span or the canary's details can see it."""

    kind = "server_error"
    retryable = True
    type = "upstream_error"
    # the backend's own HTTP status when the client's may differ: the attempt's record says it
    upstream_status: int | None = None
    wire: WireError | None = None  # set when the upstream said it in-band, in its own words

    def __init__(
        self,
        message: str,
        *,
        backend: str = "",
        param: str | None = None,
        secrets: Collection[str] = (),
    ) -> None:
        super().__init__(redacted(message, secrets), param=param)
        self.backend = backend

    def body(self) -> dict[str, Any]:
        """OpenAI's envelope; an OpenAI-shaped upstream's own type and code go through."""
        body = super().body()
        wire = self.wire
        if wire is not None and wire.api != "messages":
            error = body["error"]
            error["type"], error["code"] = wire.type or error["type"], wire.code or error["code"]
        return body


class Unreachable(UpstreamError):
    status = 502
    kind = "unreachable"
    code = "upstream_unreachable"


class Cut(UpstreamError):
    """The reply began (status and headers, maybe some of the answer) and then stopped short:
    the connection closed or broke mid-body, or a stream ended before its answer finished.
    Not `unreachable`: the backend was reached and started answering, which is what an
    operator reading the error kinds needs to tell apart from a box that is off."""

    status = 502
    kind = "cut"
    code = "upstream_cut"


class Timeout(UpstreamError):
    status = 504
    kind = "timeout"
    code = "upstream_timeout"

    def __init__(
        self,
        message: str,
        *,
        backend: str = "",
        kind: str = "timeout",
        secrets: Collection[str] = (),
    ) -> None:
        super().__init__(message, backend=backend, secrets=secrets)
        self.kind = kind  # timeout | first_token_timeout | stall


class _Retrying(UpstreamError):
    """An error that says when to ask again: `retry_after`, its `Retry-After` in seconds, at
    least `min_retry_after_s` when that is set."""

    min_retry_after_s: float | None = None

    def __init__(
        self,
        message: str,
        *,
        backend: str = "",
        retry_after: float | None = None,
        secrets: Collection[str] = (),
    ) -> None:
        super().__init__(message, backend=backend, secrets=secrets)
        floor = self.min_retry_after_s
        if retry_after is not None and floor is not None:
            retry_after = max(floor, retry_after)
        self.retry_after = retry_after


class RateLimited(_Retrying):
    status = 429
    kind = "rate_limited"
    type = "rate_limit_error"
    code = "rate_limit_exceeded"


class Overloaded(_Retrying):
    """Busy (a 503, Anthropic's 529); `retry_after`: its `Retry-After`, floored at 1 s (why:
    `router.api.errors.error_headers`)."""

    status = 503
    kind = "overloaded"
    code = "upstream_overloaded"
    min_retry_after_s = 1.0


class ServerError(UpstreamError):
    status = 502
    kind = "server_error"
    code = "upstream_error"


class Malformed(UpstreamError):
    status = 502
    kind = "malformed"
    code = "upstream_malformed"


class ContextTooLong(UpstreamError):
    status = 400
    kind = "context_too_long"
    type = "invalid_request_error"
    code = "context_length_exceeded"
    # the router's estimate of the prompt, for words that do not say it (`named_as_sent`)
    sizes = Counts()


class OutputTooLong(ContextTooLong):
    """The backend's refusal names the output limit (`max_tokens` over its window): this
    request's choice, which the next turn may not make, so no reason to leave that backend
    for the conversation (`router.policy.detoured`), as a prompt too long is."""

    kind = "output_too_long"


class Rejected(UpstreamError):
    """An upstream 4xx that is the client's problem: passed through, never retried. The
    upstream's body, which the client gets, is cleaned as the message is; one too large to
    clean (`redacted_body`) gives way to the message."""

    kind = "rejected"
    retryable = False

    def __init__(
        self,
        message: str,
        *,
        backend: str,
        status: int,
        upstream: dict[str, Any],
        secrets: Collection[str] = (),
    ) -> None:
        super().__init__(message, backend=backend, secrets=secrets)
        self.status = status
        cleaned = redacted_body(upstream, secrets)
        self.upstream: dict[str, Any] = cleaned or super().body()

    def body(self) -> dict[str, Any]:
        return self.upstream


class RouterFault(UpstreamError):
    """A bug of ours met while sending to a backend: its adapter raised what no upstream said.

    The client sees the router's own internal error, never the exception. The backend is not
    blamed (the breaker does not count it: one client's odd request must not take a backend
    down for everyone), and the next backend, through its own adapter, may still serve."""

    status = 500
    kind = "router_error"
    type = "server_error"
    code = None

    def __init__(self, backend: str) -> None:
        super().__init__(INTERNAL_ERROR, backend=backend)


INTERNAL_ERROR = "internal router error; the request was not completed"


def internal_error() -> RouterError:
    """What the client sees of a bug: a 500 in OpenAI's shape (the traceback goes to the log)."""
    return RouterError(INTERNAL_ERROR)


def stream_error_event(error: RouterError) -> bytes:
    """The in-band SSE event that ends a committed stream honestly (the SDK raises on it)."""
    return b"data: " + error.json() + b"\n\n"
