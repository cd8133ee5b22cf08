"""The long-lived parts of a running router, built from the config and started together."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastapi import APIRouter
from prometheus_client import CollectorRegistry

from classifier.decision import load_model
from router import backends as backend_factory
from router import (
    canary_feature,
    canary_follow,
    maintenance,
    metric_zeros,
    own_load,
    reload,
    resilience,
    shadow,
)
from router.auth import Authenticator
from router.backends.base import Backend
from router.backends.litellm import stop_logging_worker
from router.config import Config
from router.dispatch import AttemptObserver, Dispatcher
from router.gateway import Gateway
from router.gateway_ports import Sink
from router.ledger import LedgerWriter, location
from router.ledger.conversation_key import conversation_secret
from router.logs import RequestLog
from router.metrics import Metrics
from router.pricing import Pricer
from router.record import Record
from router.tracing import Tracing

log = logging.getLogger("smf_router")

# How long `/readyz` waits for what features hold it for past `start` (`Components.holding`):
# the canary's recall of its gates took ~11 s over 30 days of a CronJob's uncompacted
# rounds with a gate that never fills, ~1.5 s compacted, and a real `serve` under load was
# ready 12.6-12.9 s after `/healthz`, so this is about twice the worst seen. A ledger that
# stalls (a hung network volume) should not keep a replica out of service for good: past
# this it is ready anyway, with a warning, its gates open until the recall ends, as every
# start's were before it held readiness. Well within Docker's HEALTHCHECK grace (20 s, then
# 3 x 15 s) and a Deployment's progress deadline; Kubernetes' other probes ask `/healthz`.
READY_WAIT_S = 30.0


@dataclass
class Components:
    config: Config
    backends: dict[str, Backend]
    gateway: Gateway
    auth: Authenticator
    metrics: Metrics
    tracing: Tracing
    ledger: LedgerWriter | None = None
    pricer: Pricer | None = None
    # Jobs run as tasks nothing awaits: each loop catches and logs a failed round itself and
    # goes on, or one exception would end it for good with no word.
    background: list[Callable[[], Coroutine[Any, Any, None]]] = field(default_factory=list)
    closers: list[Callable[[], Awaitable[None] | None]] = field(default_factory=list)
    # Told when a shutdown starts, as the requests' drain begins (`serve`): a job slow to
    # stop (the canary's run) starts stopping beside the drain, not after it; `stop` still
    # awaits its end before the ledger closes.
    shutdown_hooks: list[Callable[[], None]] = field(default_factory=list)
    # What `/readyz` still waits for past `start`, each a reason it says (`holding`).
    unready: set[str] = field(default_factory=set)
    status_sections: dict[str, Callable[[], Any]] = field(default_factory=dict)
    extra_endpoints: list[APIRouter] = field(default_factory=list)
    # Features whose settings follow a hot reload: each checks the new config before the
    # swap (raising rejects the reload) and returns what applies it in the swap.
    reload_hooks: list[Callable[[Config], Callable[[], None]]] = field(default_factory=list)
    # Told of each call the router makes on its own (shadow replays, their judge, canary
    # cases): capacity counts them.
    replay_observers: list[own_load.ReplayObserver] = field(default_factory=list)
    # Features that may run model-written code in the sandbox, each with whether the running
    # config has it run code: `serve` at start, and each reload, say which of the sandbox's
    # layers hold for those that do (`router.sandbox_layers`).
    runs_code: dict[str, Callable[[], bool]] = field(default_factory=dict)
    # Where it serves (`host:port`), set by `serve` before the start: names this router
    # among others on its host and ledger (its canary run starts, `router.canary_starts`).
    listen: str = ""
    _tasks: list[asyncio.Task[None]] = field(default_factory=list)

    async def start(self) -> None:
        if self.ledger is not None:
            self.ledger.start()
        for backend in self.backends.values():
            await asyncio.to_thread(backend.warm)
        if self.pricer is not None:
            # Price lookups may read litellm's map: warm them off the request path.
            await asyncio.to_thread(_warm_prices, self.pricer, self.config)
        for job in self.background:
            self._tasks.append(asyncio.create_task(job()))
        if self.unready:
            self._tasks.append(asyncio.create_task(self._ready_anyway()))

    def holding(self, reason: str) -> Callable[[], None]:
        """Hold `/readyz` at 503 past `start`, saying `reason`, until the returned callable is
        called (on the loop), or `READY_WAIT_S` passed. For a start's work done by a
        background job that routing depends on: the canary's recall of its gates, without
        which a restarted router took traffic, its gates all open, for up to 11 s (found in
        re-review). Requests that come meanwhile are served, not held."""
        self.unready.add(reason)
        return lambda: self.unready.discard(reason)

    async def _ready_anyway(self) -> None:
        await asyncio.sleep(READY_WAIT_S)
        if self.unready:
            log.warning(
                "ready after %g s though still %s: it goes on meanwhile",
                READY_WAIT_S,
                ", ".join(sorted(self.unready)),
            )
            self.unready.clear()

    def shutting_down(self) -> None:
        """The shutdown has begun (on the loop): each `shutdown_hooks` entry is told; one
        that fails is logged, and the shutdown goes on."""
        for hook in self.shutdown_hooks:
            try:
                hook()
            except Exception:
                log.exception("a shutdown hook failed")

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for close in self.closers:
            result = close()
            if result is not None:
                await result
        for backend in self.backends.values():
            await backend.aclose()
        await stop_logging_worker()
        if self.ledger is not None:
            await asyncio.to_thread(self.ledger.close)
        self.tracing.shutdown()


def _warm_prices(pricer: Pricer, config: Config) -> None:
    """Fill the rate cache; an unpriced backend is warned of with the config's warnings
    (`router.config_warnings`), which `serve` and a reload print."""
    for backend in config.backends:
        if backend.tier == "cloud":
            with contextlib.suppress(KeyError):
                pricer.rates(backend)


class LedgerSink:
    """Adapts the ledger writer to the sink interface; the writer never blocks."""

    def __init__(self, writer: LedgerWriter) -> None:
        self._writer = writer

    def record_finished(self, record: Record) -> None:
        self._writer.submit(record)


def build(config: Config, registry: CollectorRegistry | None = None) -> Components:
    load_model()  # a model that cannot be read stops the start (ModelUnavailable)
    backend_factory.check(config)  # a litellm model no provider serves stops it (ConfigError)
    unwritable = None
    if not config.demo:  # a demo tried from a read-only directory may lose its fake records
        # a ledger.path that never works stops it too, as does a part of it (`records/`);
        # one that may work later (a read-only remount, a full disk) is a warning, and the
        # writer holds the rows until it does, as after a failed write at runtime
        unwritable = location.prepare(config.ledger.path, compacts=config.ledger.housekeeping)
        if unwritable is not None:
            log.warning("%s. The status says ledger.last_write_failed: true until then", unwritable)
    backends = {b.name: backend_factory.create(b) for b in config.backends}
    metrics = Metrics(registry or CollectorRegistry(), demo=config.demo)
    tracing = Tracing.from_env()
    tracing.configure(config)
    ledger = LedgerWriter(
        Path(config.ledger.path),
        flush_interval_s=config.ledger.flush_interval_s,
        store_text=config.ledger.store_text,
    )
    if unwritable is not None:
        ledger.failed_at_start(unwritable)
    metrics.set_ledger_source(ledger)
    metrics.set_span_source(tracing)
    pricer = Pricer(config)
    observers: list[AttemptObserver] = [metrics]
    dispatcher = Dispatcher(backends, observers, tracing)
    sinks: list[Sink] = [LedgerSink(ledger), metrics, RequestLog()]
    secret = conversation_secret(ledger.directory)
    ledger.root.key = secret  # written back if the ledger directory is removed meanwhile
    gateway = Gateway(
        config,
        backends,
        dispatcher,
        sinks=sinks,
        pricing=pricer,
        classify_observer=metrics,
        conversation_secret=secret,
    )
    components = Components(
        config, backends, gateway, Authenticator(config.auth), metrics, tracing, ledger, pricer
    )
    # The ledger's health beside the features' (a full disk): the writer is always built,
    # its path a restart-only setting, so the section is there from start to stop.
    components.status_sections["ledger"] = ledger.status
    metrics.configured = lambda name, tier: (name, tier) in components.config.backend_tiers
    # Not only through resilience's hook: attempts are counted with resilience off too.
    components.reload_hooks.append(lambda _: metrics.forget_idle_inflight)
    metric_zeros.configured(metrics, config)  # each backend's and route's counters, at 0
    components.reload_hooks.append(lambda new: metric_zeros.expecting(metrics, new))
    components.reload_hooks.append(location.reload_check(config.ledger.path))
    for install in FEATURES:
        install(components)
    return components


# Capabilities that plug into a router: each adds sinks, attempt observers, background
# jobs, closers, status sections or endpoints to the components, and owns its module.
FEATURES: list[Callable[[Components], None]] = [
    resilience.install,
    reload.install,
    canary_feature.install,
    canary_follow.install,
    shadow.install,
    maintenance.install,
]
