"""Which requests the shadow mirrors, and to which backend: a pure decision.

Made in two steps. The dice are rolled as the request arrives (`rolls`, with an injected
`random.Random`, so tests are deterministic): only a picked request keeps its body as
received and its answer text while it is served (at `rates: {coding: 0.01}` every coding
request held both, found in review). The roll is independent of how the request ends, so
among the requests that succeed the picked share is still the rate. After the live reply
finished, `decide` takes a picked one that succeeded to a target, or says why not.
A reload that sets its rate to 0 meanwhile (to stop mirroring, for privacy or cost) stops
it (`turned_off`): at `decide`, and again as a queued job's replay starts (`held_back`).
Privacy first: shadows go toward the local tier unless `shadow.allow_cloud_targets`, and a
private request never leaves the local tier (`refused`), nor goes one carrying vLLM's own
output constraint to a backend that would not honour it (`vllm_fields`), asked at `decide`
and again as a queued job starts: a reload that turns cloud targets off, or moves a target
to the cloud tier, stops the jobs already queued for it too. So does one that aims the
request's shadow at another backend (`shadow.targets`, or a new default target): a queued
job starts only where the running config would send a new sample (`held_back`), else it is
dropped as `target_changed`, as one whose target was removed is (`no_target`), never re-sent
to the new target: a reload that moves a target off a backend (too slow, or needed for live
traffic) stops its replays at once. A saturated (or open-circuit, or overloaded and waiting
out its 503's `Retry-After`) target is skipped, and so is one waiting out a 429's
`Retry-After` (`rate_limited`): every skip is a counted drop reason. The shadow asks every
target in chat, so a target must speak chat itself (`pairing.native`): a backend that only
speaks Responses or Messages got POST /chat/completions on every replay. `router.shadow`
queues and replays what this samples.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass

from router.backend_state import BackendState
from router.config import Config
from router.record import Record, ShadowDropReason
from router.translate.pairing import native
from router.vllm_fields import is_vllm


@dataclass(frozen=True, slots=True)
class Decision:
    """Where a finished request's shadow goes, or why it does not (`drop` is counted)."""

    target: str | None = None
    drop: ShadowDropReason | None = None


def rate_for(record: Record, config: Config) -> float:
    """The sampling rate: the route's rate when configured, else the intent's (default 0)."""
    settings = config.shadow
    if record.route in settings.route_rates:
        return settings.route_rates[record.route]
    return settings.rates.get(record.intent, 0.0)


def default_target(record: Record, config: Config) -> str | None:
    """The other tier's backend, preferring the route's own members in their order, and
    among them one that speaks chat; when none of them does, the first of them (`decide`
    then drops the job as `api_unsupported`, which says more than `no_target`)."""
    other = "cloud" if record.tier == "local" else "local"
    members = [config.backend(n) for n in config.routes.get(record.route, [])]
    candidates = [
        b for b in [*members, *config.backends] if b.tier == other and b.name != record.backend
    ]
    speaking = [b for b in candidates if native("chat", b)]
    chosen = (speaking or candidates)[:1]
    return chosen[0].name if chosen else None


def aimed_at(record: Record, config: Config) -> str | None:
    """The backend the shadow would replay `record` on: the intent's `shadow.targets` entry,
    else the default target; None when there is none."""
    return config.shadow.targets.get(record.intent) or default_target(record, config)


def choose(record: Record, config: Config) -> Decision:
    """Where a sampled request's shadow goes as far as the config decides it (the target, or
    why the config forbids one); `decide` adds the backends' state. Pure, and what
    `router.config_warnings` asks of the config's own routes, so a setup that can never
    sample is warned of by the very rule that drops its samples."""
    target = aimed_at(record, config)
    if target is None:
        return Decision(drop="no_target")
    drop = refused(record, target, config)
    return Decision(drop=drop) if drop is not None else Decision(target=target)


def refused(record: Record, target: str, config: Config) -> ShadowDropReason | None:
    """Why `config` forbids replaying `record` on `target`, or None: the target is gone or is
    the live backend (`no_target`), privacy (`private`, `not_allowed`: only the local tier
    unless `shadow.allow_cloud_targets`, and a private request never leaves it), vLLM's own
    output constraint the target would not honour (`vllm_fields`: a cloud refused it with a
    400 and still billed the call, or answered unconstrained, and the comparison weighed a
    constrained answer against a free one; found in review), or it does not speak chat
    (`api_unsupported`). The one rule, asked as a request is offered
    (`choose`) and again as its queued job starts (`held_back`), under the running config:
    a reload meanwhile may have turned cloud targets off or moved the target to the cloud."""
    if target == record.backend or target not in config.backend_names:
        return "no_target"
    settings = config.backend(target)
    if settings.tier != "local" and record.private:
        return "private"
    if record.vllm_field and not is_vllm(settings):  # answered unconstrained, or refused
        return "vllm_fields"
    if settings.tier != "local" and not config.shadow.allow_cloud_targets:
        return "not_allowed"
    if not native("chat", settings):  # `config check` refuses such a configured target
        return "api_unsupported"
    return None


def judge_for(record: Record, target: str, config: Config) -> str | None:
    """The backend that judges `record`'s replay on `target`: `shadow.judge_backend` when it
    is a third backend (neither live nor the target) and the sampling's privacy rule lets
    it see the request (a cloud judge only with `allow_cloud_targets`, never for a private
    request); else None. Pure: `router.shadow_replay` asks it of each replay, and
    `router.config_warnings` of the config's routes, to warn of a judge that never judges."""
    settings = config.shadow
    name = settings.judge_backend
    if not name or name in (record.backend, target) or name not in config.backend_names:
        return None
    if config.backend(name).tier != "local" and (
        record.private or not settings.allow_cloud_targets
    ):
        return None
    return name


def rolls(record: Record, config: Config, rng: random.Random) -> bool:
    """Whether the dice pick `record`, at its rate (`rate_for`: its route and intent are known
    once it is planned). Rolled once per request, as it arrives (`Gateway.prepare`)."""
    rate = rate_for(record, config)
    return rate > 0 and rng.random() < rate


def turned_off(record: Record, config: Config) -> bool:
    """Whether the running `config` gives `record` a rate of 0 (`rate_for`): a reload since
    its dice were rolled turned its shadow off (to stop mirroring, for privacy or cost). It
    is then not replayed, and is a counted `rate_zero` drop, so every picked request still
    ends compared or dropped for a reason. A rate lowered but not to 0 does not roll again:
    the request was picked fairly at the rate it arrived under, and a second roll would
    sample those in flight at the product of the two rates."""
    return rate_for(record, config) <= 0


def decide(record: Record, config: Config, states: Mapping[str, BackendState]) -> Decision | None:
    """For a request the dice picked (`rolls`), once its live reply finished: None when there
    is nothing to replay (it failed, or no backend answered); else a target or the counted
    reason there is none, `rate_zero` first (`turned_off`). Pure."""
    if record.outcome != "ok" or record.backend is None:
        return None
    if turned_off(record, config):
        return Decision(drop="rate_zero")
    decision = choose(record, config)
    if decision.target is None:
        return decision
    drop = held_away(states.get(decision.target))
    return decision if drop is None else Decision(drop=drop)


def held_back(
    record: Record, target: str, config: Config, states: Mapping[str, BackendState]
) -> ShadowDropReason | None:
    """Why a queued job's replay on `target` does not start now, or None, under the running
    `config` (a queue can hold jobs a while, and a reload may land meanwhile): its rate was
    set to 0 (`turned_off`), the config now forbids the target (`refused`, the rule the job
    was queued under: cloud targets turned off, or the target moved to the cloud tier with
    a private request, or removed), the config now aims the request's shadow elsewhere
    (`aimed_at`: `target_changed`; a reload of `shadow.targets` sent up to `queue_size`
    queued jobs to the backend it moved them from, found in review), or the target filled
    up, its circuit opened or it asked for a wait (`held_away`). Pure: `router.shadow` asks
    it as it takes each job, before the target's slot."""
    if turned_off(record, config):
        return "rate_zero"
    if (drop := refused(record, target, config)) is not None:
        return drop
    if aimed_at(record, config) != target:
        return "target_changed"
    return held_away(states.get(target))


def held_away(state: BackendState | None) -> ShadowDropReason | None:
    """Why no replay (nor a judge's call) may go to a backend now, or None: it is saturated
    by live attempts and replays, or its circuit is open (`saturated`), or it is waiting out
    the `Retry-After` its 429 asked for (`rate_limited`, `Health.asked_to_wait`). Live
    routing passes such a backend by till the wait ends; replays went on calling the
    provider that asked to be left alone, at its price and against its limit (found in
    review). Away as routing reads it (`BackendState.away`), but for the counted reason:
    the drop reasons, metric labels, name an open circuit and an overloaded backend's wait
    `saturated` (no room for a replay), and saturation, whatever the tier, comes first (a
    replay never queues)."""
    if state is None:
        return None
    away = state.away()
    if state.saturated or away in ("circuit_open", "overloaded"):
        return "saturated"
    return "rate_limited" if away == "rate_limited" else None
