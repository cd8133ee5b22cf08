"""Pricing: what a request cost, and what the route's cloud backend would have charged.

The arithmetic is pure (`Rates`, `token_cost`, `local_cost_parts`, `price_record`). The one
adapter is the rate lookup in litellm's bundled price map, read as JSON (`router.price_map`)
without importing litellm, and cached per model, so pricing a request on the event loop
costs a few microseconds after the first lookup.
"""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version

from router import price_map
from router.config import Backend, Config, LocalCost
from router.record import CREDITED_OUTCOMES, Record, Usage

log = logging.getLogger("smf_router.pricing")

MONTH_S = 365.25 / 12 * 86400  # an average month, in seconds
MTOK = 1_000_000


@dataclass(frozen=True, slots=True)
class Rates:
    """Dollars per token; `cached_input` is the price of a prompt token read from cache,
    `cache_write_input` of one written to it (Anthropic: 1.25x input)."""

    input: float
    output: float
    cached_input: float | None = None
    cache_write_input: float | None = None


@dataclass(frozen=True, slots=True)
class LocalCostParts:
    """A local request's cost, split so reports can tell amortisation from running cost."""

    amortization: float
    fixed: float
    energy: float

    @property
    def total(self) -> float:
        return self.amortization + self.fixed + self.energy


def token_cost(usage: Usage, rates: Rates) -> float:
    """Price normalised usage: prompt tokens include those read from and written to a cache,
    each billed at its own rate when the map has one (else at the input rate)."""
    cached = min(usage.cached_tokens, usage.prompt_tokens) if rates.cached_input is not None else 0
    written = 0
    if rates.cache_write_input is not None:
        written = min(usage.cache_write_tokens, usage.prompt_tokens - cached)
    fresh = usage.prompt_tokens - cached - written
    cache_cost = cached * (rates.cached_input or 0.0) + written * (rates.cache_write_input or 0.0)
    return fresh * rates.input + cache_cost + usage.completion_tokens * rates.output


def local_cost_parts(duration_s: float, cost: LocalCost) -> LocalCostParts:
    """Duration share of monthly hardware amortisation and fixed cost, plus energy.

    A request that ran for `duration_s` is charged that share of a month, without dividing
    by concurrency: an upper bound on what the request really cost the box.
    """
    duration_s = max(0.0, duration_s)
    share = duration_s / MONTH_S
    amortization = share * cost.hardware_usd / cost.amortization_months
    energy = cost.power_watts * duration_s / 3600 / 1000 * cost.electricity_usd_per_kwh
    return LocalCostParts(amortization, share * cost.monthly_fixed_usd, energy)


def served_duration(record: Record) -> float:
    """Time spent on the backend that served: its attempt's duration, else the request's.
    (The report's break-even adds back amortisation over the same seconds:
    `router.ledger.rollups.SERVED_SECONDS` is this in SQL.)"""
    for attempt in reversed(record.attempts):
        if attempt.backend == record.backend and attempt.outcome == "ok":
            return attempt.duration_s or record.duration_s
    return record.duration_s


def price_map_version() -> str:
    """The price map used: litellm's bundled map is versioned by the litellm release."""
    try:
        return f"litellm-{version('litellm')}"
    except PackageNotFoundError:
        return "config-only"


@functools.lru_cache(maxsize=512)
def litellm_rates(model: str) -> Rates:
    """Rates for a model from litellm's bundled map, read as data (offline, no import).

    Raises KeyError if the model is not in the map.
    """
    info = price_map.entry(model)
    if not info or "input_cost_per_token" not in info:
        raise KeyError(f"no price for model {model!r} in litellm's bundled map")
    prompt = float(info.get("input_cost_per_token") or 0.0)
    completion = float(info.get("output_cost_per_token") or 0.0)
    cached = info.get("cache_read_input_token_cost")
    written = info.get("cache_creation_input_token_cost")
    return Rates(
        prompt,
        completion,
        float(cached) if cached is not None else None,
        float(written) if written is not None else None,
    )


class Pricer:
    """Prices records for one config. `price(record) -> (cost_usd, counterfactual_usd)`.

    A cloud price the router does not know (no `price` in the config, a model litellm's
    map lacks) is None, stored as NULL: priced 0 it read as $0 of spend, and a route whose
    counterfactual backend was unpriced as negative offload, without a word. The report
    leaves NULLs out of its sums and counts the requests as `unpriced_requests`."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.version = price_map_version()
        self.unpriced: set[str] = set()

    def rates(self, backend: Backend) -> Rates:
        """A backend's config price override, else litellm's map for its model."""
        if backend.price is not None:
            p = backend.price
            cached, written = p.cached_input_per_mtok, p.cache_write_input_per_mtok
            return Rates(
                p.input_per_mtok / MTOK,
                p.output_per_mtok / MTOK,
                cached / MTOK if cached is not None else None,
                written / MTOK if written is not None else None,
            )
        return litellm_rates(backend.model)

    def price(self, record: Record) -> tuple[float | None, float | None]:
        """(cost_usd, counterfactual_usd), None where a cloud price is unknown. Failed
        attempts are never billed. A local request that did not deliver its answer (its
        outcome not in `CREDITED_OUTCOMES`: it failed after the commit) keeps its cost and
        displaced nothing: counterfactual 0. It was the cloud price of what the client got
        an error for (an agent's failed 100k-token prompt, ~$0.30 at Sonnet's rates, read
        as saved while its retry, often on the cloud, was paid for as well)."""
        if record.backend is None:
            return 0.0, 0.0
        try:
            served = self.config.backend(record.backend)
        except KeyError:
            return 0.0, 0.0
        if served.tier == "cloud":
            cost = self._cloud_cost(served, record.usage)
            return cost, cost
        local = served.local_cost
        cost = local_cost_parts(served_duration(record), local).total if local else 0.0
        if record.outcome not in CREDITED_OUTCOMES:
            return cost, 0.0
        other = counterfactual_backend(self.config, record.route)
        return cost, self._cloud_cost(other, record.usage) if other else 0.0

    def _cloud_cost(self, backend: Backend, usage: Usage) -> float | None:
        try:
            return token_cost(usage, self.rates(backend))
        except KeyError as exc:
            if backend.name not in self.unpriced:
                self.unpriced.add(backend.name)
                log.warning("backend %s has no price, its cost is unknown: %s", backend.name, exc)
            return None  # an unpriced model must not fail the request it prices


def unpriced_backends(config: Config) -> list[str]:
    """Names of the cloud backends with no configured `price` whose model litellm's map
    does not know either: their requests are stored with an unknown (NULL) cost."""
    out = []
    for backend in config.backends:
        if backend.tier == "cloud" and backend.price is None:
            try:
                litellm_rates(backend.model)
            except KeyError:
                out.append(backend.name)
    return out


def counterfactual_backend(config: Config, route: str) -> Backend | None:
    """The first cloud backend of the route, else the first cloud backend configured (a
    request forced onto a backend has that backend's name as its route, which lists none)."""
    names = config.routes.get(route, [])
    candidates = [config.backend(n) for n in names] + list(config.backends)
    return next((b for b in candidates if b.tier == "cloud"), None)
