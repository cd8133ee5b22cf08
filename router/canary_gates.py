"""The canary's gates made visible to routing: merged into whatever state source is in place.

The policy reads backend states; a gate is one more fact about a backend (an intent it must
not be auto-routed). `ensure_gated` puts a canary's `gated()` into the state source once:
a source that merges gates itself (`router.resilience`) gets it added to its list, any other
is wrapped in `GatedStates`. With it goes when a gated backend's next canary round ends, as
far as the canary knows (`Review`): the round's results may reopen its gates, and a request
no other backend could serve is told to come back then (its 503's `Retry-After`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from router.backend_state import BackendState
from router.gateway_ports import States

Gates = Callable[[], dict[str, frozenset[str]]]
Review = Callable[[str], float | None]  # backend -> seconds until its round may reopen a gate


def not_known(backend: str) -> float | None:
    """The `Review` of a canary whose rounds' times are not known (one following the ledger)."""
    return None


class GatedStates:
    """A state source decorator: the inner source's states plus the canary's gates.

    When the health/capacity state source learns to merge `gated()` itself, this wrapper
    simply adds nothing new (a union of the same sets).
    """

    def __init__(self, inner: States, gated: Gates, review: Review = not_known) -> None:
        self.inner = inner
        self.gated = gated
        self.review = review

    def states(self) -> Mapping[str, BackendState]:
        base = self.inner.states()
        gates = self.gated()
        if not gates:
            return base
        merged = dict(base)
        for backend, intents in gates.items():
            state = merged.get(backend, BackendState())
            merged[backend] = dataclasses.replace(
                state,
                gated_intents=state.gated_intents | intents,
                gate_retry_in_s=self.review(backend),
            )
        return merged

    def sticky(self, conversation: str) -> str | None:
        return self.inner.sticky(conversation)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def ensure_gated(gateway: Any, gated: Gates, review: Review = not_known) -> None:
    """Make the policy see the canary's gates and `review`, once, whatever state source is
    in place.

    A source with a `gate_sources` list (router.resilience) merges gates and their reviews
    itself; any other source gets wrapped in `GatedStates`.
    """
    source = gateway.state_source
    while source is not None:
        if isinstance(source, GatedStates) and source.gated == gated:
            return
        sources = getattr(source, "gate_sources", None)
        if isinstance(sources, list) and gated in sources:
            return
        source = vars(source).get("inner") if hasattr(source, "__dict__") else None
    sources = getattr(gateway.state_source, "gate_sources", None)
    reviews = getattr(gateway.state_source, "gate_reviews", None)
    if isinstance(sources, list) and isinstance(reviews, list):
        sources.append(gated)
        reviews.append(review)
    else:
        gateway.state_source = GatedStates(gateway.state_source, gated, review)
