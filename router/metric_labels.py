"""The closed label sets of the router's metrics, and how a value is mapped into them.

Every label value comes from a closed set (intents, outcomes, error kinds, tiers) or from the
config (backend, route, suite names); nothing a caller sends becomes a label. A value outside
its set shows as `other`, an empty one as `none`, so a bug or a new kind can never grow the
number of series.
"""

from __future__ import annotations

from typing import Literal, get_args

from classifier.intent import INTENTS, UNREAD
from evals.runner import ErrorKind as CaseErrorKind
from router.backend_state import Away
from router.policy import PASSING, PERMANENT_SKIPS
from router.record import (
    Api,
    AttemptErrorKind,
    AttemptOutcome,
    ErrorKind,
    Outcome,
    RefusalKind,
    ShadowDropReason,
)

Circuit = Literal["closed", "open", "half_open"]
CIRCUIT_STATES: tuple[Circuit, ...] = ("closed", "open", "half_open")
# A config reload attempt (`router.reload`): the new config swapped in (the reply's status
# "reloaded"), or refused ("rejected": the running one stays).
ReloadOutcome = Literal["applied", "rejected"]
RELOAD_OUTCOMES: tuple[ReloadOutcome, ...] = get_args(ReloadOutcome)
OUTCOMES = frozenset(get_args(Outcome))
APIS = frozenset(get_args(Api))
ATTEMPT_OUTCOMES = frozenset(get_args(AttemptOutcome))
ERROR_KINDS = frozenset(get_args(ErrorKind))
SHADOW_DROP_REASONS = frozenset(get_args(ShadowDropReason))
SHADOW_RESULTS = ("agreed", "disagreed", "undecided")
ATTEMPT_ERROR_KINDS: tuple[ErrorKind, ...] = get_args(AttemptErrorKind)
# Those a plan moves on after: not a cancellation (nothing is left to try for). `rejected`
# is one: a body a chat backend cannot carry moves on to a native one (`Uncarried`); a
# backend's 4xx passed through is never retried.
FALLBACK_REASONS = tuple(k for k in ATTEMPT_ERROR_KINDS if k != "cancelled")
# Why a backend was passed by, as `backend_skips_total` counts it (a `skipped` attempt's
# kind): each reason the plan skips for (`router.policy._unfit`: those no retry changes, and
# the passing ones, a 429's wait too), and `context_too_long`, a backend dispatch passed by
# after a larger window refused the prompt. Not an overflow: a saturated backend is put
# last, not skipped, and is still tried.
SKIP_REASONS: tuple[str, ...] = (*sorted(PERMANENT_SKIPS | PASSING), "context_too_long")
# How a planned request can fail on the service's side, as `errors_total`'s (outcome, kind)
# (`router.blame`): a backend's failure, the most telling of the plan's (`router.dispatch`;
# a backend's 4xx passed through is the client's, but `upstream_error` after a backend's
# failure moved the plan on), every backend of the plan skipped, or a bug of ours
# (`RouterFault` while sending, else no kind). Not a backend's context-length refusal: the
# client's, or recorded as the failure that came after it. Their series start at 0
# (`router.metric_zeros.failures`).
FAILED_OUTCOMES: tuple[Outcome, ...] = ("upstream_error", "router_error")
_NOT_FAILURES = ("cancelled", "router_error", "context_too_long", "output_too_long")
FAILURES: tuple[tuple[Outcome, str], ...] = (
    *(("upstream_error", k) for k in ATTEMPT_ERROR_KINDS if k not in _NOT_FAILURES),
    ("upstream_error", "no_backend_available"),
    ("router_error", "router_error"),
    ("router_error", "none"),
)
# The kinds of a request the router refused before classifying it (`router.api.refusal`, its
# error's code), and the statuses it refuses with before a backend is chosen: those, and a
# refused key's 401 (`router.api.front`). `OTHER_REFUSAL_STATUSES` are only ever `other`'s:
# a wrong method's 405, and a request head over the limit's 431, answered before any path
# is read (`router.api.request_head`).
REFUSAL_KINDS: tuple[ErrorKind, ...] = get_args(RefusalKind)
REFUSAL_STATUSES = ("400", "401", "403", "404", "408", "413", "415")
OTHER_REFUSAL_STATUSES = ("405", "431")
# A canary case as `canary_cases_total` counts it: graded (passed or failed) or not (an
# error, by the runner's kind of error, or `canary`: its round failed on the router's side or
# was cut short, `router.canary_bound`), or `other`: a kind outside those, or none (a follower
# reads rows that a router of another version wrote). An N/A case was never asked and is not
# counted.
CANARY_STATUSES = {"pass": "passed", "fail": "failed", "error": "error"}
CANARY_ERROR_KINDS: tuple[str, ...] = (*get_args(CaseErrorKind), "canary", "other")
# Why a canary round passed a backend by, as `canary_rounds_skipped_total` counts it (its
# row's `skipped_reason`): away as routing reads it (`BackendState.away`: its circuit open,
# or a wait it asked for, at the round's start or part way, `router.canary_wait`), a local
# one saturated, a kind the canary cannot reach, or `other` (a follower reads rows that a
# router of another version wrote).
CANARY_SKIP_REASONS: tuple[str, ...] = (
    *get_args(Away),
    "saturated",
    "unsupported_kind",
    "other",
)
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
