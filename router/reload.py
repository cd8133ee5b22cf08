"""Hot reload: a new config, validated first, swapped in for new requests only.

SIGHUP or `POST /v1/router/reload` (admin key) re-reads the config file. An invalid file is
rejected with the reason and the running config stays. A valid one builds a new gateway
(config, backends, dispatcher, pricing) and auth, then swaps them in with plain attribute
assignments — no await in between, so each request sees the old set or the new one, never
a mix. In-flight requests hold the old gateway and finish on it; backends whose settings
did not change are kept (warm connection pools); retired ones let go of their idle
connections at once and are closed once their last attempt is over (`router.retirement`).
Features with settings of their own follow through `Components.reload_hooks`: the canary's
suites, gate windows and floors are checked before the swap and applied in it; a hook's
ConfigError (a suite the canary would run does not load) rejects the reload, as it would
stop `serve`; so does a litellm backend's model that names no provider litellm knows.
Ledger and server settings (but the server's `max_body_bytes`, `allowed_origins` and
`allowed_hosts`, read per request), and whether resilience, the canary and the shadow run
at all, are read once at start: a change there is applied to nothing and reported as needing a
restart. The canary and the shadow read the running config and backends on each run or job
(the shadow's queue bounds and concurrency too). A reloaded config that leaves no keys on an
address others reach says NO AUTH, as a start does (`router.open_listener`).
The reply lists the warnings the log gives (`Config.warnings`, NO AUTH, and SANDBOX when a
feature runs model-written code, as a start says: `router.sandbox_layers`): a deploy script
calling the endpoint saw none of them. It and the log line say what changed, by name
(`router.reload_outcome`). The status section keeps the last attempt, from
either source: a SIGHUP (`systemctl reload`) has no one to answer, and a refused file
showed only in the journal. So do two gauges, as Prometheus has for its own config
(`smf_router_config_last_reload_successful`, `..._success_timestamp_seconds`): a refused
file left /metrics and the alert rules silent while the running config and the file the
next restart reads drifted apart. A third, `smf_router_config_restart_needed`, is 1 while
a reload that applied left settings for a restart (`restart_needed`): the other two then
read "applied, just now", though the file and what runs differ until the restart.
A router started without a file (from SMF_* variables, or in demo mode) has none to drift
from: a reload there is refused (a 400, a log line, the status's `last`) and leaves the
gauges as they were; at 0, they fired an alert that no fix of a file could clear, only a
restart that changed nothing. Every attempt, that one too, counts in
`smf_router_config_reloads_total` by outcome: a file refused and fixed a minute later left the
gauges as if nothing had happened.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Request

from router import backends as backend_factory
from router import open_listener, sandbox_layers, shadow
from router.api.headers import request_headers
from router.auth import Authenticator
from router.backends.base import Backend
from router.config import Config, ConfigError, load
from router.dispatch import Dispatcher
from router.errors import BadRequest
from router.gateway import Gateway
from router.pricing import Pricer
from router.reload_outcome import Outcome, describe

if TYPE_CHECKING:
    from router.components import Components

log = logging.getLogger("smf_router.reload")

CLOSE_MARGIN_S = 5.0  # beyond `total_s`: the least a retired backend stays open


class ConfigRejected(BadRequest):
    code = "invalid_config"


@dataclass
class Reloader:
    components: Components
    source: Path | None = None
    reloads: int = 0
    started: Config | None = None  # what restart-only settings still run with
    last: dict[str, Any] | None = None  # the last attempt, from any source (`Outcome.as_last`)
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def reload(self, state: Any | None = None, config: Config | None = None) -> Outcome:
        """Load, validate and swap. `state` is the app's state, whose references move too."""
        async with self._lock:
            no_file = config is None and self.source is None
            outcome = await self._attempt(state, config)
            now = datetime.now(UTC)
            self.last = outcome.as_last(now)
            # from the environment: no file to drift from, the gauges stay (found in
            # re-review); the attempt still counts, refused
            self.components.metrics.config_reloaded(
                outcome.ok, now.timestamp(), bool(outcome.restart_needed), from_file=not no_file
            )
            return outcome

    async def _attempt(self, state: Any | None, config: Config | None) -> Outcome:
        """`reload` under its lock: a refusal is an Outcome too, never an exception."""
        if config is None:
            if self.source is None:
                # Said in the log too: a SIGHUP has no one to answer, and was ignored
                # without a word (found in review).
                why = (
                    "no config file to reload: the router started without --config or "
                    "$SMF_ROUTER_CONFIG, from the environment or in demo mode, which are "
                    "read at start only (restart it to apply a change)"
                )
                log.warning("config reload ignored; keeping the running config: %s", why)
                return Outcome(False, why)
            try:
                config = await asyncio.to_thread(load, self.source)
            except ConfigError as exc:
                log.error("config reload rejected; keeping the running config: %s", exc)
                return Outcome(False, str(exc))
            except Exception as exc:  # a bug of ours: still a rejection, never a 500
                log.exception("config reload rejected; keeping the running config")
                return Outcome(False, f"cannot read the new config ({type(exc).__name__})")
        try:
            pricing = None
            if self.components.gateway.pricing is not None:
                pricing = await asyncio.to_thread(_warm_pricer, config)
            await asyncio.to_thread(backend_factory.check, config)
            hooks = self.components.reload_hooks
            appliers = await asyncio.to_thread(lambda: [hook(config) for hook in hooks])
            backends = self._adapters(config)
            await asyncio.to_thread(_warm, backends, self.components.backends)
            outcome = self._swap(config, backends, state, pricing, appliers)
        except ConfigError as exc:  # a feature's part of the config (a suite) is wrong
            log.error("config reload rejected; keeping the running config: %s", exc)
            return Outcome(False, str(exc))
        except Exception as exc:  # e.g. a backend adapter that cannot be built
            log.exception("config reload failed; keeping the running config")
            return Outcome(False, f"cannot apply the new config: {exc}")
        self.reloads += 1
        # Applied is routine: info, as a start's "listening" line. A warning only when a
        # changed setting waits for a restart (the message says which); the config's own
        # warnings follow as warnings. Every success was a warning (found by a new user).
        level = logging.WARNING if outcome.restart_needed else logging.INFO
        log.log(level, "config reloaded: %s", outcome.message)
        warnings = config.warnings()
        for warning in warnings:
            log.warning("%s", warning)
        # the last key removed: open to all; behind a proxy or not as `serve` started (with
        # no app, as in-process tests reload, no `serve` started: the config says)
        behind_proxy = config.server.proxy_headers if state is None else state.behind_proxy
        warnings += open_listener.warn_after_reload(config, behind_proxy)
        # as `serve` says at start, for what runs code now (the reload may have turned
        # `shadow.run_request_tests` on, or loaded suites with code cases)
        code = sandbox_layers.running(self.components.runs_code)
        warnings += await asyncio.to_thread(sandbox_layers.say, config, code)
        return replace(outcome, warnings=tuple(warnings))

    def _adapters(self, config: Config) -> dict[str, Backend]:
        """The new config's adapters: a running one whose settings did not change is kept
        (its warm pool), the others are built."""
        backends: dict[str, Backend] = {}
        for settings in config.backends:
            current = self.components.backends.get(settings.name)
            keep = current is not None and current.settings == settings
            backends[settings.name] = (
                current if keep and current else backend_factory.create(settings)
            )
        return backends

    def _swap(
        self,
        config: Config,
        backends: dict[str, Backend],
        state: Any | None,
        pricing: Pricer | None,
        appliers: list[Callable[[], None]],
    ) -> Outcome:
        parts, old = self.components, self.components.gateway
        retired = [b for n, b in parts.backends.items() if backends.get(n) is not b]
        dispatcher = Dispatcher(
            backends,
            old.dispatcher.observers,
            old.dispatcher.tracing,
            old.dispatcher.judges,
            old.dispatcher.retirement,
            old.dispatcher.life,
            old.dispatcher.waits,
        )
        gateway = Gateway(
            config,
            backends,
            dispatcher,
            states=old.state_source,
            pricing=pricing,
            tracing=old.tracing,
            classify_observer=old.classify_observer,
            conversation_secret=old.conversation_secret,  # the ledger stays where it was
        )
        gateway.sinks = old.sinks  # the same list: features that add sinks later still count
        gateway.call_sinks = old.call_sinks  # shadowing keeps running across reloads
        gateway.stored = old.stored  # where the stored Responses replies live
        auth = Authenticator(config.auth)
        shadowing = any(isinstance(sink, shadow.Shadow) for sink in old.call_sinks)
        if self.started is None:
            self.started = parts.config
        outcome = describe(self.started, parts.config, config, parts.backends, backends, shadowing)
        # The swap itself: no await from here to the end.
        parts.config, parts.backends, parts.gateway, parts.auth = config, backends, gateway, auth
        if pricing is not None:
            parts.pricer = pricing
        gateway.tracing.configure(config)
        if state is not None:
            state.gateway, state.auth = gateway, auth
        gateway.stored.resize(config.resilience.sticky_max_entries)
        for apply in appliers:
            apply()
        cap = _longest_request_s(old)
        for backend in retired:
            grace = backend.settings.timeouts.total_s + CLOSE_MARGIN_S
            dispatcher.retirement.retire(backend, grace, cap)
        dispatcher.retirement.moved(backends)  # as resilience's hook forgets (`reloaded`)
        return outcome

    async def close(self) -> None:
        """At shutdown: close what is still waiting to be retired, now."""
        await self.components.gateway.dispatcher.retirement.close()
        _RELOADERS.pop(id(self.components), None)

    def status(self) -> dict[str, Any]:
        return {
            "source": str(self.source) if self.source else None,
            "reloads": self.reloads,
            "retiring_backends": len(self.components.gateway.dispatcher.retirement),
            "last": self.last,
        }


def _longest_request_s(gateway: Gateway) -> float:
    """How long a request holding `gateway` may still be trying backends: each of them
    once, plus one retry after a short Retry-After, each attempt up to its `total_s`."""
    return CLOSE_MARGIN_S + sum(
        2 * b.settings.timeouts.total_s + b.settings.retry_after_max_s
        for b in gateway.backends.values()
    )


def _warm(backends: dict[str, Backend], running: dict[str, Backend]) -> None:
    """Warm the adapters a reload built, as a start does, before any request reaches them:
    a litellm adapter learns there whether its provider drops `n`, and a new Anthropic
    backend answered the first `n: 2` with one choice (found in review). In a thread."""
    for name, backend in backends.items():
        if running.get(name) is not backend:
            backend.warm()


def _warm_pricer(config: Config) -> Pricer:
    """A pricer whose cloud rates are already looked up (off the event loop). One that has
    none is said among the reload's warnings (`Config.warnings`), as at start; its own line
    here said its cost "counts as 0", which it no longer does (stored as unknown)."""
    pricer = Pricer(config)
    for backend in config.backends:
        if backend.tier == "cloud":
            with contextlib.suppress(KeyError):
                pricer.rates(backend)
    return pricer


# One reloader per running components (a process may build several in tests); the entry
# goes when the components stop.
_RELOADERS: dict[int, Reloader] = {}


def reloader_of(components: Components) -> Reloader:
    found = _RELOADERS.get(id(components))
    if found is None:
        env = os.environ.get("SMF_ROUTER_CONFIG")
        found = _RELOADERS[id(components)] = Reloader(components, Path(env) if env else None)
    return found


def install(components: Components) -> None:
    """The admin endpoint, the status section and the shutdown closer."""
    reloader = reloader_of(components)
    endpoints = APIRouter()

    @endpoints.post("/v1/router/reload")
    async def reload_config(request: Request) -> dict[str, Any]:
        request.app.state.auth.admin(request_headers(request.scope))
        outcome = await reloader.reload(request.app.state)
        if not outcome.ok:
            raise ConfigRejected(f"config rejected, the running one stays: {outcome.message}")
        return outcome.as_dict()

    components.extra_endpoints.append(endpoints)
    components.status_sections["reload"] = reloader.status
    components.closers.append(reloader.close)
