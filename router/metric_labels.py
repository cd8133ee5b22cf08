"""The closed label sets of the router's metrics, and how a value is mapped into them.

Every label value comes from a closed set (intents, outcomes, error kinds, tiers) or from the
config (backend, route, suite names); nothing a caller sends becomes a label. A value outside
its set shows as `other`, an empty one as `none`, so a bug or a new kind can never grow the
number of series.
"""

from __future__ import annotations

from typing import Literal, get_args

from classifier.intent import INTENTS, UNREAD
from router.record import Api, AttemptOutcome, ErrorKind, Outcome, ShadowDropReason

Circuit = Literal["closed", "open", "half_open"]
CIRCUIT_STATES: tuple[Circuit, ...] = ("closed", "open", "half_open")
OUTCOMES = frozenset(get_args(Outcome))
APIS = frozenset(get_args(Api))
ATTEMPT_OUTCOMES = frozenset(get_args(AttemptOutcome))
ERROR_KINDS = frozenset(get_args(ErrorKind))
SHADOW_DROP_REASONS = frozenset(get_args(ShadowDropReason))
SHADOW_RESULTS = ("agreed", "disagreed", "undecided")
_INTENTS = frozenset((*INTENTS, UNREAD))  # `unknown`: the classifier read nothing


def closed(value: str | None, allowed: frozenset[str], empty: str = "none") -> str:
    """Map a value into its closed label set: empty → `none`, unknown → `other`."""
    if not value:
        return empty
    return value if value in allowed else "other"


def intent_label(value: str | None) -> str:
    return closed(value, _INTENTS)


def config_name(value: str | None) -> str:
    """Config-bounded names (backend, route, suite); None or empty becomes `none`."""
    return value or "none"
