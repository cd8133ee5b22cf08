"""A backend whose half-open trial is a live request (no probe: a litellm backend, or one
that refused the router's key) reads open while that request runs: its time for a trial is
past, and every other request was told "retry in 1 s" for as long as the trial ran, minutes
for a completion (found in re-review). While it runs, when is not known; a probe's trial
ends within the probe's timeout, and its time stands. A stand-in clock: no server."""

from __future__ import annotations

from types import SimpleNamespace
from unittest.mock import MagicMock

from classifier.intent import Intent
from router.api.errors import error_headers
from router.config import parse
from router.errors import NoBackendAvailable
from router.policy import Demand, plan
from router.refusals import nothing_tried
from router.resilience import Resilience
from router.target import Target

OPEN_S = 8.0


def resilience(clock: list[float]) -> Resilience:
    backends = [
        {"name": "local", "tier": "local", "base_url": "http://l/v1", "model": "m"},
        {"name": "cloud", "tier": "cloud", "base_url": "http://c/v1", "model": "g"},
    ]
    settings = {"open_s": OPEN_S, "max_open_s": OPEN_S}
    config = parse({"backends": backends, "resilience": settings})
    components = SimpleNamespace(config=config, metrics=MagicMock())
    return Resilience(components, clock=lambda: clock[0])  # type: ignore[arg-type]


def refusal(source: Resilience, private: bool = True) -> dict[str, str]:
    """The headers of a (private) request's 503, local (and cloud) being away."""
    states = source.states()
    p = plan(
        Intent("coding", 0.9, "model"),
        Target("auto"),
        Demand(private=private),
        states,
        source.components.config,
    )
    error = nothing_tried(p, "chat", None)
    assert isinstance(error, NoBackendAvailable), error
    return error_headers(error)


def open_local(source: Resilience) -> None:
    for _ in range(3):
        source.health.failed("local", "unreachable")


def test_while_a_live_trial_runs_no_time_is_promised() -> None:
    clock = [0.0]
    source = resilience(clock)
    source.health.live_trials = {"local"}
    open_local(source)
    assert refusal(source)["retry-after"] == "8"
    clock[0] = OPEN_S
    source.health.attempt_started("local", "local")  # the trial: a long completion
    for at in (OPEN_S + 0.5, 60.0, 300.0):
        clock[0] = at
        assert source.states()["local"].circuit == "open"
        headers = refusal(source)
        assert "retry-after" not in headers and "x-should-retry" not in headers, (at, headers)
    source.health.failed("local", "timeout")  # the trial failed: the next one has a time
    assert refusal(source)["retry-after"] == "8"  # at the cap (max_open_s)


def test_while_a_probe_trial_runs_its_time_stands() -> None:
    clock = [0.0]
    source = resilience(clock)
    open_local(source)
    clock[0] = OPEN_S + 0.2
    assert source.health.claim_probe_trial("local")
    assert refusal(source) == {"retry-after": "1", "x-should-retry": "true"}


def test_a_live_trial_beside_a_gate_promises_no_time() -> None:
    """Cloud's live trial may end (and cloud serve) any moment: told local's gate's wait,
    minutes and "do not retry", the client stayed away that long (found in re-review)."""
    clock = [0.0]
    source = resilience(clock)
    source.gate_sources.append(lambda: {"local": frozenset({"coding"})})
    source.gate_reviews.append(lambda backend: 895.0)  # local's next canary round ends then
    source.health.live_trials = {"cloud"}
    for _ in range(3):
        source.health.failed("cloud", "unreachable")
    assert refusal(source, private=False)["retry-after"] == "8"  # cloud's trial, the sooner
    clock[0] = OPEN_S
    source.health.attempt_started("cloud", "cloud")  # the trial: a long completion
    clock[0] = OPEN_S + 1
    headers = refusal(source, private=False)
    assert "retry-after" not in headers and "x-should-retry" not in headers, headers
