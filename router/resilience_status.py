"""What `/v1/router/status` shows of resilience (`status`), and of each backend's state: its
circuit, the waits its 429 and 503 asked for, its load (the router's own count and vLLM's
polled gauges), its context window and served model; and the waits as
`smf_router_backend_rate_limited_seconds` and `smf_router_backend_overloaded_seconds` read
them at each scrape."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, get_args

from router.backend_state import Wait
from router.config import Backend as BackendSettings

if TYPE_CHECKING:
    from router.resilience import Resilience


def asked_waits(res: Resilience) -> dict[Wait, dict[tuple[str, str], float]]:
    """By what asked it (a 429, an overloaded 503), (backend, tier) -> seconds left of the
    wait, 0 when none runs, for each configured backend. Read when scraped: the seconds run
    down with no event to set them, and `backend_up` and the circuit say nothing of a wait
    (its circuit stays closed)."""
    backends = res.components.config.backends
    return {
        kind: {(b.name, b.tier): res.health.limited_for(b.name, kind) or 0.0 for b in backends}
        for kind in get_args(Wait)
    }


def status(res: Resilience) -> dict[str, Any]:
    """The `resilience` section of `/v1/router/status`."""
    return {
        "backends": {b.name: backend_status(res, b) for b in res.components.config.backends},
        "sticky_conversations": len(res.table),
        "probes_sent": res.probes_sent,
    }


def backend_status(res: Resilience, settings: BackendSettings) -> dict[str, Any]:
    name, now = settings.name, res.clock()
    breaker, load = res.health.breaker(name), res.capacity.load(name)
    polled, limited = load.polled, breaker.limited_for(now)
    overloaded = breaker.limited_for(now, "overloaded")
    return {
        "circuit": breaker.state(now),
        "consecutive_failures": breaker.failures,
        "next_trial_in_s": round(max(0.0, breaker.retry_at - now), 2)
        if breaker.circuit != "closed"
        else None,
        # what is left of the wait a 429 asked for: routing passes the backend by till then
        "rate_limited_for_s": None if limited is None else round(limited, 2),
        "overloaded_for_s": None if overloaded is None else round(overloaded, 2),  # a 503's
        "inflight": load.inflight,
        "replays_inflight": load.replays,
        "max_concurrency": settings.max_concurrency,
        "saturated": res.saturation(settings),
        "running": polled.running if polled else None,
        "waiting": polled.waiting if polled else None,
        "kv_cache_usage": polled.kv_cache_usage if polled else None,
        "mean_service_s": round(load.service_s, 3) if load.service_s else None,
        "context_window": settings.context_window or load.context_window,
        "model_warning": res.served_models.found.get(name),
    }
