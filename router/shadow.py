"""Shadow evaluation: replay a sample of finished live requests on another backend, compare.

Which requests are sampled, and toward which backend, is `router.shadow_sampling`'s pure
decision; this module is the call sink that rolls its dice as each request arrives, offers
each picked one to it once finished, and the background job that replays what it sampled
(each replay itself, its call, comparison, judge and ledger row: `router.shadow_replay`).
The client never waits, never sees a shadow error. Bounded: at most `max_concurrency`
replays in flight, a queue of `queue_size` jobs holding with those `queue_bytes` at most
(`router.shadow_queue`), whose overflow is counted, and a job is skipped whose target
saturated while it waited (or began a 429's wait: `rate_limited`), or whose rate a reload
set to 0, or whose target the reloaded config forbids (cloud targets turned off, a private
request's target moved to the cloud) or no longer aims the request at (`shadow.targets`
changed: `target_changed`), so a job starts only where a new sample would go
(`held_back`, asked as the job starts). Each replay's call (and the judge's) is told to
the `ReplayObserver`s (`router.own_load`) while it runs: capacity counts it with the live
attempts, so a live request finds a backend full of shadows full (and overflows, not queued
on the GPU behind them), and a shadow starts only where a slot is free (live + replays + 1
<= the backend's `max_concurrency`).
Chat, Messages (Claude Code) and Responses (Codex) requests are mirrored; the shadow is
always asked in chat, so only a backend that speaks chat is a target (`shadow_sampling`).
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from evals.sandbox import run_python
from router import live, sandbox_layers
from router.backend_state import BackendState
from router.backend_waits import Heard, heard_by, unheard
from router.backends.base import Backend
from router.call import Call
from router.comparison import Executor, Reply
from router.config import Config
from router.own_load import ReplayObserver, Slot
from router.record import Api, Record, ShadowDropReason
from router.relay import Tally
from router.shadow_queue import JobQueue, job_size
from router.shadow_replay import Replayer, RowSink, ShadowMetrics
from router.shadow_reply import cut_by_limit
from router.shadow_row import Job, Pricing
from router.shadow_sampling import decide, held_back, rolls
from router.span_export import SpanLink
from router.tracing import Tracing

log = logging.getLogger("smf_router.shadow")

MIRRORED_APIS: tuple[Api, ...] = ("chat", "messages", "responses")


class Shadow(Replayer):
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
        heard: Heard = unheard,
    ) -> None:
        self._config = live.source(config)
        self._backends = live.source(backends)
        self.heard = heard  # in a router, `router.backend_waits.heard_by`
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
        self._freed = asyncio.Event()  # a replay ended, or a reload: a slot may be free

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
        size = job_size(body, live)
        job = Job(record, body, live, decision.target, api, link, size, live_cut)
        if not self.queue.admit(job, self.settings.queue_size, self.settings.queue_bytes):
            self._drop("queue_full")

    async def run(self) -> None:
        """Replay queued jobs, at most `max_concurrency` at once; the limit is read for each
        job, and again on each reload (`reloaded`), so a raised one starts queued jobs at
        once. A bug while starting one job is logged and the loop goes on: raised, it ended
        shadowing for good, with no word."""
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

    def reloaded(self) -> None:
        """After a reload's swap: the loop looks at `max_concurrency` again. Waiting only for
        a replay to end, a raised limit left queued jobs waiting behind a slow one (found in
        review); a limit that did not change just sends the loop back to wait."""
        self._freed.set()

    def close(self) -> None:
        """Jobs still queued at shutdown are dropped, and counted (replays in flight count
        as they are cancelled)."""
        for _ in self.queue.drain():
            self._drop("shutdown")

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
        heard=heard_by(components),  # a replay's 429 starts live traffic's wait too
    )
    components.gateway.call_sinks.append(shadow)
    # the running config's switch: a reload may turn it on (or off)
    components.runs_code[sandbox_layers.SHADOW] = lambda: components.config.shadow.run_request_tests
    components.background.append(shadow.run)
    components.closers.append(shadow.close)
    components.reload_hooks.append(lambda _: shadow.reloaded)  # applied in the swap
    components.status_sections["shadow"] = shadow.status
