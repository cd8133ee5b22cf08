"""`detoured`: whether the backend that served reached the request only through another's
passing trouble, so that its conversation must not stick there. Pure: plans and attempts
made by hand, no server."""

from __future__ import annotations

import pytest

from classifier.intent import Intent
from router.config import parse
from router.policy import BackendState, Demand, detoured, plan
from router.record import Attempt
from router.target import Target

CFG = parse(
    {
        "backends": [
            {"name": "local", "tier": "local", "base_url": "http://l/v1", "model": "m"},
            {"name": "cloud", "tier": "cloud", "base_url": "http://c/v1", "model": "g"},
        ],
        "routes": {
            **{i: ["local", "cloud"] for i in ("coding", "tool_calling", "instruction")},
            **{i: ["cloud", "local"] for i in ("math", "reasoning", "prose", "writing")},
        },
    }
)
AUTO = Target("auto")
CODING, MATH = Intent("coding", 0.9, "model"), Intent("math", 0.9, "model")


def failed(backend: str, kind: str) -> Attempt:
    return Attempt(backend, "local" if backend == "local" else "cloud", "error", kind)


def served(backend: str) -> Attempt:
    return Attempt(backend, "local" if backend == "local" else "cloud")


@pytest.mark.parametrize(
    ("case", "local", "attempts", "want"),
    [
        ("local answered", BackendState(), [served("local")], False),
        ("local's 429", BackendState(), [failed("local", "rate_limited"), served("cloud")], True),
        ("local timed out", BackendState(), [failed("local", "timeout"), served("cloud")], True),
        ("local's circuit open", BackendState(circuit="open"), [served("cloud")], True),
        ("local saturated", BackendState(saturated=True), [served("cloud")], True),
        (
            "local gated",
            BackendState(gated_intents=frozenset({"coding"})),
            [served("cloud")],
            True,
        ),
        ("too long for local", BackendState(context_window=10), [served("cloud")], False),
        ("output too long for local", BackendState(context_window=150), [served("cloud")], True),
        (
            "local's context error",
            BackendState(),
            [failed("local", "context_too_long"), served("cloud")],
            False,
        ),
        (
            "local refused max_tokens over its window",
            BackendState(),
            [failed("local", "output_too_long"), served("cloud")],
            True,
        ),
        (
            "local retried after a short Retry-After",
            BackendState(),
            [failed("local", "rate_limited"), served("local")],
            False,
        ),
    ],
)
def test_a_detour_is_passing_trouble_before_the_backend_that_served(
    case: str, local: BackendState, attempts: list[Attempt], want: bool
) -> None:
    demand = Demand(prompt_tokens=100, max_tokens=100)
    the_plan = plan(CODING, AUTO, demand, {"local": local}, CFG)
    assert detoured(the_plan, attempts, attempts[-1].backend) is want, case


def test_trouble_after_the_backend_that_served_is_no_detour() -> None:
    """The cloud down or full does not keep a coding conversation from sticking to local."""
    states = {"cloud": BackendState(circuit="open")}
    assert not detoured(plan(CODING, AUTO, Demand(), states, CFG), [served("local")], "local")
    full = plan(CODING, AUTO, Demand(), {"cloud": BackendState(saturated=True)}, CFG)
    assert not detoured(full, [served("local")], "local")


def test_a_cloud_first_route_detours_to_local_the_same_way() -> None:
    math = plan(MATH, AUTO, Demand(), {}, CFG)
    assert detoured(math, [failed("cloud", "overloaded"), served("local")], "local")


def test_a_hiccup_of_the_pinned_backend_does_not_move_the_pin() -> None:
    """Pinned to the cloud (a math turn), a coding turn tries the cloud first: its 429 sends
    the turn to local, and the pin stays where it was."""
    pinned = plan(CODING, AUTO, Demand(sticky_backend="cloud"), {}, CFG)
    assert pinned.preference == ("cloud", "local")
    assert detoured(pinned, [failed("cloud", "rate_limited"), served("local")], "local")
    assert not detoured(pinned, [served("cloud")], "cloud")


def test_a_streamed_turn_of_several_choices_past_a_litellm_backend_is_a_detour() -> None:
    """A streamed `n: 2` turn skips a litellm backend for that request alone: the cloud that
    served it is no new home for the conversation (it moved the pin for the session: found
    in review)."""
    lite = parse(
        {
            "backends": [
                {"name": "lite", "tier": "cloud", "kind": "litellm", "model": "openai/m"},
                {"name": "local", "tier": "local", "base_url": "http://l/v1", "model": "m"},
            ],
            "routes": {i: ["lite", "local"] for i in ("coding", "math", "writing")}
            | {i: ["local"] for i in ("tool_calling", "instruction", "reasoning", "prose")},
        }
    )
    several = plan(CODING, AUTO, Demand(several_choices=True), {}, lite)
    assert [s.reason for s in several.skipped] == ["choices_unsupported"]
    assert detoured(several, [served("local")], "local")


def test_a_turn_past_the_pin_waiting_for_its_live_trial_is_a_detour() -> None:
    """Pinned to local, whose circuit is half-open (a hang's, which only a live request may
    try): the pin is not put first, and a math turn goes to the cloud, its route's first,
    local untried. A detour all the same: the pin must stay on local (it moved to the cloud
    for the session: found in review)."""
    states = {"local": BackendState(circuit="half_open")}
    math = plan(MATH, AUTO, Demand(sticky_backend="local"), states, CFG)
    assert [s.backend for s in math.steps] == ["cloud", "local"]
    assert detoured(math, [served("cloud")], "cloud")
    assert not detoured(math, [failed("cloud", "overloaded"), served("local")], "local")
