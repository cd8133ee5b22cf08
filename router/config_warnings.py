"""What a config that loads may still do wrong: warnings `config check`, `serve` and a reload
print or log, where refusing the config would stop a router for something harmless today.

- A backend's `api_key_env` variable is unset or empty (`Backend.key_warning`).
- A `shadow.targets` entry or `shadow.judge_backend` names a backend that does not speak
  chat while no shadow rate is above 0: the shadow never asks it, so a leftover from before
  an upgrade must not stop `serve` or a reload; once a rate is set it is refused
  (`router.config_checks.shadow_backends`).
- A `shadow.targets` entry names a cloud backend while `shadow.allow_cloud_targets` is off:
  `router.shadow_sampling.decide` drops every such sample as `not_allowed`, so the entry
  does nothing; it loaded without a word (found in review). A warning, as an entry kept for
  turning `allow_cloud_targets` on later is harmless.
- An intent with a shadow rate above 0 whose route's first backend can never be shadowed:
  its target (a `targets` entry, else the default one) is that backend itself, there is
  none, or it is on the cloud tier with `allow_cloud_targets` off, so each sample is
  dropped as `no_target` or `not_allowed` (found in review: `rates: {coding: 1.0}` alone
  sampled nothing). `router.shadow_sampling.choose`, the sampler's own rule, says so; a
  route that fell back to another backend may still be shadowed, hence a warning.
- A `shadow.judge_backend` that is the live or the shadow backend of every request the
  shadow can sample (two backends, one of them the judge): the judge must be a third one
  (`router.shadow.Shadow._judge`), so no comparison is ever judged.
- `ledger.store_text` is on and `ledger.housekeeping` off: the hourly housekeeping is what
  applies `text_retention_days` (and `retention_days`), so without a `smf-router ledger
  compact --config` job prompts and completions are kept for ever.
- A cloud backend has no `price` and litellm's map does not know its model: its cost is
  stored as unknown (NULL), and the report's dollars leave it out (`router.pricing`); only
  a line logged at `serve` said so before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from classifier.intent import INTENTS
from router.config_checks import chat_problem, shadow_named
from router.record import Record

if TYPE_CHECKING:  # `router.config` imports this module
    from router.config import Config

UNASKED = "harmless while no shadow rate is above 0; refused once one is"
CLOUD_TARGET = (
    "shadow.targets.{intent}: backend {name!r} is on the cloud tier and"
    " shadow.allow_cloud_targets is off, so every sample for {intent} is dropped"
    " (not_allowed); set allow_cloud_targets or name a local backend"
)
NOT_ALLOWED = (
    "shadow.{where}: {intent} is served by backend {live!r} first (routes.{intent}), and its"
    " shadow target {target!r} is on the cloud tier while shadow.allow_cloud_targets is off, so"
    " every sample for {intent} that {live!r} serves is dropped (not_allowed); set"
    " allow_cloud_targets: true, or a shadow.targets entry for {intent} naming another local"
    " backend"
)
SELF_TARGET = (
    "shadow.targets.{intent}: backend {live!r} is the first backend of routes.{intent}, and"
    " the shadow never replays a request on the backend that answered it, so every sample for"
    " {intent} that {live!r} serves is dropped (no_target); name another backend there"
)
NO_TARGET = (
    "shadow.{where}: {intent} is served by backend {live!r} first (routes.{intent}), and there"
    " is no backend on the other tier to replay it on, so every sample for {intent} that"
    " {live!r} serves is dropped (no_target); add a shadow.targets entry for {intent} naming"
    " another backend"
)
JUDGE_NEVER = (
    "shadow.judge_backend: backend {judge!r} is the live or the shadow backend of every request"
    " the shadow can sample ({pairs}), and the judge must be a third backend, so no comparison"
    " is ever judged; name a backend that is neither, or add one"
)
TEXTS_KEPT = (
    "ledger.store_text is on and ledger.housekeeping off: prompt texts (and records) are kept"
    " until `smf-router ledger compact --config` runs; make sure a job runs it (the Kubernetes"
    " CronJob smf-router-ledger-compact does), or text_retention_days is never applied"
)
UNPRICED = (
    "backends.{name}: the router found no price for cloud model {model!r} (none in litellm's"
    " price map under that name, no `price` set): its requests' cost, and the counterfactual"
    " cost of routes it prices, are stored as unknown and left out of the report's dollars;"
    " set `price:` on the backend"
)


def of(config: Config) -> list[str]:
    """One line per thing to warn of, in a stable order."""
    said = [w for b in config.backends if (w := b.key_warning()) is not None]
    if not config.shadow.samples:
        for where, name in shadow_named(config):  # each exists: the config loaded
            if (problem := chat_problem(where, config.backend(name))) is not None:
                said.append(f"{problem} ({UNASKED})")
    if not config.shadow.allow_cloud_targets:
        for intent, name in config.shadow.targets.items():
            if config.backend(name).tier != "local":
                said.append(CLOUD_TARGET.format(intent=intent, name=name))
    said.extend(_never_sampled(config))
    if (judge := _judge_never_third(config)) is not None:
        said.append(judge)
    if config.ledger.store_text and not config.ledger.housekeeping:
        said.append(TEXTS_KEPT)
    from router import pricing  # `router.pricing` imports `router.config`, which imports this

    for name in pricing.unpriced_backends(config):
        said.append(UNPRICED.format(name=name, model=config.backend(name).model))
    return said


def _served(config: Config, intent: str, route: str, backend: str) -> Record:
    """A finished, non-private request of `intent` that `backend` answered on `route`."""
    tier = config.backend(backend).tier
    return Record("", 0.0, intent=intent, route=route, backend=backend, tier=tier)


def _never_sampled(config: Config) -> list[str]:
    """Each sampled intent whose route's first backend the sampler can never shadow."""
    from router.shadow_sampling import aimed_at, choose, rate_for  # it imports `router.config`

    said = []
    for intent in INTENTS:  # every intent has a route of its name (the config checks it)
        live = config.routes[intent][0]
        record = _served(config, intent, intent, live)
        if rate_for(record, config) <= 0:
            continue
        where = f"route_rates.{intent}" if intent in config.shadow.route_rates else None
        where = where or f"rates.{intent}"
        drop, named = choose(record, config).drop, intent in config.shadow.targets
        if drop == "not_allowed" and not named:  # a named one: CLOUD_TARGET said so
            target = aimed_at(record, config)
            said.append(NOT_ALLOWED.format(where=where, intent=intent, live=live, target=target))
        elif drop == "no_target":
            text = SELF_TARGET if named else NO_TARGET
            said.append(text.format(where=where, intent=intent, live=live))
    return said


def _judge_never_third(config: Config) -> str | None:
    """The judge's warning when every (live, target) pair the shadow could sample holds it.
    Every route (and every backend, as `model: <backend>` pins one) with every backend live
    (fallback, a stored response's home) is tried, so only a judge that cannot be third
    whatever the traffic and health is named."""
    from router.shadow_sampling import choose, rate_for  # it imports `router.config`

    judge = config.shadow.judge_backend
    if judge is None or not config.shadow.samples:
        return None
    names = [b.name for b in config.backends]
    pairs: set[tuple[str, str]] = set()
    for route in [*config.routes, *names]:
        for live in names:
            for intent in INTENTS:
                record = _served(config, intent, route, live)
                if rate_for(record, config) > 0 and (target := choose(record, config).target):
                    pairs.add((live, target))
    if not pairs or any(judge not in pair for pair in pairs):
        return None  # none sampled (warned above), or a pair leaves the judge third
    shown = ", ".join(f"{live} -> {target}" for live, target in sorted(pairs))
    return JUDGE_NEVER.format(judge=judge, pairs=shown)
