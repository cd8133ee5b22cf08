"""The routing decision, table-driven: a pure function, so no server is needed."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from classifier import classify
from classifier.intent import INTENTS, Intent
from router.config import Config, parse
from router.policy import BackendState, Demand, plan
from router.target import Target, resolve_target


def config(**extra: object) -> Config:
    return parse(
        {
            "backends": [
                {
                    "name": "local",
                    "tier": "local",
                    "base_url": "http://l/v1",
                    "model": "m",
                    "context_window": 1000,
                },
                {
                    "name": "cloud",
                    "tier": "cloud",
                    "base_url": "http://c/v1",
                    "model": "g",
                    "context_window": 100000,
                },
                {"name": "big", "tier": "cloud", "base_url": "http://b/v1", "model": "b"},
            ],
            "aliases": {"auto": "auto", "smart": "math", "fast": "local"},
            **extra,
        }
    )


CFG = config()
AUTO = Target("auto")


def test_coding_goes_local_first_then_cloud() -> None:
    p = plan(Intent("coding", 0.9, "model"), AUTO, Demand(), {}, CFG)
    assert p.backends == ("local", "cloud")
    assert [s.reason for s in p.steps] == ["route", "fallback"]


def test_math_goes_cloud_first() -> None:
    p = plan(Intent("math", 0.9, "model"), AUTO, Demand(), {}, CFG)
    assert p.backends == ("cloud", "local")


def test_low_confidence_uses_default_route() -> None:
    p = plan(Intent("math", 0.1, "model"), AUTO, Demand(), {}, CFG)
    assert p.route == CFG.classifier.default_route
    assert p.backends[0] == "local"


def test_private_request_never_leaves_local_tier() -> None:
    p = plan(Intent("math", 0.9, "model"), AUTO, Demand(private=True), {}, CFG)
    assert p.backends == ("local",)
    assert ("cloud", "private") in {(s.backend, s.reason) for s in p.skipped}


def test_open_circuit_is_skipped() -> None:
    states = {"local": BackendState(circuit="open")}
    p = plan(Intent("coding", 0.9, "model"), AUTO, Demand(), states, CFG)
    assert p.backends == ("cloud",)


def test_saturated_local_overflows_to_cloud_but_stays_last_resort() -> None:
    states = {"local": BackendState(saturated=True)}
    p = plan(Intent("coding", 0.9, "model"), AUTO, Demand(), states, CFG)
    assert p.backends == ("cloud", "local")
    assert p.steps[1].reason == "overflow_last"


def test_prompt_larger_than_window_skips_backend() -> None:
    p = plan(Intent("coding", 0.9, "model"), AUTO, Demand(prompt_tokens=1100), {}, CFG)
    assert p.backends == ("cloud",)
    assert p.skipped[0].reason == "context_window"


def test_room_asked_for_output_past_the_window_skips_backend_for_its_own_reason() -> None:
    """The prompt fits; the prompt and `max_tokens` do not. A reason of its own: the next
    turn may ask for less, so it must not read as a conversation grown too long."""
    p = plan(
        Intent("coding", 0.9, "model"), AUTO, Demand(prompt_tokens=900, max_tokens=200), {}, CFG
    )
    assert p.backends == ("cloud",)
    assert p.skipped[0].reason == "max_tokens_window"


def test_quality_gate_applies_to_auto_but_not_forced_routes() -> None:
    states = {"local": BackendState(gated_intents=frozenset({"coding"}))}
    auto = plan(Intent("coding", 0.9, "model"), AUTO, Demand(), states, CFG)
    forced = plan(
        Intent("coding", 1.0, "forced"), Target("backend", "local"), Demand(), states, CFG
    )
    assert auto.backends == ("cloud",)
    assert forced.backends == ("local",)


def test_a_request_without_text_is_gated_by_the_route_it_takes_not_its_placeholder_label() -> None:
    """An image-only request (no text: label `writing`, confidence 0) went to the default
    route but was checked against the `writing` gate: a private one got a plan with no
    backend at all (found in review)."""
    image_only = {"messages": [{"role": "user", "content": [{"type": "image_url"}]}]}
    unread = classify(image_only)
    assert (unread.confidence, unread.source) == (0.0, "default")
    writing_gated = {"local": BackendState(gated_intents=frozenset({"writing"}))}
    private = plan(unread, AUTO, Demand(private=True), writing_gated, CFG)
    assert (private.route, private.backends) == ("coding", ("local",))
    coding_gated = {"local": BackendState(gated_intents=frozenset({"coding"}))}
    assert plan(unread, AUTO, Demand(), coding_gated, CFG).backends == ("cloud",)


def test_sticky_backend_moves_first() -> None:
    p = plan(Intent("math", 0.9, "model"), AUTO, Demand(sticky_backend="local"), {}, CFG)
    assert p.backends == ("local", "cloud")
    assert p.steps[0].reason == "sticky"


@pytest.mark.parametrize(
    ("model", "mode", "name"),
    [
        ("auto", "auto", ""),
        ("smart", "route", "math"),
        ("fast", "backend", "local"),
        ("coding", "route", "coding"),
        ("cloud", "backend", "cloud"),
    ],
)
def test_model_names_resolve(model: str, mode: str, name: str) -> None:
    target = resolve_target(model, CFG)
    assert target is not None and (target.mode, target.name) == (mode, name)


def test_unknown_model_resolves_to_nothing() -> None:
    assert resolve_target("gpt-17", CFG) is None


@given(
    label=st.sampled_from(INTENTS),
    confidence=st.floats(0, 1),
    private=st.booleans(),
    prompt=st.integers(0, 200_000),
    circuits=st.lists(st.sampled_from(["closed", "open", "half_open"]), min_size=3, max_size=3),
    saturated=st.lists(st.booleans(), min_size=3, max_size=3),
)
def test_plan_only_names_configured_backends_once(
    label: str,
    confidence: float,
    private: bool,
    prompt: int,
    circuits: list[str],
    saturated: list[bool],
) -> None:
    names = ["local", "cloud", "big"]
    states = {
        n: BackendState(circuit=c, saturated=s)
        for n, c, s in zip(names, circuits, saturated, strict=True)
    }  # type: ignore[arg-type]
    p = plan(
        Intent(label, confidence, "model"),
        AUTO,
        Demand(prompt_tokens=prompt, private=private),
        states,
        CFG,
    )  # type: ignore[arg-type]
    assert len(set(p.backends)) == len(p.backends)
    assert set(p.backends) <= set(names)
    for name in p.backends:
        assert states[name].circuit != "open"
        if private:
            assert CFG.backend(name).tier == "local"


def test_a_configured_context_window_wins_over_the_learned_one() -> None:
    """The README says `context_window` is used, "else learned from /v1/models"; the learned
    value overrode it (found in review), so a smaller configured budget was ignored."""
    from router.policy import context_window

    config = parse(
        {
            "backends": [
                {"name": "a", "tier": "local", "base_url": "http://x/v1", "model": "m",
                 "context_window": 1000},
                {"name": "b", "tier": "local", "base_url": "http://x/v1", "model": "m"},
            ],
            "routes": {i: ["a", "b"] for i in INTENTS},
        }
    )  # fmt: skip
    learned = BackendState(context_window=262144)
    assert context_window(learned, config.backend("a")) == 1000
    assert context_window(learned, config.backend("b")) == 262144
