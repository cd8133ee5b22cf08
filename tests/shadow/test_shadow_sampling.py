"""Sampling and targeting decisions (pure): rates hold statistically, privacy rules hold."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest

from classifier import INTENTS
from router.config import parse
from router.policy import BackendState
from router.record import Record
from router.shadow_sampling import Decision, decide, default_target, held_back, rolls


def _config(**shadow: Any) -> Any:
    backends = [
        {"name": "local", "tier": "local", "base_url": "http://127.0.0.1:9/v1", "model": "m"},
        {"name": "cloud", "tier": "cloud", "base_url": "http://127.0.0.1:9/v1", "model": "c"},
    ]
    return parse({"backends": backends, "shadow": shadow})


def _record(intent: str, backend: str = "cloud", private: bool = False, route: str = "") -> Record:
    tier = "local" if backend == "local" else "cloud"
    return Record(
        "r",
        0.0,
        intent=intent,
        route=route or intent,
        backend=backend,
        tier=tier,
        private=private,  # type: ignore[arg-type]
    )


def _sampled(
    record: Record, config: Any, states: dict[str, BackendState], rng: random.Random
) -> Decision | None:
    """Both steps: the dice as the request arrives, then the decision once it finished."""
    return decide(record, config, states) if rolls(record, config, rng) else None


def _within(count: int, n: int, rate: float) -> bool:
    """Inside 4.5 standard deviations of the binomial mean (false alarm ~1e-5)."""
    return abs(count - n * rate) <= 4.5 * math.sqrt(n * rate * (1 - rate))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_per_intent_rates_hold(seed: int) -> None:
    config = _config(rates={"math": 0.1, "prose": 0.5})
    rng = random.Random(seed)
    n = 4000
    counts = {"math": 0, "prose": 0, "coding": 0}
    for _ in range(n):
        for intent in counts:
            if _sampled(_record(intent), config, {}, rng) is not None:
                counts[intent] += 1
    assert _within(counts["math"], n, 0.1)
    assert _within(counts["prose"], n, 0.5)
    assert counts["coding"] == 0  # default off


def test_the_dice_are_rolled_on_what_is_known_as_a_request_arrives() -> None:
    """Its route and intent, before any backend answered (`Gateway.prepare` rolls them): the
    rate holds, and a request with no rate is never picked."""
    config = _config(rates={"math": 0.25})
    rng = random.Random(5)
    arriving = Record("r", 0.0, intent="math", route="math")
    assert arriving.backend is None
    assert _within(sum(rolls(arriving, config, rng) for _ in range(4000)), 4000, 0.25)
    coding = Record("r", 0.0, intent="coding", route="coding")
    assert not any(rolls(coding, config, rng) for _ in range(100))


def test_route_rate_wins_over_intent_rate() -> None:
    # a math request sent down the coding route (an x-smf-route header) takes coding's rate
    config = _config(rates={"math": 1.0}, route_rates={"coding": 0.0, "math": 0.25})
    rng = random.Random(7)
    assert _sampled(_record("math", route="coding"), config, {}, rng) is None
    hits = sum(_sampled(_record("math"), config, {}, rng) is not None for _ in range(4000))
    assert _within(hits, 4000, 0.25)


def test_a_request_pinned_to_a_backend_takes_that_backends_route_rate() -> None:
    """`model: cloud` takes the route `cloud`, which is what `route_rates` is looked up by,
    but a backend's name there was refused at load (found in review)."""
    config = _config(rates={"coding": 0.0}, route_rates={"cloud": 1.0})
    pinned = _sampled(_record("coding", route="cloud"), config, {}, random.Random(0))
    assert pinned is not None and pinned.target == "local"
    assert _sampled(_record("coding"), config, {}, random.Random(0)) is None


def test_default_target_is_the_other_tier_toward_local() -> None:
    config = _config(rates={"math": 1.0})
    decision = _sampled(_record("math", "cloud"), config, {}, random.Random(0))
    assert decision is not None and decision.target == "local"
    assert default_target(_record("coding", "local"), config) == "cloud"


def test_cloud_targets_need_the_switch() -> None:
    off = _sampled(_record("coding", "local"), _config(rates={"coding": 1.0}), {}, random.Random(0))
    assert off is not None and (off.target, off.drop) == (None, "not_allowed")
    on = _config(rates={"coding": 1.0}, allow_cloud_targets=True)
    allowed = _sampled(_record("coding", "local"), on, {}, random.Random(0))
    assert allowed is not None and allowed.target == "cloud"


def test_private_requests_never_leave_local_even_when_allowed() -> None:
    config = _config(rates={"coding": 1.0}, allow_cloud_targets=True)
    private = _sampled(_record("coding", "local", private=True), config, {}, random.Random(0))
    assert private is not None and (private.target, private.drop) == (None, "private")


def test_saturated_local_target_gets_no_shadow() -> None:
    config = _config(rates={"math": 1.0})
    states = {"local": BackendState(saturated=True)}
    decision = _sampled(_record("math", "cloud"), config, states, random.Random(0))
    assert decision is not None and (decision.target, decision.drop) == (None, "saturated")


@pytest.mark.parametrize(
    ("state", "expected"),
    [
        (BackendState(rate_limited_for_s=30.0), "rate_limited"),
        (BackendState(rate_limited_for_s=30.0, saturated=True), "saturated"),
        (BackendState(rate_limited_for_s=30.0, circuit="open"), "saturated"),
        (BackendState(circuit="open"), "saturated"),
        (BackendState(), None),
    ],
)
def test_a_target_waiting_out_a_429_gets_no_shadow(
    state: BackendState, expected: str | None
) -> None:
    """Live routing passes a backend by while it waits out its 429's `Retry-After`; a shadow
    offered then, or a queued one starting then, is dropped as `rate_limited` (replayed, it
    asked the provider that asked to be left alone; found in review). A target full or with
    its circuit open is `saturated`, as before."""
    config, record = _config(rates={"math": 1.0}), _record("math", "cloud")
    decision = decide(record, config, {"local": state})
    assert decision is not None and decision.drop == expected
    assert decision.target == (None if expected else "local")
    assert held_back(record, "local", config, {"local": state}) == expected


def test_failed_live_requests_are_not_shadowed() -> None:
    record = _record("math", "cloud")
    record.outcome = "upstream_error"
    assert _sampled(record, _config(rates={"math": 1.0}), {}, random.Random(0)) is None


def test_targets_are_backends_that_speak_chat() -> None:
    """The shadow asks in chat: the default target skips the route's Responses-only cloud
    backend for one that speaks chat, and with none such the job is dropped as
    `api_unsupported`."""
    backends = [
        {"name": "local", "tier": "local", "base_url": "http://127.0.0.1:9/v1", "model": "m"},
        {
            "name": "cloud",
            "tier": "cloud",
            "base_url": "http://127.0.0.1:9/v1",
            "model": "c",
            "apis": ["responses"],
        },
    ]
    shadow = {"rates": {"coding": 1.0}, "allow_cloud_targets": True}
    alone = parse({"backends": backends, "shadow": shadow})
    record = _record("coding", backend="local")
    decision = _sampled(record, alone, {}, random.Random(0))
    assert decision is not None and decision.drop == "api_unsupported"
    chat = {"name": "cloud2", "tier": "cloud", "base_url": "http://127.0.0.1:9/v1", "model": "d"}
    beside = parse({"backends": [*backends, chat], "shadow": shadow})
    assert default_target(record, beside) == "cloud2"
    decision = _sampled(record, beside, {}, random.Random(0))
    assert decision is not None and decision.target == "cloud2"


@pytest.mark.parametrize(
    ("shadow", "expected"),
    [
        ({}, "rate_zero"),  # shadowing turned off altogether
        ({"rates": {"math": 0.0}}, "rate_zero"),
        ({"rates": {"math": 1.0}, "route_rates": {"math": 0.0}}, "rate_zero"),  # the route's wins
        ({"rates": {"math": 0.01}}, None),  # lowered, not to 0: no second roll
    ],
)
def test_a_pick_whose_rate_a_reload_set_to_0_is_not_replayed(
    shadow: dict[str, Any], expected: str | None
) -> None:
    """Picked at rate 1 as it arrived, then decided (and its queued job started) under the
    reloaded config: a rate of 0 there is a `rate_zero` drop, before any other reason (the
    target is saturated here too); a lower rate still replays it, unless saturated."""
    record = _record("math")
    assert rolls(record, _config(rates={"math": 1.0}), random.Random(0))
    reloaded = _config(**shadow)
    full = {"local": BackendState(saturated=True)}
    decision = decide(record, reloaded, {})
    assert decision is not None and decision.drop == expected
    assert held_back(record, "local", reloaded, {}) == expected
    assert held_back(record, "local", reloaded, full) == (expected or "saturated")
    saturated = decide(record, reloaded, full)
    assert saturated is not None and saturated.drop == (expected or "saturated")


@pytest.mark.parametrize(
    ("private", "shadow", "tier", "expected"),
    [
        (False, {"allow_cloud_targets": False}, "cloud", "not_allowed"),  # turned off
        (True, {"allow_cloud_targets": True}, "cloud", "private"),  # target moved to the cloud
        (False, {"allow_cloud_targets": True}, "cloud", None),  # moved, and allowed there
        (True, {"allow_cloud_targets": False}, "local", None),  # still local: fine
        (False, {"allow_cloud_targets": True}, None, "no_target"),  # removed
    ],
)
def test_a_queued_job_starts_only_where_the_reloaded_config_lets_its_offer_go(
    private: bool, shadow: dict[str, Any], tier: str | None, expected: str | None
) -> None:
    """A job queued toward `gpu` (local, cloud targets allowed), then a reload: `held_back`
    asks the rule `decide` asked at its offer, under the new config. It asked only the rate
    and the target's room (found in review), so queued jobs, private ones too, went to a
    backend the reload had made cloud or forbidden."""
    gpu = {"name": "gpu", "tier": "local", "base_url": "http://127.0.0.1:9/v1", "model": "g"}
    backends = [
        {"name": "cloud", "tier": "cloud", "base_url": "http://127.0.0.1:9/v1", "model": "c"},
        {"name": "local", "tier": "local", "base_url": "http://127.0.0.1:9/v1", "model": "m"},
    ]
    routes = {intent: ["local"] for intent in INTENTS}
    settings = {"rates": {"math": 1.0}, "targets": {"math": "gpu"}, "allow_cloud_targets": True}
    queued = parse({"backends": [*backends, gpu], "routes": routes, "shadow": settings})
    record = _record("math", "local", private=private)
    offered = decide(record, queued, {})
    assert offered is not None and offered.target == "gpu"
    if tier is None:  # removed, and its `targets` entry with it (one naming no backend is refused)
        moved, settings = backends, {"rates": {"math": 1.0}}
    else:
        moved = [*backends, {**gpu, "tier": tier}]
    reloaded = parse({"backends": moved, "routes": routes, "shadow": {**settings, **shadow}})
    assert held_back(record, "gpu", reloaded, {}) == expected
    full = {"gpu": BackendState(saturated=True)}
    assert held_back(record, "gpu", reloaded, full) == (expected or "saturated")


def test_a_queued_job_whose_target_a_reload_moved_is_dropped_not_resent() -> None:
    """Queued toward `local` (the default target of a cloud-served request), then a reload:
    a `shadow.targets` entry naming another backend, or a new default target (a local
    backend listed first), aims new samples elsewhere, and the job is dropped as
    `target_changed` (`held_back` asked only whether the old target was still allowed, so
    queued jobs went on to it). A reload that leaves the target where it was starts it."""
    record = _record("math")
    offered = decide(record, _config(rates={"math": 1.0}), {})
    assert offered is not None and offered.target == "local"
    two = _config().model_dump(mode="json")["backends"]
    gpu = {**two[0], "name": "gpu"}
    rates, routes = {"rates": {"math": 1.0}}, {intent: ["cloud"] for intent in INTENTS}
    pointed = parse({"backends": [*two, gpu], "shadow": {**rates, "targets": {"math": "gpu"}}})
    assert held_back(record, "local", pointed, {}) == "target_changed"
    first = parse({"backends": [gpu, *two], "routes": routes, "shadow": rates})
    assert default_target(record, first) == "gpu"
    assert held_back(record, "local", first, {}) == "target_changed"
    beside = parse({"backends": [*two, gpu], "routes": routes, "shadow": rates})  # local first
    assert held_back(record, "local", beside, {}) is None
    full = {"local": BackendState(saturated=True)}
    assert held_back(record, "local", beside, full) == "saturated"
