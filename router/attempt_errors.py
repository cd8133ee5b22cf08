"""The `UpstreamError` branch of the error tree: how one attempt at a backend failed.

Its own module because it is its own idea: `router.errors` holds what the router answers
on its own (refusals, cancellations) and the tree's drawing; here is what a backend did,
whose `kind` the ledger and metrics name and whose `retryable` drives fallback. An error
the upstream sent in-band keeps its own names in `wire` (`router.upstream_errors.in_band`).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from evals.redaction import redacted, redacted_body
from router.backend_state import Wait
from router.errors import INTERNAL_ERROR, RouterError
from router.request_size import Counts


@dataclass(frozen=True, slots=True)
class WireError:
    """An upstream's own in-band error as it named it, in its API's vocabulary: Anthropic's
    `type` (`overloaded_error`, which Claude Code waits out), OpenAI's `type` and `code`
    (`context_length_exceeded`, on which Codex ends the turn and compacts before the next)."""

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
    # every attempt of the plan this error ends failed fast, so the client's SDK may retry
    # it on its own 5xx rule (`router.plan_error.all_failed_fast`, `router.api.errors`)
    all_failed_fast = False

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


def asked_wait(error: UpstreamError, limit_s: float) -> tuple[Wait, float] | None:
    """The wait `error` asks for, and what asked it, when its `Retry-After` is longer than
    `limit_s` (the backend's `retry_after_max_s`, up to which a 429 is slept out): a 429's
    (`rate_limited`) or an overloaded 503's or 529's (`overloaded`). Live traffic passes
    the backend by till it ends (`router.dispatch`), and so does the canary's round (its
    rest: `router.canary_wait`). None for any other error, or one naming no such wait."""
    wait = error.retry_after if isinstance(error, RateLimited | Overloaded) else None
    if wait is None or wait <= limit_s:
        return None
    return ("rate_limited" if isinstance(error, RateLimited) else "overloaded"), wait


class ServerError(UpstreamError):
    status = 502
    kind = "server_error"
    code = "upstream_error"


class PassedThrough(UpstreamError):
    """An upstream's 4xx told to the client as the backend said it: its status, and its
    body cleaned as the message is; one too large to clean (`redacted_body`) gives way to the
    message."""

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
        self.upstream: dict[str, Any] = redacted_body(upstream, secrets) or super().body()

    def body(self) -> dict[str, Any]:
        return self.upstream


class RefusedInBand(PassedThrough, ServerError):
    """A client's 4xx a backend sent in its stream, after its 200: tried on the next backend,
    as any failure in a stream is, and told to the client as the backend said it (its status
    and body, not a 502) when no backend answers. vLLM 0.32 refuses a malformed
    structured-output constraint so (`code: 400`), but the same names carry the model's own
    failures: Groq's `tool_use_failed` (a malformed tool call), Anthropic's content filter
    (`invalid_request_error`), vLLM's tool parser failing at a stream's start (any
    `ValueError` there is its 400). Another backend may well answer those; a client's
    mistake gets the same refusal from it, or an answer (found in review, after a change
    that stopped the plan at the first such event cost those requests their fallback)."""


class Malformed(UpstreamError):
    status = 502
    kind = "malformed"
    code = "upstream_malformed"


class ContextTooLong(UpstreamError):
    status = 400
    kind = "context_too_long"
    type = "invalid_request_error"
    code: str | None = "context_length_exceeded"
    # the router's estimate of the prompt, for words that do not say it (`named_as_sent`)
    sizes = Counts()


class OutputTooLong(ContextTooLong):
    """The backend's refusal names the output limit (`max_tokens` over its window): this
    request's choice, which the next turn may not make, so no reason to leave that backend
    for the conversation (`router.policy.detoured`), as a prompt too long is."""

    kind = "output_too_long"


class OutputCapped(OutputTooLong):
    """The model's own cap on output refused the limit asked ("max_tokens is too large: ...",
    `router.upstream_errors.is_output_cap`): no window was passed, and no smaller prompt gets
    it served. Still a detour, to a backend with more room; but the client that gets it is
    told it as the backend said it, with the backend's own `code` (OpenAI's `invalid_value`),
    never as a full context: opencode's forks (Kilo Code) and Codex compact their history on
    `context_length_exceeded`, and did so till they gave up, where compaction could never
    help (found in a live review with Kilo Code CLI 7.7.7)."""

    def __init__(
        self,
        message: str,
        *,
        backend: str = "",
        param: str | None = None,
        code: str | None = None,
        secrets: Collection[str] = (),
    ) -> None:
        super().__init__(message, backend=backend, param=param, secrets=secrets)
        self.code = code


class Rejected(PassedThrough):
    """An upstream 4xx that is the client's problem: passed through, never retried."""

    kind = "rejected"
    retryable = False


class Uncarried(Rejected):
    """Content a chat backend cannot be sent: a block, item or part `type` the translation
    does not know (`router.content_checks.uncarried`), refused in the client's API's words
    before a byte is sent. Not the end of the plan: a native backend further on passes the
    type through, so the next backend is tried; the client is told this refusal only when
    no backend of the plan took the request and none failed otherwise
    (`router.plan_error`)."""

    retryable = True

    def __init__(self, refusal: RouterError, backend: str) -> None:
        super().__init__(
            f"{backend}: {refusal.message}", backend=backend, status=400, upstream=refusal.body()
        )
        self.anthropic_message = refusal.anthropic_message


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
