"""Resilience: health, capacity and stickiness joined into the `States` the policy reads.

`Resilience` is the gateway's state source, a record sink (service times and sticky
conversations) and, with its `Health`, an attempt judge: both are told only of attempts on
the server each backend's name points at now, for circuit breaking and for in-flight
counts (its `Capacity` also counts the router's own calls, which take the same slots).
Its one background job probes backends and polls vLLM's `/metrics`; a bug in one round of
either is logged and the next round runs, as in every background loop of the router. It
always reads the config and backends from the components, so a hot reload needs nothing
from it.

`smf_router_backend_up` follows the outage, not the circuit alone (`_up`): a probe's pass
closes a circuit but ends no outage (`Health.succeeded`), and a backend whose `/health`
passed while every completion failed read 1 for a moment of every cycle, resetting the
`for: 2m` of its alert (found in review).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, TypeVar

import httpx

from evals.endpoint import window_of
from router import resilience_reload
from router.backend_state import BackendState, Circuit
from router.bug_log import BugLog
from router.capacity import Capacity, metrics_url, poll_metrics, read_models
from router.config import Backend as BackendSettings
from router.config import Config
from router.config_sections import ResilienceSettings
from router.gateway_ports import States
from router.health import FAILURE_KINDS, BreakerPolicy, Health
from router.policy import soonest
from router.probe import can_probe, probe
from router.record import Record
from router.resilience_status import asked_waits, status
from router.served_model import ServedModels
from router.server_identity import same_server
from router.sticky import StickyTable
from router.sticky_pins import pins

if TYPE_CHECKING:
    from router.components import Components

log = logging.getLogger("smf_router.resilience")

TICK_S = 0.25  # how often the probe loop looks for due probes and trials
STICKY_SWEEP_S = 60.0
READ_AT_START = ("enabled",)  # `resilience.*` read once: a hot reload leaves them as they were

GateSource = Callable[[], Mapping[str, frozenset[str]]]  # backend -> gated intents
GateReview = Callable[[str], float | None]  # backend -> seconds until a round may reopen it
T = TypeVar("T")


class Resilience:
    def __init__(
        self,
        components: Components,
        inner: States | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.components = components
        self.inner = inner
        self.clock = clock
        self.gate_sources: list[GateSource] = []
        self.gate_reviews: list[GateReview] = []
        self.health = Health(self._policy, clock, [self._circuit_changed])
        self.capacity = Capacity(clock, self._configured)
        rs = self.settings
        self.table = StickyTable(rs.sticky_ttl_s, rs.sticky_max_entries, clock)
        self._next_probe: dict[str, float] = {}
        self._health_path_known: dict[str, bool] = {}
        self._windows_due: dict[str, float] = {}  # backend -> when to read `/v1/models` again
        self._polling: set[str] = set()  # backends whose capacity poll still runs
        self._sweep_due = 0.0
        self.served_models = ServedModels()  # whether each serves its model: `/v1/models`
        self.probes_sent = 0
        # A bug in one backend's poll (a `/metrics` format the parser trips on) is logged, as
        # a failed round is: suppressed, it went unseen for good. Once per backend and kind:
        # the poll runs every `capacity_poll_s`, and the same failure each time is no news.
        self._poll_bugs = BugLog(log, "polling the capacity of %s failed; its polls go on")

    @property
    def settings(self) -> ResilienceSettings:
        return self.components.config.resilience

    def _policy(self) -> BreakerPolicy:
        rs = self.settings
        return BreakerPolicy(rs.failure_threshold, rs.open_s, rs.max_open_s)

    def saturation(self, settings: BackendSettings) -> str | None:
        rs = self.settings
        return self.capacity.saturated(settings, rs.max_queue_wait_s, 3 * rs.capacity_poll_s)

    def queued(self, settings: BackendSettings, alive: bool) -> bool:
        """Whether a live attempt on the backend may wait in its queue (`Capacity.queued`)."""
        return self.capacity.queued(settings, 3 * self.settings.capacity_poll_s, alive)

    def generating(self, settings: BackendSettings) -> bool:
        """Whether the backend reports requests running (`Capacity.generating`)."""
        return self.capacity.generating(settings, 3 * self.settings.capacity_poll_s)

    def states(self) -> Mapping[str, BackendState]:
        """With when a skipped backend may serve again: its open circuit's next trial, the
        ends of the waits its 429 or 503 asked for, and for a gated one the end of its next
        canary round (the 503 of a request none can serve says it)."""
        inner = self.inner.states() if self.inner is not None else {}
        gates = self._gates(inner)
        out: dict[str, BackendState] = {}
        for backend in self.components.config.backends:
            name = backend.name
            circuit = self.health.circuit(name)
            gated = gates.get(name, frozenset())
            below = inner.get(name, BackendState())
            out[name] = BackendState(
                circuit=circuit,
                saturated=self.saturation(backend) is not None,
                context_window=self.capacity.load(name).context_window,
                gated_intents=gated,
                circuit_retry_in_s=None if circuit == "closed" else self.health.trial_in(name),
                gate_retry_in_s=self._reopen_in(name, below) if gated else None,
                rate_limited_for_s=self.health.limited_for(name),
                overloaded_for_s=self.health.limited_for(name, "overloaded"),
                # a half-open circuit's trial alone is left to another request than the
                # retry of one it failed (`router.failed_requests`); closed, it takes any
                failed_requests=(
                    self.health.failed_requests.of(name) if circuit == "half_open" else frozenset()
                ),
            )
        return out

    def sticky(self, conversation: str) -> str | None:
        """The conversation's backend, failing or full or not: the policy puts it first only
        while it is well, and reads it as the preferred one whatever its state (a turn served
        elsewhere meanwhile is a detour, not a new home)."""
        name = self.table.get(conversation)
        if name is None:
            return self.inner.sticky(conversation) if self.inner else None
        return name if self._configured(name) else None

    def _reopen_in(self, name: str, below: BackendState) -> float | None:
        """When a canary round may reopen `name`'s gates: the soonest any source knows."""
        return soonest((*(review(name) for review in self.gate_reviews), below.gate_retry_in_s))

    def _gates(self, inner: Mapping[str, BackendState]) -> dict[str, frozenset[str]]:
        gates: dict[str, frozenset[str]] = {}
        for name, state in inner.items():
            if state.gated_intents:
                gates[name] = state.gated_intents
        for source in self.gate_sources:
            for name, intents in source().items():
                gates[name] = gates.get(name, frozenset()) | intents
        return gates

    def attempt_started(self, backend: str, tier: str) -> None:
        self.capacity.attempt_started(backend, tier)

    def attempt_finished(
        self, backend: str, tier: str, outcome: str, error_kind: str | None
    ) -> None:
        self.capacity.attempt_finished(backend, tier, outcome, error_kind)
        self.show_state(backend)  # judged after `Health` (`install`): a success ends an outage

    def record_finished(self, record: Record) -> None:
        for attempt in record.attempts:
            if attempt.outcome == "ok" and attempt.duration_s > 0:
                self.capacity.served(attempt.backend, attempt.duration_s)
        self.health.failed_requests.remember(record, FAILURE_KINDS, self._configured)
        if record.outcome != "ok" or not record.backend or not record.conversation:
            return
        if not record.auto_routed or not self._configured(record.backend):
            return  # forced by name: the caller's choice, which neither makes nor keeps a pin
        self.table.ttl_s = self.settings.sticky_ttl_s
        if record.detour:
            # A conversation the local backend's passing trouble sent to the cloud comes back
            # once it is well: its pin stays, and lives while the conversation does (a
            # 30-minute outage of detours let the pin expire, and the turn after it was
            # routed afresh). A side request's detour too, as one on the pinned backend
            # restarts it (`pins`): it shows the conversation going and moves nothing.
            self.table.kept_again(record.conversation)
        elif pins(record, self.table):
            self.table.remember(record.conversation, record.backend)

    def _circuit_changed(self, backend: str, before: Circuit, after: Circuit) -> None:
        """Its conversations stay pinned to it: the policy puts a pin first only while it is
        well, and a turn served elsewhere meanwhile is a detour, which pins nothing and keeps
        the pin's TTL going (`record_finished`). Dropped here, one turn of a cloud-first
        intent during a 10 s outage pinned the session to the cloud, every later turn with
        it, for the sliding TTL (found in review)."""
        if after == "closed":
            self._windows_due.pop(backend, None)  # back from an outage: maybe a new model
        self.show_state(backend)

    def show_state(self, backend: str) -> None:
        """Publish `backend`'s circuit and whether it is up (`_up`)."""
        try:
            tier = self.components.config.backend(backend).tier
        except KeyError:
            return
        circuit = self.health.breaker(backend).circuit
        self.components.metrics.backend_state(backend, tier, self._up(backend, circuit), circuit)

    def _up(self, backend: str, circuit: Circuit) -> bool:
        """Up: its circuit closed (a half-open trial proves nothing yet: counted as up, a
        hanging backend's gauge alternated 0/1) and its outage over (`Health.outage_over`:
        a probe's pass closes the circuit but need not end the outage)."""
        return circuit == "closed" and self.health.outage_over(backend)

    async def run(self) -> None:
        """The background job: probes and trials, capacity polls, window refreshes."""
        for b in self.components.config.backends:
            self.components.metrics.backend_state(b.name, b.tier, True, "closed")
        self._sync_live_trials()
        # Not the environment's HTTP_PROXY: live traffic goes direct, so must its probes, or a
        # proxy meant for the internet would open every circuit of a healthy LAN backend.
        async with httpx.AsyncClient(trust_env=False) as client:
            await asyncio.gather(self._probe_loop(client), self._capacity_loop(client))

    def _sync_live_trials(self) -> None:
        self.health.live_trials = {
            b.name for b in self.components.config.backends if not can_probe(b)
        }

    async def _probe_loop(self, client: httpx.AsyncClient) -> None:
        while True:
            try:  # a bug in one round is logged, and probing goes on: an open circuit that
                # no probe tries again stays open for good, silently
                self._sync_live_trials()
                due = [b for b in self.components.config.backends if self._probe_due(b)]
                if due:
                    await asyncio.gather(*(self._probe_one(client, b) for b in due))
                for backend in self.components.config.backends:
                    self.show_state(backend.name)  # an outage a probe's age ended (`_up`)
            except Exception:
                log.exception("probing backends failed; trying again")
            await asyncio.sleep(min(TICK_S, self.settings.probe_interval_s))

    def _probe_due(self, settings: BackendSettings) -> bool:
        if not can_probe(settings):
            return False
        state = self.health.breaker(settings.name).state(self.clock())
        if state == "half_open":  # unless only a live request can tell (a refused key, a hang)
            return not self.health.takes_live_trial(settings.name)
        return state == "closed" and self.clock() >= self._next_probe.get(settings.name, 0.0)

    async def _probe_one(self, client: httpx.AsyncClient, settings: BackendSettings) -> None:
        name = settings.name
        if not self._current(settings):
            return  # a reload since the loop chose it: its state is gone, and stays gone
        trial = self.health.breaker(name).state(self.clock()) == "half_open"
        if trial and not self.health.claim_probe_trial(name):
            return  # a live request holds the trial
        self._next_probe[name] = self.clock() + self.settings.probe_interval_s
        use_health = self._health_path_known.get(name, True)
        self.probes_sent += 1
        try:
            up, known = await probe(client, settings, use_health, self.settings.probe_timeout_s)
        except Exception:  # one odd backend must not end probing for all (the trial too)
            log.exception("probe of %s failed unexpectedly", name)
            up, known = False, use_health
        if not self._current(settings):
            return  # a reload during the probe: the answer is about a server that left
        self._health_path_known[name] = known
        if up and trial:
            self.health.succeeded(name, live=False)
        elif not up:
            self.health.failed(name, "probe failed", live=False)

    async def _capacity_loop(self, client: httpx.AsyncClient) -> None:
        """Every `capacity_poll_s`, a poll of each backend whose last one has ended, each on
        its own: polled one after another, two `/metrics` that hang (each to its
        `probe_timeout_s`) made a round ~5 s, past the 3 s a reading stays fresh, and a queued
        third backend read saturated only now and then (found in review). Nor does a round
        wait for the slowest poll, which would age the others' readings by its timeout."""
        async with asyncio.TaskGroup() as polls:  # cancelled with the loop
            while True:
                try:  # as probing: a bug in one round is logged, and the polls go on
                    self._capacity_round(client, polls)
                except Exception:
                    log.exception("polling backend capacity failed; trying again")
                await asyncio.sleep(self.settings.capacity_poll_s)

    def _capacity_round(self, client: httpx.AsyncClient, polls: asyncio.TaskGroup) -> None:
        for settings in self.components.config.backends:
            name = settings.name
            if self.health.breaker(name).state(self.clock()) != "closed":
                self.components.metrics.forget_capacity(name)
                continue
            if name in self._polling:
                continue  # its last poll still waits on a slow server
            refresh_windows = self.clock() >= self._windows_due.get(name, 0.0)
            if refresh_windows:
                self._windows_due[name] = self.clock() + self.settings.models_refresh_s
            self._polling.add(name)
            polls.create_task(self._poll_guarded(client, settings, refresh_windows))
        if self.clock() >= self._sweep_due:
            self._sweep_due = self.clock() + STICKY_SWEEP_S
            self.table.expire()

    async def _poll_guarded(
        self, client: httpx.AsyncClient, settings: BackendSettings, refresh_windows: bool
    ) -> None:
        try:  # one backend's poll must not stop the others
            await self._poll_one(client, settings, refresh_windows)
        except Exception as exc:
            self._poll_bugs.failed(settings.name, exc)
        finally:
            self._polling.discard(settings.name)

    async def _within(self, fetch: Awaitable[T]) -> T | None:
        """`fetch`'s answer, or None once `probe_timeout_s` has passed in all: httpx's
        timeout bounds each read, not the answer, which a server sending a byte now and then
        could hold back for good."""
        try:
            async with asyncio.timeout(self.settings.probe_timeout_s):
                return await fetch
        except TimeoutError:
            return None

    async def _poll_one(
        self, client: httpx.AsyncClient, settings: BackendSettings, refresh_windows: bool
    ) -> None:
        timeout = self.settings.probe_timeout_s
        if metrics_url(settings):
            reading = await self._within(poll_metrics(client, settings, timeout))
            if not self._current(settings):
                return  # nor will a window read after this answer be
            metrics = self.components.metrics
            if reading is None:
                metrics.forget_capacity(settings.name)
            else:
                self.capacity.polled(settings.name, reading)
                metrics.capacity(
                    settings.name, reading.running, reading.waiting, reading.kv_cache_usage
                )
        if refresh_windows and settings.kind == "openai":
            listing = await self._within(read_models(client, settings, timeout))
            if listing is None or not self._current(settings):
                return
            window = window_of(listing.cards, settings.model)
            if window is not None:
                self.capacity.load(settings.name).context_window = window
            self.served_models.check(settings, listing)

    def _configured(self, name: str) -> bool:
        return name in self.components.config.backend_names

    def _current(self, settings: BackendSettings) -> bool:
        """Whether the backend `settings` were read from is still that server: a reload during a
        probe or poll may have removed it or pointed it elsewhere, and its answer must not come
        back. Other changes keep its state (`reloaded`): a probe's claimed trial must end."""
        now = next((b for b in self.components.config.backends if b.name == settings.name), None)
        return now is not None and same_server(settings, now)

    def reloaded(self, config: Config) -> Callable[[], None]:
        """A reload hook: what it keeps and forgets (`router.resilience_reload`)."""
        return resilience_reload.reloaded(self, config)

    def forget_probing(self, name: str) -> None:
        """A backend a reload changed: its probe timing starts anew (a new health path)."""
        self._next_probe.pop(name, None)
        self._health_path_known.pop(name, None)

    def forget_windows(self) -> None:
        """After a reload: every window is read again at the next poll."""
        self._windows_due.clear()


def install(components: Components) -> None:
    """Make resilience the gateway's state source; wraps whatever source was there."""
    if not components.config.resilience.enabled:
        return
    resilience = Resilience(components, inner=components.gateway.state_source)
    components.gateway.state_source = resilience
    components.gateway.dispatcher.judges.append(resilience.health)
    # A judge: an attempt on a backend a reload replaced is the old server's load, and its
    # end must not lower the count of the backend that bears the name now. After `Health`:
    # the end of an attempt it judged may end an outage (`show_state`).
    components.gateway.dispatcher.judges.append(resilience)
    components.gateway.dispatcher.waits.append(resilience.health.asked_to_wait)
    components.metrics.set_wait_source(lambda: asked_waits(resilience))
    components.replay_observers.append(resilience.capacity)  # the router's own calls fill slots
    # A backend that queues is busy, not silent: its queued streams' hang-ups are no failure.
    components.gateway.dispatcher.life.queues.append(resilience.queued)
    # And one whose engine runs requests is at work: a whole reply's silence proves nothing.
    components.gateway.dispatcher.life.generating.append(resilience.generating)
    components.gateway.sinks.append(resilience)
    components.background.append(resilience.run)
    components.status_sections["resilience"] = lambda: status(resilience)
    components.reload_hooks.append(resilience.reloaded)
