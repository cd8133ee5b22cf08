"""Executing a plan: attempts in order, until one backend has committed to an answer.

The commit point is the first byte to the client. Everything before it (connect, HTTP
status, a stream up to its first token: `router.commit`) may fail over to the next backend;
after it, the relay (`router.relay`) can only finish the stream or end it with an in-band
error. A plan whose every backend was skipped is refused as `router.refusals` says; one
whose every attempt failed answers with the error `router.plan_error` picks.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from router.attempt_errors import (
    ContextTooLong,
    Malformed,
    OutputTooLong,
    RateLimited,
    RouterFault,
    Timeout,
    Uncarried,
    Unreachable,
    UpstreamError,
)
from router.backend_refused import BackendRefused
from router.backend_waits import WaitListener, tell
from router.backends.base import Backend
from router.call import Call, Committed
from router.commit import Hold, hold_until_first_token
from router.plan_error import most_meaningful, with_passed_over
from router.policy import Plan
from router.record import CHAT_APIS, Attempt
from router.refusals import nothing_tried
from router.reply_checks import reply_object, whole_failure
from router.request_size import output_limit
from router.retirement import Retirement
from router.silence import QUEUED, SILENT, Life, silent
from router.span_attributes import finish_attributes
from router.sse import EventBuffer
from router.tracing import NO_SPAN, Tracing
from router.translate import exchange

log = logging.getLogger("smf_router")


class AttemptObserver(Protocol):
    """Told about attempts: observers (metrics) about every one; judges (the health tracker,
    resilience's in-flight counts) not about those on a server a reload moved the backend's
    name away from (`Retirement.elsewhere`), whose state it starts over (`Resilience.reloaded`)."""

    def attempt_started(self, backend: str, tier: str) -> None: ...

    def attempt_finished(
        self, backend: str, tier: str, outcome: str, error_kind: str | None
    ) -> None: ...


class Dispatcher:
    def __init__(
        self,
        backends: Mapping[str, Backend],
        observers: list[AttemptObserver] | None = None,
        tracing: Tracing | None = None,
        judges: list[AttemptObserver] | None = None,
        retirement: Retirement | None = None,
        life: Life | None = None,
        waits: list[WaitListener] | None = None,
    ) -> None:
        self.backends = backends
        self.observers: list[AttemptObserver] = observers if observers is not None else []
        self.judges: list[AttemptObserver] = judges if judges is not None else []
        self.tracing = tracing or Tracing.disabled()
        # Shared by the dispatchers a reload makes: attempts on old backends count there.
        self.retirement = retirement if retirement is not None else Retirement()
        self.life = life if life is not None else Life()  # shared too: which backends showed life
        self.waits: list[WaitListener] = waits if waits is not None else []  # and these

    async def execute(self, call: Call) -> Committed:
        """Try the plan's backends in order; return the first that commits, else raise."""
        errors: list[UpstreamError] = []
        failed_window: int | None = None
        for passed in self._passed_over(call.plan):
            self._skip(call, passed)
        for step in call.plan.steps:
            backend = self.backends[step.backend]
            settings = backend.settings
            # the window the plan judged it by: configured, else learned (`Step.window`)
            if failed_window and step.window and step.window <= failed_window:
                too_long = Attempt(step.backend, settings.tier, "skipped", "context_too_long")
                self._skip(call, too_long)
                continue
            if errors:  # the first move past a failed backend: one failing alone is none
                call.record.fallback_reason = call.record.fallback_reason or errors[-1].kind
            for retry in (False, True):
                try:
                    return await self._attempt(call, backend)
                except UpstreamError as error:
                    errors.append(error)
                    if not error.retryable:
                        raise
                    # A prompt too long for this window is too long for a smaller one; an
                    # output limit refused says nothing of the windows (the configured one
                    # may be larger than the served one, which the refusal is about).
                    if isinstance(error, ContextTooLong) and not isinstance(error, OutputTooLong):
                        failed_window = step.window or failed_window or 1
                    if retry or not _short_retry_after(error, settings.retry_after_max_s):
                        self._asked_to_wait(backend, error)
                        break
                    assert isinstance(error, RateLimited) and error.retry_after is not None
                    await asyncio.sleep(error.retry_after)
        if not errors:
            raise nothing_tried(call.plan, call.record.api, output_limit(call.api, call.body))
        raise call.named_as_sent(with_passed_over(most_meaningful(errors), call.plan))

    def _asked_to_wait(self, backend: Backend, error: UpstreamError) -> None:
        """A 429's or an overloaded 503's `Retry-After` longer than `retry_after_max_s` is
        not slept out: the request moves on, and the listeners hear of the wait, for the next
        requests to pass the backend by until it ends (asked again, an overloaded backend
        answered each the same 503). One met on a backend a reload retired counts only if
        the name still has its server and credentials (`Retirement.now`): on another server
        it is the old server's, with other credentials the old key's, and kept, it passed the
        new key by. An error naming no wait names none to keep. The canary's and the shadow's
        calls are told by the same function (`router.backend_waits.tell`)."""
        tell(self.waits, backend.settings, self.retirement.now(backend), error)

    def _skip(self, call: Call, attempt: Attempt) -> None:
        """Record a backend passed over (a `skipped` attempt), and say so on the request
        span, when it happened (`Tracing.skipped`)."""
        call.record.attempts.append(attempt)
        self.tracing.skipped(call.span, attempt)

    def _passed_over(self, plan: Plan) -> list[Attempt]:
        """The backends the plan skipped, each a `skipped` attempt whose `error_kind` is the
        plan's reason (`circuit_open`, `quality_gate`, `private`, ...: the words explain and
        the 503 use). A 503 `no_backend_available` row had `attempts` empty, and a request
        served past a skipped backend named only the one it reached: neither said which
        backends were passed over, nor why. Not tried, they count nowhere a try does
        (`n_attempts`, `x-smf-attempts`, the metrics, `backend_moves`)."""
        return [
            Attempt(s.backend, self.backends[s.backend].settings.tier, "skipped", s.reason)
            for s in plan.skipped
        ]

    async def _attempt(self, call: Call, backend: Backend) -> Committed:
        settings = backend.settings
        attempt = Attempt(settings.name, settings.tier)
        call.record.attempts.append(attempt)
        started = time.monotonic()
        timeouts = settings.timeouts
        heard = functools.partial(self.life.heard, backend)
        hold = Hold(timeouts.idle_s, started + timeouts.total_s, heard=heard)
        self._started(attempt, backend)
        span = self.tracing.start_attempt(call.span, settings)
        headers = call.headers
        if span is not NO_SPAN:
            headers = dict(headers)
            self.tracing.inject(span, headers)
        try:
            try:
                committed = await self._open(call, backend, attempt, started, hold, headers)
            except BaseException:  # failed, cancelled or a bug: the request may end here
                # added, not set: a fallback that failed holding nothing (a 404) left 0
                call.unsent_chars += hold.unsent_chars
                raise
        except UpstreamError as error:
            status = _status_said(error, attempt.status)
            if isinstance(error, BackendRefused):
                log.warning("%s", error.naming_key(settings.key_hint(to_log=True)))
                error.name_key(settings.key_hint())
            # A deadline that fired before the backend showed work on this request, while
            # it was busy with others or reported a queue, is the wait in its queue: neutral
            # for the breaker, as a hang-up there is (`router.silence.QUEUED`).
            queued = isinstance(error, Timeout) and not hold.working
            blame = QUEUED if queued and self.life.busy(backend, started) else None
            self._failed(backend, attempt, span, started, error.kind, status, blame=blame)
            raise
        except asyncio.CancelledError:
            # The client's hang-up is neutral for the breaker, unless the backend had said
            # nothing for so long that the silence is its failure (`router.silence`), and
            # was not busy meanwhile: with others, or, for a whole reply, running requests.
            waited = time.monotonic() - started
            dead = silent(hold.working, waited, timeouts.first_token_s) and call.client_left
            dead = dead and not self.life.busy(backend, started, whole=not call.stream)
            blame = SILENT if dead else None
            self._failed(
                backend, attempt, span, started, "cancelled", None, call.client_left, blame
            )
            raise
        except Exception as exc:  # a reply nothing foresaw (or a bug reading it): count it,
            # fall back. A bug making the request is a `RouterFault` (`backends.base.building`).
            log.exception("attempt on %s failed unexpectedly", settings.name)
            self._failed(backend, attempt, span, started, Malformed.kind, attempt.status)
            raise Malformed(
                f"{settings.name}: the reply could not be read ({type(exc).__name__})",
                backend=settings.name,
            ) from None
        committed.span = span
        # what the failed attempts held is no part of the served request's count (the ledger
        # has no usage per attempt), nor of an estimate if a bug ends it (`Gateway.abandon`)
        call.unsent_chars = 0
        if committed.pieces is not None:  # what the relay reads shows the backend at work
            committed.pieces = self.life.relayed(backend, committed.pieces)
        else:  # a whole reply: the backend is working (`Life.busy` reads it)
            self.life.heard(backend)
        return committed

    def _failed(
        self,
        backend: Backend,
        attempt: Attempt,
        span: Any,
        started: float,
        kind: str,
        status: int | None,
        client_left: bool = False,
        blame: str | None = None,
    ) -> None:
        """An attempt that ended before its reply was committed: the in-flight count and a
        half-open circuit's trial are released here, whatever ended it. `blame` is the kind
        the judges are told when not `kind`: a hang-up after the backend's silence
        (`router.silence`), which its span then calls a failure too, or a timeout in a busy
        backend's queue (`QUEUED`, neutral), whose span says the timeout still."""
        attempt.outcome, attempt.error_kind = "error", kind
        attempt.status = status
        attempt.duration_s = time.monotonic() - started
        self._end_span(span, kind, client_left and blame is None)
        self._finished(attempt, backend, blame)

    async def _open(
        self,
        call: Call,
        backend: Backend,
        attempt: Attempt,
        started: float,
        hold: Hold,
        headers: dict[str, str],
    ) -> Committed:
        """Send, and hold a stream until its first token, within the attempt's deadlines.
        `hold` is the caller's: how far the stream got when a cancellation ended it."""
        timeouts = backend.settings.timeouts
        deadline = hold.deadline
        budget = timeouts.first_token_s if call.stream else timeouts.total_s
        name = backend.settings.name
        try:
            async with asyncio.timeout(budget) as hold.limit:
                reply = await exchange.send(
                    backend, call.api, call.body, headers, call.stream, call.asked()
                )
                attempt.status = reply.status
                events = EventBuffer(name)  # which names the backend past its bound
                committed = Committed(backend, attempt, reply, started, deadline, events=events)
                if not call.stream:
                    committed.parsed = reply_object(reply.body or b"", name)
                    parsed = committed.parsed
                    stopped = (  # a native Responses or Messages reply has no choices
                        whole_failure(parsed, call.api, name, backend.secret_values())
                        if call.api in CHAT_APIS
                        else None
                    )
                    if stopped is not None:
                        raise stopped
                    return committed
                await hold_until_first_token(committed, name, call.api, hold)
                return committed
        except TimeoutError:
            raise hold.expired(name, budget, call.stream) from None

    def finish_attempt(
        self,
        committed: Committed,
        error_kind: str | None = None,
        client_left: bool = False,
        said: Sequence[str] = (),
    ) -> None:
        """Called by the relay when the committed attempt is over. A hang-up after the commit
        is never the backend's failure: it had sent its first token. `said`: the finish
        reasons of the events the client was sent, the backend's own unless the reply was
        translated (its span then says the upstream's: `Translation`'s)."""
        if committed.finished:
            return
        committed.finished = True
        attempt = committed.attempt
        attempt.duration_s = time.monotonic() - committed.started
        if error_kind:
            attempt.outcome, attempt.error_kind = "error", error_kind
        translation = committed.reply.translation
        reasons = said if translation is None else translation.upstream_finish_reasons
        self._end_span(committed.span, error_kind, client_left, reasons)
        self._finished(attempt, committed.backend)

    def _end_span(
        self, span: Any, kind: str | None, hung_up: bool, reasons: Sequence[str] = ()
    ) -> None:
        """End an attempt's span: `error.type` names what ended it, and status ERROR says
        it failed, but not when the client's hang-up (`cancelled`) ended it. As for the
        request span (docs/metrics.md), a trace backend's error rate then counts the
        backends' failures, not hang-ups: the attempt spans said ERROR where the request
        span said UNSET (found in review). `reasons`: the backend's finish reasons, as it
        said them (a chat backend's `stop` under a Messages request's `end_turn`)."""
        attributes: dict[str, Any] = finish_attributes(reasons)
        if hung_up and kind == "cancelled":
            self.tracing.end(span, {**attributes, "error.type": kind})
        else:
            self.tracing.end(span, attributes, error=kind)

    def _started(self, attempt: Attempt, backend: Backend) -> None:
        self.retirement.started(backend)
        for observer in self.observers:
            observer.attempt_started(attempt.backend, attempt.tier)
        if self.judges and not self.retirement.elsewhere(backend):
            for judge in self.judges:
                judge.attempt_started(attempt.backend, attempt.tier)

    def _finished(self, attempt: Attempt, backend: Backend, blame: str | None = None) -> None:
        """Tell the observers how the attempt ended, and the judges too, or `blame` when set:
        what the breaker is to count where the row says otherwise (`router.silence`)."""
        name, tier, outcome, kind = (
            attempt.backend,
            attempt.tier,
            attempt.outcome,
            attempt.error_kind,
        )
        for observer in self.observers:
            observer.attempt_finished(name, tier, outcome, kind)
        if self.judges and not self.retirement.elsewhere(backend):
            for judge in self.judges:
                judge.attempt_finished(name, tier, outcome, blame or kind)
        self.retirement.finished(backend)  # last: a retired backend may close now


def _short_retry_after(error: UpstreamError, limit: float) -> bool:
    return (
        isinstance(error, RateLimited)
        and error.retry_after is not None
        and error.retry_after <= limit
    )


def _status_said(error: UpstreamError, head: int | None) -> int | None:
    """The status a failed attempt records: the backend's own when it answered with an error
    (its 500, which the client is told as a 502; a litellm backend's Timeout for its
    provider's 504), none for a connection failure or a timeout, else the status of the
    reply's head when it came (`head`, `_open`'s): a 200 whose stream then began with an
    error event or the engine's abort. The backend said 200; what failed after it is the
    attempt's error kind, as for a reply that failed after the commit. A timeout's is
    none even then: litellm opens some providers' streams on their first chunk (Gemini),
    its 200 the adapter's own. A bug of ours while making the request (`RouterFault`) has
    none: nothing was sent, and its 500 recorded as the backend's named that backend on the
    request span as if it had answered (`span_attributes.ended_on`, found in review); nor has
    a body the chat translation cannot carry (`Uncarried`): the router refused it, unsent."""
    if error.upstream_status is not None:
        return error.upstream_status
    if isinstance(error, Unreachable | Timeout | RouterFault | Uncarried):
        return None
    return head if head is not None else error.status
