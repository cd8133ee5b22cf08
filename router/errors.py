"""The error tree: every failure the router can report, with its HTTP status and OpenAI shape.

    RouterError                      an error the router answers with (status, type, code)
    ├── BadRequest                   400  invalid_request_error   the client's body is wrong
    │                                     (or its model: no backend of it speaks the API)
    │   ├── BodyTooLarge             413
    │   ├── BodyTimeout              408  the body stopped arriving
    │   ├── HeadTooLarge             431  request line and headers over the limit
    │   ├── HeadTimeout              408  request line and headers not complete in time
    │   ├── UnsupportedEncoding      415  a compressed body (Content-Encoding)
    │   ├── InvalidValue             400  invalid_value: a string outside a closed set
    │   ├── InvalidType              400  invalid_type: a value of the wrong JSON kind
    │   ├── EmptyString              400  empty_string: a name that may not be empty
    │   ├── EmptyArray               400  empty_array: an array that may not be empty
    │   ├── IntegerBelowMinimum      400  integer_below_min_value: an output limit below it
    │   ├── IntegerAboveMaximum      400  integer_above_max_value: `n` over OpenAI's 128
    │   ├── MissingParameter         400  missing_required_parameter
    │   ├── TooManyProperties        400  object_above_max_properties
    │   ├── StringTooLong            400  string_above_max_length
    │   ├── PropertyNameTooLong      400  property_name_above_max_length
    │   └── BadRequestTooLong        400  context_length_exceeded: fits no backend's window
    ├── Unauthorized                 401  invalid_api_key
    ├── Forbidden                    403
    ├── NotFound                     404  model_not_found / not_found
    ├── NoBackendAvailable           503  every backend of the plan was skipped (retry_after)
    │   └── RateLimitedBackends      429  rate_limit_exceeded: each that could serve waits out a 429
    ├── Cancelled                    the request stopped before its answer was complete
    │   ├── ClientClosed             499  the client hung up (recorded, never sent)
    │   └── ShuttingDown             503  the router stopped: its drain ran out
    └── UpstreamError                an attempt failed; `kind` drives fallback
        ├── Unreachable              502  connect refused / reset
        ├── Timeout                  504  connect, first token, stall or total deadline
        ├── RateLimited              429  carries retry_after
        ├── Overloaded               503  carries retry_after
        ├── ServerError              502  other 5xx
        │   └── RefusedInBand        4xx  a client's 4xx in a stream: tried elsewhere first
        ├── Malformed                502  a reply that is not what the API promises
        ├── ContextTooLong           400  context_length_exceeded
        │   └── OutputTooLong        400  the refusal names max_tokens (not the prompt)
        │       └── OutputCapped     400  the model's own output cap: the backend's code
        ├── BackendRefused           502  a 401/402/403/404: the backend's settings are wrong
        │                                     (`router.backend_refused`)
        ├── Rejected                 4xx  passed through faithfully, never retried
        │   └── Uncarried            400  a type chat cannot be sent: the next backend tried
        └── RouterFault              500  a bug of ours while sending: not the backend's failure

The `UpstreamError` branch, what an attempt at a backend did, lives in
`router.attempt_errors` (`BackendRefused` in `router.backend_refused`); the rest, what the
router answers on its own, lives here.

Fallback is decided by `UpstreamError.retryable`, never by matching message strings.
An error the upstream sent in-band (an event in its stream) keeps its own names in `wire`,
for the client's error event (`router.upstream_errors.in_band`).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, get_args

import orjson

from router.record import RefusalKind
from router.request_size import Counts

# The kinds a 400's record names (`error_kind`): its refusal kinds, and a prompt too long
_BAD_REQUEST_KINDS = frozenset({*get_args(RefusalKind), "context_length_exceeded"})

if TYPE_CHECKING:
    from router.record import Outcome


class RouterError(Exception):
    status = 500
    type = "server_error"
    code: str | None = None
    # When to ask again, in seconds, where the router knows: its `Retry-After` (one rule for
    # every error, `router.api.errors.error_headers`). None: no wait said.
    retry_after: float | None = None
    # The message in the words of Anthropic's API, for a Messages client, where OpenAI's
    # differ (`router.field_refusals`: `max_tokens: Field required`, not "Missing required
    # parameter: 'max_tokens'."); None: `message` serves both
    anthropic_message: str | None = None

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


class InvalidValue(BadRequest):
    """A string outside the closed set a field takes (`router.echoed_fields`): OpenAI's
    code for it, as its 400s quote it (openai/codex#7073: `input[111].action.type`)."""

    code = "invalid_value"


class InvalidType(BadRequest):
    """A value of the wrong JSON kind (`truncation: true`, a tool's `strict: "yes"`):
    OpenAI's code for it, as its 400s quote it ("Invalid type for 'tools[0].parameters':
    expected an object, but got a boolean instead.", `invalid_type`)."""

    code = "invalid_type"


class EmptyString(BadRequest):
    """A name OpenAI takes only non-empty (a tool's): its code, as its 400s quote it
    ("Invalid 'tools[0].name': empty string. ...", diegosouzapw/OmniRoute#707)."""

    code = "empty_string"


class EmptyArray(BadRequest):
    """An array OpenAI takes only non-empty (`messages`): its code, as its 400s quote it
    ("Invalid 'messages': empty array. Expected an array with minimum length 1, but got an
    empty array instead.", CopilotKit/CopilotKit#529)."""

    code = "empty_array"


class IntegerBelowMinimum(BadRequest):
    """An integer under the least a field takes (`max_tokens: 0`): OpenAI's code for it, as
    its 400s quote it ("Invalid 'max_tokens': integer below minimum value. Expected a value
    >= 1, but got 0 instead.", it-at-m/mucgpt#608)."""

    code = "integer_below_min_value"


class IntegerAboveMaximum(BadRequest):
    """An integer over the most a field takes (`n: 129`): OpenAI's code for it, as its 400s
    quote it ("Invalid 'n': integer above maximum value. Expected a value <= 8, but got 64
    instead."; "Invalid 'limit': integer above maximum value. ...")."""

    code = "integer_above_max_value"


class MissingParameter(BadRequest):
    """A field OpenAI requires left out: its code, as its 400s quote it
    (`Missing required parameter: 'tools[4].name'.`, icebear0828/codex-proxy#399)."""

    code = "missing_required_parameter"


class TooManyProperties(BadRequest):
    """An object over OpenAI's count of keys (`metadata`, 16): its code, as its 400s quote
    it (BerriAI/litellm#4257)."""

    code = "object_above_max_properties"


class StringTooLong(BadRequest):
    """A string over OpenAI's length for it (a `metadata` value, 512): its code, as its 400s
    quote it (spiceai/docs#928: `metadata.actual`)."""

    code = "string_above_max_length"


class PropertyNameTooLong(BadRequest):
    """A key of an object over OpenAI's length for it (a `metadata` key, 64), named as
    OpenAI names it, `<object>.<key>`: its code, as its 400s quote it (openai/codex#20688:
    `input[184].arguments.<key>`, "Invalid property name in ... is too long")."""

    code = "property_name_above_max_length"


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
        self.reason = message  # without the wait, for those who say it in their own words
        super().__init__(
            message if self.retry_after is None else f"{message}; retry in {self.retry_after} s"
        )


class RateLimitedBackends(NoBackendAvailable):
    """Every backend that could serve was skipped while it waits out its 429's `Retry-After`
    (others, if any, ruled out for good: a window, the privacy, the API). Told as the 429 it
    would have met: the SDKs switch on the status, and the 503 had the OpenAI SDK raise
    `InternalServerError` where it raised `RateLimitError`, and Claude Code read its
    `overloaded_error` as a 529, on which its background queries give up (found in review).
    `kind`: the ledger and metrics still say `no_backend_available` (nothing was tried)."""

    status = 429
    type = "rate_limit_error"
    code = "rate_limit_exceeded"
    kind = "no_backend_available"


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
    # "service unavailable": the words a client that sees no status mid-stream retries on
    # (`router.retry_words`), as the 503 it is before a stream began
    return ShuttingDown("the router is shutting down (service unavailable); retry the request")


def error_kind(error: RouterError) -> str | None:
    """The ledger's `error_kind` and the metrics' `kind` of a request that ended in `error`:
    its kind, else its code, else `invalid_request` for a 400 without a code (a private
    request with no local backend, an API no backend speaks), which recorded none. A 400's
    code that is none of the kinds the ledger and the metrics name (`RefusalKind`, a prompt
    too long) is `invalid_request` too: OpenAI's codes that refusals carry for the client
    (`invalid_value`, `missing_required_parameter`, `previous_response_not_found`...) went
    into both as kinds of their own that neither documents (found in review)."""
    kind = getattr(error, "kind", None) or error.code
    if isinstance(error, BadRequest) and kind not in _BAD_REQUEST_KINDS:
        return "invalid_request"
    return kind


INTERNAL_ERROR = "internal router error; the request was not completed"


def internal_error() -> RouterError:
    """What the client sees of a bug: a 500 in OpenAI's shape (the traceback goes to the log)."""
    return RouterError(INTERNAL_ERROR)


def stream_error_event(error: RouterError) -> bytes:
    """The in-band SSE event that ends a committed stream honestly (the SDK raises on it)."""
    return b"data: " + error.json() + b"\n\n"
