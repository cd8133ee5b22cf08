"""One shadow replay: send a queued job to its target, compare the answers, judge, write the row.

`router.shadow`'s `Shadow` samples, queues and schedules the replays and is built on this
(as `router.metrics.Metrics` is on its families); this is what each one does once it holds
its target's slot. The slot is given back as the target's call ends, not after the
comparison and judge. Comparisons run in threads; a request's own tests
(`run_request_tests`) run under the sandbox bound the evals runner and canary share
(`evals.runner.sandbox_slots`). The judge keeps the sampling's privacy rule: a cloud judge
only when `shadow.allow_cloud_targets`, never for a private request (`judge_for`), and its
call is shadow load like the replay's (a slot of its own, only where one is free).
A shadow reply that did not finish (the engine's "abort", as live traffic counts it, or cut
by the output limit where the live answer was not) is a failed replay, not a disagreement
(`router.shadow_reply`). A replay's or judge's 429, or overloaded 503, whose `Retry-After`
asks for a wait starts it for live traffic as a live attempt's does (`heard`,
`router.backend_waits`), on the backend that answered, whichever served the live request.
The replay asks for one choice (`n: 1`): the first alone is compared.
Answer text lives in memory only; the ledger gets the verdict. With tracing on, each replay's
call is a span of its own (`smf.traffic` "shadow") linked to the live request span it mirrors.
Shadow tokens and dollars go to `shadow_comparisons`, never to the live route's spend; so do
the judge's (`judge_tokens`, `judge_cost_usd`: `router.shadow_row`), priced under the config
the call was made under (a reload that removes its backend meanwhile would price it at $0).
Chat, Messages and Responses requests are replayed in chat (translated like any chat backend
would be), the answers compared as text and tool calls.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

import orjson

from evals.runner import sandbox_slots
from router.attempt_errors import Rejected, Timeout, UpstreamError
from router.backend_state import BackendState
from router.backend_waits import Heard
from router.backends.base import Backend
from router.comparison import (
    Comparison,
    Executor,
    Reply,
    compare,
    judge_request,
    judge_verdict,
    request_tests,
)
from router.config import Config
from router.config_sections import ShadowSettings
from router.ledger.usage import usage_of
from router.own_load import ReplayObserver, Slot
from router.record import Record, ShadowDropReason, Usage
from router.shadow_names import live_names, renamed_calls, renamed_tools
from router.shadow_queue import parsed_body
from router.shadow_reply import ShadowReply, parse_reply
from router.shadow_row import Job, Judged, Pricing, call_cost, comparison_row
from router.shadow_sampling import held_away, judge_for
from router.span_attributes import finish_attributes, usage_attributes
from router.tracing import NO_SPAN, Tracing
from router.translate.exchange import keeps_cache, to_chat
from router.vllm_fields import is_vllm

log = logging.getLogger("smf_router.shadow")  # the shadow's one logger, as before the split

_NOT_SENT = ("stream", "stream_options")  # the replay is one whole reply, `n` its 1


class RowSink(Protocol):
    def submit_row(self, table: str, row: dict[str, Any]) -> None: ...


class ShadowMetrics(Protocol):
    def shadow_compared(
        self, intent: str, live_backend: str, shadow_backend: str, agreed: bool | None
    ) -> None: ...

    def shadow_dropped(self, reason: ShadowDropReason) -> None: ...


class Replayer:
    """Replays one job at a time (`replay`). `Shadow.__init__` sets the attributes below; the
    config, backends and pricing are read live, so a reload applies to the next replay."""

    _config: Callable[[], Config]
    _backends: Callable[[], Mapping[str, Backend]]
    _pricing: Callable[[], Pricing | None]
    rows: RowSink | None
    metrics: ShadowMetrics | None
    states: Callable[[], Mapping[str, BackendState]]
    rng: random.Random
    execute: Executor
    observers: Sequence[ReplayObserver]
    tracing: Tracing
    counts: Counter[str]
    heard: Heard  # each call's error: the wait it asks starts for live traffic too

    @property
    def config(self) -> Config:
        return self._config()

    @property
    def settings(self) -> ShadowSettings:
        return self._config().shadow

    @property
    def backends(self) -> Mapping[str, Backend]:
        return self._backends()

    @property
    def pricing(self) -> Pricing | None:
        return self._pricing()

    def _drop(self, reason: ShadowDropReason) -> None:
        self.counts[f"dropped_{reason}"] += 1
        if self.metrics is not None:
            self.metrics.shadow_dropped(reason)

    async def replay(self, job: Job, slot: Slot | None = None) -> dict[str, Any] | None:
        """Send the shadow, compare, judge if configured; returns the ledger row it wrote.
        `slot`, the target's slot this replay holds, is given back as the call ends."""
        record, backend, config = job.record, self.backends.get(job.target), self.config
        if backend is None or job.target not in config.backend_names:  # a reload removed it
            self._drop("no_target")
            return None
        tier = config.backend(job.target).tier  # now: a reload may have moved it since queued
        sent = parsed_body(job.body)  # its dict lives only while the replay does
        body = {k: 1 if k == "n" else v for k, v in sent.items() if k not in _NOT_SENT}
        if job.api != "chat":
            try:
                settings = backend.settings  # what it takes, as `exchange.send` reads it
                cache, prefill = keeps_cache(settings), is_vllm(settings)
                body = to_chat(job.api, body, False, job.target, cache, prefill)
            except Rejected:  # e.g. `previous_response_id`: state only a Responses server has
                self._drop("untranslatable")
                return None
        pricing = self.pricing  # the config's the call is made under (a reload may swap it)
        began = time.monotonic()
        error: str | None = None
        usage: Usage | None = None
        shadow = Reply()
        read: ShadowReply | None = None
        failed: ShadowDropReason = "error"
        span = NO_SPAN  # tracing off: no span, nor its attributes, is built
        if self.tracing.enabled:
            named = {"smf.request_id": record.request_id}  # the live request's (its ledger row)
            span = self.tracing.start_call("shadow", backend.settings, named, job.link)
        try:
            read = parse_reply(await self._ask_target(backend, body, slot, span))
            shadow, usage = read.reply, usage_of("chat", read.usage)
            error = read.unfinished(job.live_cut)  # no answer to compare: `shadow_reply`
        except TimeoutError:
            error, failed = "timeout", "timeout"
        except Timeout as exc:  # the backend's own deadline (`first_token_timeout`, `stall`)
            error, failed = exc.kind, "timeout"
        except UpstreamError as exc:
            self.heard(backend.settings, exc)  # a wait it asks is live traffic's too
            error = exc.kind
        except ValueError:
            error = "malformed"
        except BaseException as exc:  # cancelled at shutdown, or a bug: its span ends too
            cancelled = isinstance(exc, asyncio.CancelledError)
            self.tracing.end(span, error="cancelled" if cancelled else type(exc).__name__)
            raise
        latency = time.monotonic() - began
        said = finish_attributes(read.finish_reasons) if read is not None else {}
        kind = read.error_kind if read is not None else error  # as a live attempt says it
        self.tracing.end(span, {**usage_attributes(usage), **said}, kind)
        if error is not None:
            self._drop(failed)
            verdict = Comparison(None, "none", f"shadow failed: {error}")
            judged = Judged()
        else:
            names = live_names(job.api, sent)  # namespaced calls as the live answer names them
            shadow, body = renamed_calls(shadow, names), renamed_tools(body, names)
            verdict = await self._compare(record.intent, body, job.live, shadow)
            judged = await self._judge(record, body, job, shadow)
            self.counts["compared"] += 1
            if self.metrics is not None:
                self.metrics.shadow_compared(
                    record.intent, record.backend or "", job.target, verdict.agreed
                )
        row = comparison_row(
            job, tier, verdict, latency, usage, judged, error, pricing, time.time()
        )
        if self.rows is not None:
            self.rows.submit_row("shadow_comparisons", row)
        return row

    async def _ask_target(
        self, backend: Backend, body: dict[str, Any], slot: Slot | None, span: Any
    ) -> bytes:
        """The target's reply body. Its slot is given back as the call returns or raises:
        held through the comparison and judge, it made an idle local backend look full, and
        live traffic went to the paid cloud meanwhile. The call carries its span's
        `traceparent`, as a live attempt does."""
        headers: dict[str, str] = {}
        self.tracing.inject(span, headers)
        try:
            async with asyncio.timeout(self.settings.timeout_s):
                reply = await backend.send("chat", body, headers, False)
        finally:
            if slot is not None:
                slot.release()
        return reply.body or b""

    async def _compare(
        self, intent: str, body: dict[str, Any], live: Reply, shadow: Reply
    ) -> Comparison:
        """Off the event loop, every intent: a comparison reads two model answers, parses
        code and may run the request's tests, and no answer may stall live traffic (a math
        one compared on the loop once froze it for 27 s)."""
        # The tests are the client's code: run only where the operator opted in.
        tests = intent == "coding" and request_tests(body) is not None
        if tests and self.settings.run_request_tests:
            # They run in the sandbox: under the bound the canary's and evals' programs
            # share on this loop (one per CPU), not beside them.
            async with sandbox_slots():
                return await asyncio.to_thread(compare, intent, body, live, shadow, self.execute)
        return await asyncio.to_thread(compare, intent, body, live, shadow, None)

    async def _judge(self, record: Record, body: dict[str, Any], job: Job, shadow: Reply) -> Judged:
        """A blind pairwise verdict from a third backend, if one is configured, allowed and
        has a free slot (the judge's call is shadow load like the replay), and its usage."""
        name = judge_for(record, job.target, self.config)
        if name is None or name not in self.backends:
            return Judged()
        tier = self.config.backend(name).tier
        if (away := held_away(self.states().get(name))) is not None:
            log.info("shadow: judge %s is %s; no verdict for %s", name, away, record.request_id)
            return Judged()
        live_first = self.rng.random() < 0.5
        question = judge_request(body, job.live, shadow, live_first)
        pricing = self.pricing  # the config's the call is made under (a reload may swap it)
        began = time.monotonic()
        payload: Any = None
        judge = self.backends[name]
        try:
            with Slot(self.observers, name):  # the judge's slot, for its call alone
                async with asyncio.timeout(self.settings.timeout_s):
                    reply = await judge.send("chat", question, {}, False)
            payload = orjson.loads(reply.body or b"")
        except (TimeoutError, UpstreamError, ValueError) as exc:
            if isinstance(exc, UpstreamError):
                self.heard(judge.settings, exc)  # as the replay's
            log.info("shadow: judge %s gave no verdict (%s)", name, type(exc).__name__)
        latency = time.monotonic() - began
        if payload is None:
            return Judged(None, name, tier, None, latency)
        raw_usage = payload.get("usage") if isinstance(payload, dict) else None
        usage = usage_of("chat", raw_usage)
        cost = call_cost(pricing, record, name, tier, usage, latency) if usage is not None else 0.0
        return Judged(judge_verdict(payload, live_first), name, tier, usage, latency, cost)
