"""Counter series created at 0 before their first event, so that the event shows.

A series that appears with its first event starts at 1, with no sample before it: `rate()`
and `increase()` never count that step (and `_created` samples are off), so a one-off
fallback, a new error kind or a first 415 read 0 on every dashboard. A dead primary gives
about one fallback before its circuit opens, and "Fallbacks by path and reason" stayed
empty for the whole outage (found in review, with a real Prometheus). So the label
combinations known up front are created at 0, as `shadow_dropped_total`'s reasons are:

- `attempts_total`: each configured backend, with its tier, `ok` (kind `none`) or `error`
  with each kind an attempt can end with: 16 series per backend;
- `fallbacks_total`: each ordered pair of backends that share a route (a skipped backend, a
  sticky one or an overflow can put any member before another) with each reason a plan
  moves on after: 13 series per pair;
- `backend_skips_total`: each configured backend, with its tier, and each reason a plan or
  dispatch can pass it by (`metric_labels.SKIP_REASONS`), but `private` for a local one,
  `vllm_fields` for a local one not through litellm and `choices_unsupported` for one not
  through litellm, which are never skipped so: 11 to 14 series per backend. The first
  request past a backend waiting out a 429 must show;
- `unpriced_requests_total`: each (intent, route, backend, tier) the config leaves without
  a price (`router.pricing.Pricer`, asked about a request on each): the intents that can take
  each route (`router.target.intents_on`) with its members whose cost or counterfactual is
  unknown, and each backend forced by name. Only where unpriced, so none in a priced
  config. A priced request never adds to it (it once added 0, which created no unpriced
  series: a label set is priced or not for every request, so each unpriced one was born at
  1 and the cost dashboard read 0, "priced", for it, after every restart);
- `errors_total` (intent `none`, `client_error`) and `rejected_requests_total`: the
  router's own refusals, closed sets created once, at start;
- a planned request that failed on the service's side (`upstream_error`, `router_error`),
  so that the first one of an outage shows (one failed math request read 1 in
  `errors_total` and 0 in `increase()`, found in review): `errors_total` for each intent
  with each (outcome, kind) such a failure can have (`metric_labels.FAILURES`, 14 an
  intent, 112 in all), once, at start;
- `requests_total`, every way a planned request can end, not only the failed ones: the
  alert's and the dashboards' shares divide by all of them, and an `ok` series born with
  its first requests lost them from the denominator (84 ok and 3 failed requests on a
  fresh router read 42% failed, and `SmfRequestsFailing` paged; found in review). From the
  config, each (intent, route) a request can take (`intents_on`, each backend forced by
  name too) with backend `none` (none committed: failed, the client's error, its hang-up)
  × both `stream` values, and with each member `ok` × both `stream` values, and for a
  stream that ended after its backend answered, `upstream_error` (cut, stalled),
  `client_error` (refused for length in-band) and `cancelled`. And at start, the refusals
  before the plan (`client_error` with intent, route, backend and tier `none`);
- the tokens and dollars (`prompt_tokens_total`, `completion_tokens_total`,
  `cost_usd_total`, `counterfactual_usd_total`), which every request a member serves adds
  to: each (intent, route, member, tier) of the same walk (the first scrape's spend was
  lost too: $0.00095 read for $0.00929); `offloaded_usd_total` only for a local member
  whose request the pricer prices both ways. Not backend `none`: an unserved request adds
  0 to each, always;
- a bug of the router's met before the plan (`router_error` with intent, route, backend and
  tier `none`): `errors_total` (kind `none`) and `requests_total` (both `stream` values),
  once, at start. `SmfRequestsFailing` counts it, and a classifier that raises on every
  request is an outage whose first 500s must show;
- `fallback_requests_total`: for each route of two or more backends, each (intent, route)
  with each backend a request can end on after a move, `none` too (a request that never
  moved creates its own series, at 0);
- `shadow_comparisons_total`: each (intent, live backend, target) the shadow samples and
  may replay on (`router.shadow_sampling.choose`, asked of each route's members), with each
  result (a pair's first comparison created its siblings at 0, but its own result at 1);
- `canary_cases_total`: each configured backend with each suite the canary runs, `passed`,
  `failed`, and `error` with each kind of error, `other` too: 9 series per backend and
  suite. The suites are loaded from files, not read from the config, so the canary's judge
  creates them (`router.canary_counts.CaseCounts.expect`), before its first round: created
  by that round's count, a backend whose every case errs from the start showed no increase.
  Unlike the others, a backend's or suite's that left the config go even once they counted,
  with its other canary series (`router.canary_judge.Judge.forget_removed`, `forget_suites`);
- `canary_rounds_skipped_total`: with them, each such backend with each reason a round can
  pass it by (`metric_labels.CANARY_SKIP_REASONS`, `other` too): 6 series per backend, so
  that the first round a wait stops shows.

A reload creates the new config's. A zero series created here that config can no longer
produce (a removed backend, one whose tier changed, two backends that no longer share a
route, a backend given a price, a local one whose route's cloud backend lost its own)
goes, or every renaming reload would leave its set behind for good; one that counted
something stays, as a removed backend's counters do (they are history), and so does one
an event created, at 0 or not (`Metrics.zeros` holds which are this module's).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING, get_args

from classifier.intent import INTENTS, UNREAD
from router import pricing
from router.metric_labels import (
    ATTEMPT_ERROR_KINDS,
    CANARY_ERROR_KINDS,
    CANARY_SKIP_REASONS,
    FAILED_OUTCOMES,
    FAILURES,
    FALLBACK_REASONS,
    OTHER_REFUSAL_STATUSES,
    REFUSAL_KINDS,
    REFUSAL_STATUSES,
    SHADOW_RESULTS,
    SKIP_REASONS,
)
from router.metric_store import Family
from router.record import Api, Outcome, Record
from router.shadow_sampling import choose, rate_for
from router.target import intents_on
from router.vllm_fields import SKIP as VLLM_FIELDS
from router.vllm_fields import is_vllm

if TYPE_CHECKING:
    from router.config import Backend as BackendSettings
    from router.config import Config
    from router.metrics import Metrics

Labels = tuple[str, ...]
STREAMS = ("false", "true")
# A planned request's ends that are the client's: its mistake, or its hang-up.
CLIENTS: tuple[Outcome, ...] = ("client_error", "cancelled")


def refusals(metrics: Metrics) -> None:
    """The refusals' series: their label sets are closed, so once, at start. A refusal
    before the plan is a `client_error` with intent, route, backend and tier `none`."""
    for kind in REFUSAL_KINDS:
        metrics.errors.inc(("none", "client_error", kind), 0)
    for api in get_args(Api):
        for status in REFUSAL_STATUSES:
            metrics.rejected.inc((api, status), 0)
    for status in (*REFUSAL_STATUSES, *OTHER_REFUSAL_STATUSES):
        metrics.rejected.inc(("other", status), 0)
    for stream in STREAMS:
        metrics.requests.inc(("none", "none", "none", "none", "client_error", stream), 0)


def failures(metrics: Metrics) -> None:
    """Each intent's failures on the service's side (`metric_labels.FAILURES`), and a bug
    met before the plan (intent, route, backend and tier `none`, no kind: the record of
    `router.api.refusal`): closed sets, so once, at start. The latter are no config's, and
    a reload leaves them (`_expect` removes only its own)."""
    for intent in (*INTENTS, UNREAD):
        for outcome, kind in FAILURES:
            metrics.errors.inc((intent, outcome, kind), 0)
    metrics.errors.inc(("none", "router_error", "none"), 0)
    for stream in STREAMS:
        metrics.requests.inc(("none", "none", "none", "none", "router_error", stream), 0)


def configured(metrics: Metrics, config: Config) -> None:
    """The series of `config`'s backends and routes (attempts, fallbacks, unpriced, ended
    and moved requests, tokens and dollars, shadow comparisons), at 0, at start."""
    expecting(metrics, config)()


def expecting(metrics: Metrics, config: Config) -> Callable[[], None]:
    """What creates `config`'s series, worked out here (the unpriced ones look models up in
    the price map: a reload calls this in a thread) and applied by the returned call (on
    the event loop, where the counters change)."""
    kinds = [("ok", "none"), *(("error", kind) for kind in ATTEMPT_ERROR_KINDS)]
    attempts = [(b.name, b.tier, *kind) for b in config.backends for kind in kinds]
    skips = [(b.name, b.tier, why) for b in config.backends for why in skip_reasons(b)]
    pairs = {pair for route in config.routes.values() for pair in itertools.permutations(route, 2)}
    moves = [(*pair, reason) for pair in sorted(pairs) for reason in FALLBACK_REASONS]
    unpriced = unpriced_series(config)
    requests, moved = requests_series(config), moved_series(config)
    spent, offloaded = spent_series(config)
    shadowed = shadow_series(config)

    money = (metrics.prompt_tokens, metrics.completion_tokens, metrics.cost, metrics.counterfactual)
    expected: list[tuple[Family, Sequence[Labels]]] = [
        (metrics.attempts, attempts),
        (metrics.skips, skips),
        (metrics.fallbacks, moves),
        (metrics.unpriced, unpriced),
        (metrics.requests, requests),
        (metrics.fallback_requests, moved),
        (metrics.shadow, shadowed),
        *((family, spent) for family in money),
        (metrics.offloaded, offloaded),
    ]

    def apply() -> None:
        for family, series in expected:
            _expect(metrics, family, series)

    return apply


def skip_reasons(backend: BackendSettings) -> list[str]:
    """Why `backend` may be passed by (`router.policy._unfit`): not for privacy when it is
    local, nor for vLLM's own fields when it honours them (`router.vllm_fields`), nor for
    `n` in a stream when litellm is not between (only its streams are)."""
    never = {"private"} if backend.tier == "local" else set()
    if is_vllm(backend):
        never.add(VLLM_FIELDS)
    if backend.kind != "litellm":
        never.add("choices_unsupported")
    return [why for why in SKIP_REASONS if why not in never]


def ways(config: Config) -> list[tuple[str, list[str]]]:
    """Each route with its members, and each backend forced by name (its name is then the
    route). Not a backend a stored response brings onto a route it is not in: rare, and
    every route for each such backend would multiply the series."""
    return [*config.routes.items(), *((b.name, [b.name]) for b in config.backends)]


def requests_series(config: Config) -> list[Labels]:
    """`requests_total`'s (intent, route, backend, tier, outcome, stream) of a planned
    request, by how it can end. With no backend committed (backend `none`): failed on the
    service's side, the client's error (a backend's 4xx passed through, a refusal for
    length) or its hang-up, either `stream`. Served by a member: `ok`, either `stream`; or a
    stream ended after its backend answered: cut or stalled (`upstream_error`), refused for
    length in-band (`client_error`), hung up on (`cancelled`). A whole reply that answered
    has nothing left to end it but a bug (`Gateway.abandon`), left to its first event."""
    before = [(o, s) for o in (*FAILED_OUTCOMES, *CLIENTS) for s in STREAMS]
    after = [*(("ok", s) for s in STREAMS), *((o, "true") for o in ("upstream_error", *CLIENTS))]
    out: dict[Labels, None] = {}
    for route, members in ways(config):
        served = [(b.name, b.tier) for b in map(config.backend, members)]
        for intent in intents_on(route, config):
            for end in before:
                out[(intent, route, "none", "none", *end)] = None
            for backend in served:
                for end in after:
                    out[(intent, route, *backend, *end)] = None
    return list(out)


def moved_series(config: Config) -> list[Labels]:
    """`fallback_requests_total`'s (intent, route, backend, tier) where a request can end
    after a move: each route of two or more backends, on any of them (a skipped or sticky
    backend reorders the plan) or on none."""
    out: list[Labels] = []
    for route, members in config.routes.items():
        if len(members) < 2:
            continue
        ends = [*((b.name, b.tier) for b in map(config.backend, members)), ("none", "none")]
        out += [(i, route, *end) for i in intents_on(route, config) for end in ends]
    return out


def shadow_series(config: Config) -> list[Labels]:
    """`shadow_comparisons_total`'s (intent, live, target, result) of each request the shadow
    samples (`rate_for`) and may replay (`choose`), served by each member of its route."""
    out: dict[Labels, None] = {}
    for route, members in ways(config):
        for intent in intents_on(route, config):
            for served in map(config.backend, members):
                live = Record("", 0.0, intent=intent, route=route)
                live.backend, live.tier = served.name, served.tier
                if rate_for(live, config) <= 0 or (target := choose(live, config).target) is None:
                    continue
                for result in SHADOW_RESULTS:
                    out[(intent, served.name, target, result)] = None
    return list(out)


def unpriced_series(config: Config) -> list[Labels]:
    """(intent, route, backend, tier) of each request `config` would leave unpriced, by
    `ways`."""
    return [where for where, (cost, other) in _prices(config) if cost is None or other is None]


def spent_series(config: Config) -> tuple[list[Labels], list[Labels]]:
    """(intent, route, backend, tier) of the token, cost and counterfactual counters, which
    each request a member serves adds to (0 or more: `Metrics._count_money`), by `ways`;
    and of `offloaded_usd_total`, which only a local member's request with both prices
    known adds to. Not backend `none`: a request no backend served adds 0 to each, always."""
    priced = _prices(config)
    offloaded = [w for w, (cost, other) in priced if w[3] == "local" and None not in (cost, other)]
    return [where for where, _ in priced], offloaded


def _prices(config: Config) -> list[tuple[Labels, tuple[float | None, float | None]]]:
    """Each (intent, route, backend, tier) a member serves on, by `ways`, with the
    (cost, counterfactual) of a request it answers, None where unknown: the pricer's own
    rule, as a config prices a pair one way always."""
    pricer = pricing.Pricer(config)
    pricer.unpriced.update(pricing.unpriced_backends(config))  # serve logs "no price", not this
    out: list[tuple[Labels, tuple[float | None, float | None]]] = []
    for route, members in ways(config):
        for served in map(config.backend, members):
            record = Record("", 0.0, route=route, backend=served.name, tier=served.tier)
            where = (route, served.name, served.tier)
            out += [((i, *where), pricer.price(record)) for i in intents_on(route, config)]
    return out


def canary(metrics: Metrics, backends: Sequence[str], suites: Collection[str]) -> None:
    """The canary case counters of `backends` × `suites`, and the skipped rounds of each
    backend by reason, at 0, each time they may change. Those of a backend or suite no
    longer configured that counted went before, with its other canary series
    (`router.canary_judge.Judge.forget_removed`, `forget_suites`)."""
    outcomes = [("passed", ""), ("failed", ""), *(("error", k) for k in CANARY_ERROR_KINDS)]
    cases = [(b, s, *o) for b in backends for s in sorted(suites) for o in outcomes]
    _expect(metrics, metrics.case_outcomes, cases)
    skipped = [(b, reason) for b in backends for reason in CANARY_SKIP_REASONS]
    _expect(metrics, metrics.canary_skipped, skipped)


def _expect(metrics: Metrics, family: Family, expected: Sequence[Labels]) -> None:
    """Create `expected` at 0 (a series already there keeps its count), and remove the series
    created here before that are still at 0 and no longer expected. Only those: a series at
    0 may be an event's (a request that did not move adds 0 to `fallback_requests_total`, a
    shadow pair's first comparison creates its other results at 0), and a reload with the
    same config removed such live series when every one at 0 was taken for this module's
    (found in review)."""
    made = metrics.zeros.setdefault(family.name, set())
    keep = set(expected)
    for labels in made - keep:
        if family.values.get(labels) == 0:
            family.remove(labels)
    # one that counted is history now, and one dropped (a removed backend's) is gone
    made.intersection_update(keep, family.values)
    for labels in expected:
        if labels not in family.values:
            family.inc(labels, 0)
            made.add(labels)
