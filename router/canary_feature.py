"""The router's own canary as one of its FEATURES: the canary built from the config, its runs
scheduled (`router.canary_schedule`) and wired to the router's gates, reloads, status and
shutdown. A router whose canary is off gates on the ledger's rounds (`router.canary_follow`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from router import sandbox_layers
from router.backend_waits import heard_by
from router.canary import Canary, load_cases
from router.canary_counts import not_runnable
from router.canary_follow import hold_ready
from router.canary_gates import ensure_gated
from router.canary_judge import gate_book
from router.canary_schedule import Schedule
from router.config import Config


def install(components: Any) -> None:
    """FEATURES installer: schedule the canary and gate routes when `canary.enabled`."""
    config: Config = components.config
    if not config.canary.enabled:
        return
    gateway = components.gateway
    ledger = Path(config.ledger.path)
    cases = load_cases(config)
    metrics = components.metrics
    metrics.canary_suites_loaded(not_runnable(cases))
    canary = Canary(
        lambda: components.config,
        cases,
        gate_book(config.canary),
        rows=components.ledger,
        metrics=components.metrics,
        states=lambda: components.gateway.state_source.states(),
        adapters=lambda: components.backends,
        observers=components.replay_observers,
        history=ledger,
        tracing=components.tracing,
        pricing=lambda: components.pricer,  # the running config's: a reload swaps it
        heard=heard_by(components),  # a case's 429 starts live traffic's wait too
    )
    # the suites running now: a reload may load others (`Canary.prepare`)
    components.runs_code[sandbox_layers.CANARY] = lambda: sandbox_layers.runs_code(canary.cases)
    recalled = hold_ready(components, canary.judge)
    schedule = Schedule(canary, lambda: components.config, ledger, recalled)
    schedule.listen = lambda: components.listen  # set by `serve` after the install
    ensure_gated(gateway, canary.gated, schedule.reopen_in)

    async def job() -> None:
        # another feature may have replaced the state source
        ensure_gated(gateway, canary.gated, schedule.reopen_in)
        await schedule.run()

    components.background.append(job)
    components.reload_hooks.append(canary.prepare)
    # after `prepare`'s swap of the cases: the suites it loaded
    components.reload_hooks.append(
        lambda _: lambda: metrics.canary_suites_loaded(not_runnable(canary.cases))
    )
    components.reload_hooks.append(lambda _: schedule.reloaded)  # after the swap
    components.closers.append(canary.aclose)
    components.shutdown_hooks.append(schedule.stopping)
    components.status_sections["canary"] = schedule.status
