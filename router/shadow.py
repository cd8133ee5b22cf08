"""Shadow evaluation: replay a sample of finished live requests on another backend, compare.

Which requests are sampled, and toward which backend, is `router.shadow_sampling`'s pure
decision; this module is the call sink that rolls its dice as each request arrives, offers
each picked one to it once finished, and the background job that replays what it sampled.
The client never waits, never sees a shadow error. Bounded: at most `max_concurrency`
replays in flight, a queue of `queue_size` jobs holding with those `queue_bytes` at most
(`router.shadow_queue`), whose overflow is counted, and a job whose target saturated, or
whose rate a reload set to 0, while it waited is skipped (`held_back`). Each replay's call
(and the judge's) is told to the `ReplayObserver`s (`router.own_load`) while it runs:
capacity counts it with the live attempts, so a live request finds a backend full of
shadows full (and overflows, not queued on the GPU behind them), and a shadow starts only
where a slot is free (live + replays + 1 <= the backend's `max_concurrency`). The target's
slot is given back as its call ends, not after the comparison and judge. Comparisons run
in threads; a request's own tests (`run_request_tests`) run under the sandbox bound the
evals runner and canary share (`evals.runner.sandbox_slots`). The judge keeps the
sampling's privacy rule: a cloud judge only when `shadow.allow_cloud_targets`, never for a
private request (`judge_for`).
A shadow reply that did not finish (the engine's "abort", as live traffic counts it, or cut
by the output limit where the live answer was not) is a failed replay, not a disagreement
(`router.shadow_reply`). The replay asks for one choice (`n: 1`): the first alone is compared.
Answer text lives in memory only; the ledger gets the verdict. With tracing on, each replay's
call is a span of its own (`smf.traffic` "shadow") linked to the live request span it mirrors.
Shadow tokens and dollars go to `shadow_comparisons`, never to the live route's spend; so do
the judge's (`judge_tokens`, `judge_cost_usd`: `router.shadow_row`), priced under the config
the call was made under (a reload that removes its backend meanwhile would price it at $0).
Chat, Messages (Claude Code) and Responses (Codex) requests are mirrored; the shadow is
always asked in chat (translated like any chat backend would be), the answers compared as
text and tool calls; so only a backend that speaks chat is a target (`shadow_sampling`).
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
from evals.sandbox import run_python
from router import live
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
from router.dispatch import Call
from router.errors import Rejected, Timeout, UpstreamError
from router.own_load import ReplayObserver, Slot
from router.policy import BackendState
from router.record import Api, Record, ShadowDropReason, Usage
from router.relay import Tally, usage_of
from router.shadow_queue import JobQueue, job_size, parsed_body
from router.shadow_reply import ShadowReply, cut_by_limit, parse_reply
from router.shadow_row import Job, Judged, Pricing, call_cost, comparison_row
from router.shadow_sampling import decide, full, held_back, judge_for, rolls
from router.span_attributes import finish_attributes, usage_attributes
from router.span_export import SpanLink
from router.tracing import NO_SPAN, Tracing
from router.translate.exchange import keeps_cache, to_chat

log = logging.getLogger("smf_router.shadow")

MIRRORED_APIS: tuple[Api, ...] = ("chat", "messages", "responses")
_NOT_SENT = ("stream", "stream_options")  # the replay is one whole reply, `n` its 1


class RowSink(Protocol):
    def submit_row(self, table: str, row: dict[str, Any]) -> None: ...


class ShadowMetrics(Protocol):
    def shadow_compared(
        self, intent: str, live_backend: str, shadow_backend: str, agreed: bool | None
    ) -> None: ...

    def shadow_dropped(self, reason: ShadowDropReason) -> None: ...


class Shadow:
    """The call sink that samples, queues and replays; `run` is its background job."""

    def __init__(
        self,
        config: Config | Callable[[], Config],
        backends: Mapping[str, Backend] | Callable[[], Mapping[str, Backend]],
        rows: RowSink | None = None,
        metrics: ShadowMetrics | None = None,
        pricing: Pricing | Callable[[], Pricing | None] | None = None,
        states: Callable[[], Mapping[str, BackendState]] = dict,
        rng: random.Random | None = None,
        execute: Executor = run_python,
        observers: Sequence[ReplayObserver] = (),
        tracing: Tracing | None = None,
    ) -> None:
        self._config = live.source(config)
        self._backends = live.source(backends)
        self._pricing = live.source(pricing)
        self.rows = rows
        self.metrics = metrics
        self.states = states
        self.rng = rng or random.Random()
        self.execute = execute
        self.observers = observers  # the components' list: read at each replay
        self.tracing = tracing or Tracing.disabled()
        # `offer` holds it to `queue_size` and `queue_bytes` of the running config.
        self.queue = JobQueue()
        self.counts: Counter[str] = Counter()
        self.in_flight = 0
        self._freed = asyncio.Event()  # a replay ended: a slot may be free

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

    def samples(self, call: Call) -> bool:
        """The dice, rolled once as `call` arrives (`shadow_sampling.rolls`)."""
        return call.api in MIRRORED_APIS and rolls(call.record, self.config, self.rng)

    def call_finished(self, call: Call, tally: Tally) -> None:
        """Runs after the live reply finished; never raises into the request path."""
        try:
            raw = call.raw_body  # the front keeps it for a picked call only
            if not call.sampled or raw is None:
                return
            live = Reply(str(tally.text), tuple(tally.answer_tool_calls()))
            link = self.tracing.link_to(call.span)
            cut = cut_by_limit(tally.answer_finish_reasons)  # the compared choice's
            self.offer(call.record, raw, live, call.api, link, live_cut=cut)
        except Exception:
            log.exception("shadow: could not consider request %s", call.record.request_id)

    def offer(
        self,
        record: Record,
        body: bytes,
        live: Reply,
        api: Api = "chat",
        link: SpanLink | None = None,
        live_cut: bool = False,
    ) -> None:
        """Queue the replay of a request the dice picked, holding `body`, the bytes received."""
        decision = decide(record, self.config, self.states())
        if decision is None:
            return
        self.counts["sampled"] += 1
        if decision.target is None:
            self._drop(decision.drop or "no_target")
            return
        tier = self.config.backend(decision.target).tier
        size = job_size(body, live)
        job = Job(record, body, live, decision.target, api, tier, link, size, live_cut)
        if not self.queue.admit(job, self.settings.queue_size, self.settings.queue_bytes):
            self._drop("queue_full")

    def _drop(self, reason: ShadowDropReason) -> None:
        self.counts[f"dropped_{reason}"] += 1
        if self.metrics is not None:
            self.metrics.shadow_dropped(reason)

    async def run(self) -> None:
        """Replay queued jobs, at most `max_concurrency` at once; the limit is read for each
        job, so a hot reload applies to the next one. A bug while starting one job is logged
        and the loop goes on: raised, it ended shadowing for good, with no word."""
        async with asyncio.TaskGroup() as group:
            while True:
                try:
                    await self._start_next(group)
                except Exception:
                    log.exception("shadow: starting a replay failed; going on with the next")

    async def _start_next(self, group: asyncio.TaskGroup) -> None:
        # A slot first, then the job: a job taken while waiting for a slot was a
        # `queue_size + 1`th one, outside the queue (and lost uncounted at shutdown).
        while self.in_flight >= self.settings.max_concurrency:
            self._freed.clear()
            await self._freed.wait()
        job = await self.queue.get()
        slot: Slot | None = None
        skip: ShadowDropReason | None = None
        try:  # The target's slot now, not in the task: the next job's check must see it.
            skip = held_back(job.record, job.target, self.config, self.states())
            slot = Slot(self.observers, job.target) if skip is None else None
        finally:
            if slot is None:  # turned off or filled up while the job waited (or a bug): let go
                self.queue.done(job)
        if slot is None:
            self._drop(skip or "saturated")
            return
        self.in_flight += 1
        group.create_task(self._replay_one(job, slot))

    def _has_room(self, backend: str) -> bool:
        """Whether a replay may take a slot of `backend` now: not when live attempts and
        replays already fill it (saturated), nor when its circuit is open."""
        return not full(self.states().get(backend))

    async def _replay_one(self, job: Job, slot: Slot) -> None:
        try:
            await self.replay(job, slot)
        except asyncio.CancelledError:  # shutdown: counted like the jobs still queued
            self._drop("shutdown")
            raise
        except Exception:
            log.exception("shadow: replay of %s failed", job.record.request_id)
        finally:
            self.in_flight -= 1
            self.queue.done(job)  # its body and answer are let go now, not when it was taken
            slot.release()  # if the replay ended before its call (or the call never ended)
            self._freed.set()

    def close(self) -> None:
        """Jobs still queued at shutdown are dropped, and counted (replays in flight count
        as they are cancelled)."""
        for _ in self.queue.drain():
            self._drop("shutdown")

    async def replay(self, job: Job, slot: Slot | None = None) -> dict[str, Any] | None:
        """Send the shadow, compare, judge if configured; returns the ledger row it wrote.
        `slot`, the target's slot this replay holds, is given back as the call ends."""
        record, backend = job.record, self.backends.get(job.target)
        if backend is None:  # a reload removed the target after the job was queued
            self._drop("no_target")
            return None
        sent = parsed_body(job.body)  # its dict lives only while the replay does
        body = {k: 1 if k == "n" else v for k, v in sent.items() if k not in _NOT_SENT}
        if job.api != "chat":
            try:
                cache = keeps_cache(backend.settings)  # as `exchange.send` would
                body = to_chat(job.api, body, False, job.target, cache=cache)
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
            verdict = await self._compare(record.intent, body, job.live, shadow)
            judged = await self._judge(record, body, job, shadow)
            self.counts["compared"] += 1
            if self.metrics is not None:
                self.metrics.shadow_compared(
                    record.intent, record.backend or "", job.target, verdict.agreed
                )
        row = comparison_row(job, verdict, latency, usage, judged, error, pricing, time.time())
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
        if not self._has_room(name):
            log.info("shadow: judge %s is full; no verdict for %s", name, record.request_id)
            return Judged()
        live_first = self.rng.random() < 0.5
        question = judge_request(body, job.live, shadow, live_first)
        pricing = self.pricing  # the config's the call is made under (a reload may swap it)
        began = time.monotonic()
        payload: Any = None
        try:
            with Slot(self.observers, name):  # the judge's slot, for its call alone
                async with asyncio.timeout(self.settings.timeout_s):
                    reply = await self.backends[name].send("chat", question, {}, False)
            payload = orjson.loads(reply.body or b"")
        except (TimeoutError, UpstreamError, ValueError) as exc:
            log.info("shadow: judge %s gave no verdict (%s)", name, type(exc).__name__)
        latency = time.monotonic() - began
        if payload is None:
            return Judged(None, name, tier, None, latency)
        raw_usage = payload.get("usage") if isinstance(payload, dict) else None
        usage = usage_of("chat", raw_usage)
        cost = call_cost(pricing, record, name, tier, usage, latency) if usage is not None else 0.0
        return Judged(judge_verdict(payload, live_first), name, tier, usage, latency, cost)

    def status(self) -> dict[str, Any]:
        """The `shadow` section of `/v1/router/status`."""
        return {
            "queued": self.queue.qsize(),
            "in_flight": self.in_flight,
            "max_concurrency": self.settings.max_concurrency,
            "held_bytes": self.queue.held_bytes,  # by the jobs queued and in flight
            "queue_bytes": self.settings.queue_bytes,
            "counts": dict(self.counts),
        }


def wanted(config: Config) -> bool:
    """Any shadow rate set: the router then installs the shadow at start."""
    return config.shadow.samples


def install(components: Any) -> None:
    """FEATURES installer: a call sink and its replay loop when any shadow rate is set."""
    if not wanted(components.config):
        return
    shadow = Shadow(
        lambda: components.config,
        lambda: components.backends,
        rows=components.ledger,
        metrics=components.metrics,
        pricing=lambda: components.pricer,
        states=lambda: components.gateway.state_source.states(),
        observers=components.replay_observers,
        tracing=components.tracing,
    )
    components.gateway.call_sinks.append(shadow)
    components.background.append(shadow.run)
    components.closers.append(shadow.close)
    components.status_sections["shadow"] = shadow.status
