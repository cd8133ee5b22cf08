"""What a config that loads may still do wrong: warnings `config check`, `serve` and a reload
print or log, where refusing the config would stop a router for something harmless today.

- A backend's `api_key_env` variable is unset or empty (`Backend.key_warning`).
- A `kind: openai` backend that speaks only Messages (`apis: [messages]`, as Anthropic's own
  API) has `api_key_env`: its key goes as `Authorization: Bearer` (`key_header`), and
  Anthropic's API takes an API key in `x-api-key` under every `anthropic-version` (the
  client's is passed on) but has refused one as Bearer ("Invalid bearer token"), and where
  it does every request is a 502 (found in review). A warning, not an error: the
  `anthropic` SDK 2.16 sends its key as Bearer with `anthropic-version: 2026-10-21`, and
  other servers speaking Messages take Bearer; `headers: {x-api-key: ...}`, as the docs
  show, is the header Anthropic documents.
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
- A `shadow.route_rates` entry for a route that is not an intent's (`agents`), or for a
  backend (`local`: requests pinned with `model: local`), whose first backend can never be
  shadowed, whatever the request's intent: walked as the intents are (found in review:
  `route_rates: {local: 1}` sampled nothing, every sample `not_allowed`, without a word).
- A `shadow.judge_backend` that judges no request the shadow can sample, by the shadow's own
  rule (`router.shadow_sampling.judge_for`): the live or the shadow backend of every one (two
  backends, one of them the judge: it must be a third one), or on the cloud tier while
  `shadow.allow_cloud_targets` is off (found in review: such a judge was never asked).
- `shadow.queue_bytes` no larger than `server.max_body_bytes`: a job holds its body and the
  live answer, so the largest request the router takes can never be queued (every such
  sample dropped as `queue_full`; `queue_bytes: 64` dropped them all). The defaults, 64 MiB
  against 8 MiB, say nothing.
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
from router.translate.pairing import anthropic_own

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
ROUTE_NEVER = (
    "shadow.route_rates.{key}: {served}, and the shadow can replay none of its requests,"
    " whatever their intent ({why}), so every sample is dropped; {fix}"
)
WHY = {
    "not_allowed": "target {target!r} is on the cloud tier while shadow.allow_cloud_targets"
    " is off: not_allowed",
    "no_target": "no backend to replay on but the one that answered: no_target",
}
FIX = {
    "not_allowed": "set allow_cloud_targets: true, or shadow.targets entries naming a local"
    " backend other than {live!r}",
    "no_target": "add shadow.targets entries naming a backend other than {live!r}",
}
JUDGE_CLOUD = (
    "shadow.judge_backend: backend {judge!r} is on the cloud tier and"
    " shadow.allow_cloud_targets is off, so the shadow never shows it a request and no"
    " comparison is ever judged; set allow_cloud_targets: true or name a local backend"
)
QUEUE_SMALL = (
    "shadow.queue_bytes: {queue} bytes is no more than server.max_body_bytes ({body}), and a"
    " job holds its body and the live answer, so a request of the largest size the router"
    " takes is never shadowed (dropped: queue_full); set queue_bytes well above max_body_bytes"
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


BEARER_TO_MESSAGES = (
    "backends.{name}.api_key_env: the key goes as Authorization: Bearer, and this backend speaks"
    " only messages (apis: [messages]), as Anthropic's own API does, which takes an API key in"
    " x-api-key and has refused one sent as Bearer (401: Invalid bearer token); for Anthropic's"
    ' API drop api_key_env and send the key as headers: {{x-api-key: "${{{variable}}}"}}'
)


def of(config: Config) -> list[str]:
    """One line per thing to warn of, in a stable order."""
    said = [w for b in config.backends if (w := b.key_warning()) is not None]
    for b in config.backends:
        if anthropic_own(b) and b.api_key_env is not None:
            variable = b.api_key_env if b.key_variable() == b.api_key_env else "VARIABLE"
            said.append(BEARER_TO_MESSAGES.format(name=b.name, variable=variable))
    if not config.shadow.samples:
        for where, name in shadow_named(config):  # each exists: the config loaded
            if (problem := chat_problem(where, config.backend(name))) is not None:
                said.append(f"{problem} ({UNASKED})")
    if not config.shadow.allow_cloud_targets:
        for intent, name in config.shadow.targets.items():
            if config.backend(name).tier != "local":
                said.append(CLOUD_TARGET.format(intent=intent, name=name))
    said.extend(_never_sampled(config))
    said.extend(_route_never_sampled(config))
    said.extend(_judge_never(config))
    if config.shadow.samples and config.shadow.queue_bytes <= config.server.max_body_bytes:
        queue, body = config.shadow.queue_bytes, config.server.max_body_bytes
        said.append(QUEUE_SMALL.format(queue=queue, body=body))
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


def _route_never_sampled(config: Config) -> list[str]:
    """Each `route_rates` entry for a route that is no intent's, or for a backend (the route
    of a request pinned to it), whose first backend the sampler can shadow for no intent the
    route can carry (`target.intents_on`: `unknown` too, which no `targets` entry names;
    the intents' own routes: `_never_sampled`)."""
    from router.shadow_sampling import aimed_at, choose  # these import `router.config`
    from router.target import intents_on

    said = []
    for key, rate in config.shadow.route_rates.items():
        if rate <= 0 or key in INTENTS:
            continue
        if key in config.routes:  # a route before a backend, as `target.resolve_target` reads
            live = config.routes[key][0]
            served = f"route {key} is served by backend {live!r} first (routes.{key})"
        else:
            live = key
            served = f"a request pinned to backend {key!r} (model: {key}) is served by it alone"
        drops: dict[str, str | None] = {}
        for intent in intents_on(key, config):  # `unknown` too: nothing read, any route
            record = _served(config, intent, key, live)
            decision = choose(record, config)
            if decision.drop is None:
                break  # some intent is replayed
            drops.setdefault(decision.drop, aimed_at(record, config))
        else:
            why = "; ".join(WHY[d].format(target=t) for d, t in drops.items() if d in WHY)
            fix = " or ".join(FIX[d].format(live=live) for d in drops if d in FIX)
            said.append(ROUTE_NEVER.format(key=key, served=served, why=why, fix=fix))
    return said


def _judge_never(config: Config) -> list[str]:
    """Why the judge judges no request the shadow can sample, when it judges none. Every
    route (and every backend, as `model: <backend>` pins one) with every backend live
    (fallback, a stored response's home) and every intent it can carry
    (`target.intents_on`) is tried with the shadow's own rule
    (`shadow_sampling.judge_for`), so only a judge that can judge nothing whatever the
    traffic and health is named: the live or the target of every sample (it must be a third
    backend), or on the cloud tier while `allow_cloud_targets` is off."""
    from router.shadow_sampling import choose, judge_for, rate_for  # these import `router.config`
    from router.target import intents_on

    judge = config.shadow.judge_backend
    if judge is None or not config.shadow.samples:
        return []
    names = sorted(config.backend_names)
    pairs: set[tuple[str, str]] = set()
    for route in [*config.routes, *names]:
        for live in names:
            for intent in intents_on(route, config):
                record = _served(config, intent, route, live)
                if rate_for(record, config) > 0 and (target := choose(record, config).target):
                    if judge_for(record, target, config) is not None:
                        return []  # it judges this one
                    pairs.add((live, target))
    if not pairs:
        return []  # nothing is ever sampled: warned of above
    said = []
    if all(judge in pair for pair in pairs):
        shown = ", ".join(f"{live} -> {target}" for live, target in sorted(pairs))
        said.append(JUDGE_NEVER.format(judge=judge, pairs=shown))
    if config.backend(judge).tier != "local" and not config.shadow.allow_cloud_targets:
        said.append(JUDGE_CLOUD.format(judge=judge))
    return said
