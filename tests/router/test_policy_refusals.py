"""What a request every backend skipped is told (`router.refusals`): a reason that holds
after an open circuit closes again is the one that counts, and the 503 reads as English."""

from __future__ import annotations

from dataclasses import replace

import pytest

from classifier.intent import INTENTS, Intent
from router.api.errors import error_headers
from router.attempt_errors import ContextTooLong, Cut, OutputTooLong
from router.config import Config, parse
from router.errors import (
    BadRequestTooLong,
    NoBackendAvailable,
    RateLimitedBackends,
    error_kind,
)
from router.policy import BackendState, Demand, detoured, plan
from router.refusals import named_as_sent, nothing_tried
from router.target import Target

MATH = Intent("math", 0.9, "model")
PRIVATE = Demand(private=True)


def config() -> Config:
    backends = [
        {"name": n, "tier": "local", "base_url": f"http://{n}/v1", "model": "m"}
        for n in ("local", "local2")
    ]
    cloud = {"name": "cloud", "tier": "cloud", "base_url": "http://c/v1", "model": "g"}
    backends[0]["context_window"] = 64
    routes = {intent: ["local", "local2", "cloud"] for intent in INTENTS}
    return parse({"backends": [*backends, cloud], "routes": routes})


CFG = config()
OPEN = BackendState(circuit="open", circuit_retry_in_s=7.5)


def test_a_prompt_too_long_for_a_window_is_a_400_though_the_circuit_is_open() -> None:
    """Checked first, the open circuit answered 503 "retry in 8 s" with x-should-retry true,
    and after the wait the request got the 400 it could have had at once (found in
    re-review)."""
    p = plan(MATH, Target("backend", "local"), Demand(prompt_tokens=500), {"local": OPEN}, CFG)
    assert [(s.backend, s.reason) for s in p.skipped] == [("local", "context_window")]
    assert p.retry_in_s is None
    assert isinstance(nothing_tried(p, "chat", None), BadRequestTooLong)


def test_a_gated_backend_with_its_circuit_open_is_told_as_gated() -> None:
    """The gate's round is what reopens it (minutes), not the circuit's trial (seconds):
    named as the circuit, the SDK was sent back in seconds into the same refusal."""
    gated = BackendState(
        circuit="open",
        circuit_retry_in_s=7.5,
        gated_intents=frozenset({"math"}),
        gate_retry_in_s=600.0,
    )
    states = {"local": gated, "local2": gated}
    p = plan(MATH, Target("auto"), PRIVATE, states, CFG)
    assert [s.reason for s in p.skipped] == ["quality_gate", "quality_gate", "private"]
    error = nothing_tried(p, "chat", None)
    assert isinstance(error, NoBackendAvailable) and error.retry_after == 600
    assert "the canary closed the quality gate of route 'math'" in str(error)
    assert "circuit" not in str(error)
    assert error_headers(error)["x-should-retry"] == "false"


def test_a_gated_backend_with_its_circuit_open_waits_for_both() -> None:
    """The canary skips a round of a backend whose circuit is open: its gate cannot reopen
    before the circuit closes. Told the gate's 4 s, the client came back to the same
    refusal (found in re-review). A live trial (no time for the circuit): none."""
    gated = BackendState(
        circuit="open",
        circuit_retry_in_s=45.0,
        gated_intents=frozenset({"math"}),
        gate_retry_in_s=4.0,
    )
    p = plan(MATH, Target("auto"), PRIVATE, {"local": gated, "local2": gated}, CFG)
    assert [s.reason for s in p.skipped] == ["quality_gate", "quality_gate", "private"]
    assert p.retry_in_s == 45.0
    trial = replace(gated, circuit_retry_in_s=None)
    states = {"local": trial, "local2": trial}
    assert plan(MATH, Target("auto"), PRIVATE, states, CFG).retry_in_s is None


def test_a_short_wait_is_told_beside_one_not_known_a_long_one_is_not() -> None:
    """A router following the CronJob never knows a gate's time: told nothing beside a
    circuit due in 8 s, the SDK gave up after its own short backoff (found in re-review).
    A long wait beside an unknown one stays untold: the unknown may serve any moment."""
    gated = BackendState(gated_intents=frozenset({"math"}), gate_retry_in_s=None)
    for due, told in ((8.0, 8.0), (59.4, None), (120.0, None)):  # 59.4 is sent as 60
        states = {"local": gated, "local2": replace(OPEN, circuit_retry_in_s=due)}
        p = plan(MATH, Target("auto"), PRIVATE, states, CFG)
        assert [s.reason for s in p.skipped] == ["quality_gate", "circuit_open", "private"]
        assert p.retry_in_s == told


def test_several_open_circuits_are_named_in_the_plural() -> None:
    states = {"local": OPEN, "local2": BackendState(circuit="open", circuit_retry_in_s=2.0)}
    p = plan(MATH, Target("auto"), PRIVATE, states, CFG)
    error = nothing_tried(p, "chat", None)
    assert isinstance(error, NoBackendAvailable) and error.retry_after == 2
    assert "the circuits of 'local', 'local2' are open after failures" in str(error)
    one = plan(MATH, Target("backend", "local2"), PRIVATE, states, CFG)
    assert "the circuit of 'local2' is open after failures" in str(nothing_tried(one, "chat", None))


def test_a_backend_waiting_out_a_429_is_passed_by_and_waited_for() -> None:
    """Its circuit closed, it is skipped while the wait runs (`rate_limited`, a passing
    reason: the request moves on, a detour that pins no conversation); when nothing else
    can serve, the 503 waits for the soonest, and an open circuit is not retried before its
    429's wait ends either."""
    limited = BackendState(rate_limited_for_s=12.0)
    p = plan(MATH, Target("auto"), Demand(), {"local": limited}, CFG)
    assert [s.backend for s in p.steps] == ["local2", "cloud"]
    assert [(s.backend, s.reason) for s in p.skipped] == [("local", "rate_limited")]
    assert detoured(p, [], "local2")
    states = {"local": limited, "local2": replace(OPEN, rate_limited_for_s=30.0)}
    p = plan(MATH, Target("auto"), PRIVATE, states, CFG)
    assert [s.reason for s in p.skipped] == ["rate_limited", "circuit_open", "private"]
    error = nothing_tried(p, "chat", None)
    assert isinstance(error, NoBackendAvailable) and error.retry_after == 12
    assert "'local' answered a rate limit with a Retry-After" in str(error)
    p = plan(MATH, Target("backend", "local2"), PRIVATE, states, CFG)
    assert p.retry_in_s == 30.0  # not the circuit's 7.5 s: its trial would meet the 429


def test_only_rate_limits_waits_keeping_the_backends_away_is_a_429() -> None:
    """Every backend that could serve waits out a 429 (the others ruled out for good: a
    window, the privacy): a 429, as the backend's own would have been. A backend away for
    another passing reason beside it (an open circuit) keeps the 503."""
    limited = BackendState(rate_limited_for_s=12.0)
    states = {"local": limited, "local2": limited}
    p = plan(MATH, Target("auto"), Demand(prompt_tokens=500, private=True), states, CFG)
    assert [s.reason for s in p.skipped] == ["context_window", "rate_limited", "private"]
    error = nothing_tried(p, "chat", None)
    assert (error.status, error.type) == (429, "rate_limit_error")
    assert error.code == "rate_limit_exceeded"
    assert isinstance(error, RateLimitedBackends) and error.retry_after == 12
    assert error_kind(error) == "no_backend_available"  # the ledger's and metrics' kind
    states = {"local": limited, "local2": OPEN}
    p = plan(MATH, Target("auto"), PRIVATE, states, CFG)
    assert [s.reason for s in p.skipped] == ["rate_limited", "circuit_open", "private"]
    assert nothing_tried(p, "chat", None).status == 503


def test_a_limit_a_window_holds_without_is_lowered_now_not_waited_for() -> None:
    """One backend's window holds the prompt but not the `max_tokens` sent, the others wait
    out a 429 or an open circuit: the client was told to wait 10 minutes, where lowering
    `max_tokens` is served at once (found in review; Claude Code lowers it on the numbers).
    Without a limit sent there is nothing to lower: the wait is told."""
    limited = BackendState(rate_limited_for_s=600.0)
    for away in (limited, OPEN):
        states = {"local2": away, "cloud": away}
        p = plan(MATH, Target("auto"), Demand(prompt_tokens=40, max_tokens=100), states, CFG)
        assert {s.reason for s in p.skipped} == {"max_tokens_window", away_reason(away)}
        error = nothing_tried(p, "messages", ("max_tokens", 100))
        assert isinstance(error, BadRequestTooLong) and error.param == "max_tokens"
        assert error.sizes is not None and error.sizes.limit == 64
        assert "cloud: " in str(error) and "lower max_tokens" in str(error)
        assert nothing_tried(p, "messages", None).status in (429, 503)


def away_reason(state: BackendState) -> str:
    return "rate_limited" if state.rate_limited_for_s else "circuit_open"


@pytest.mark.parametrize(
    ("sent", "backend_says", "named"),
    [
        ({"max_completion_tokens": 600}, "max_tokens", "max_completion_tokens"),
        ({"max_tokens": 600}, "max_completion_tokens", "max_tokens"),  # OpenAI's adapter
        ({}, "max_completion_tokens", "max_completion_tokens"),  # none set: the backend's
        ({"max_tokens": None}, "max_output_tokens", "max_tokens"),  # not chat's: chat's own
    ],
)
def test_a_chat_backends_output_limit_refusal_names_the_limit_the_client_sent(
    sent: dict[str, int | None], backend_says: str, named: str
) -> None:
    """OpenAI's adapter sends chat's `max_tokens` as `max_completion_tokens`, and its
    refusal names that one; the client hears of the field it set. (The simulator's vLLM
    names the one it was sent: `tests/router/test_context_param.py` for the other APIs.)"""
    refused = OutputTooLong("over the window", backend="cloud", param=backend_says)
    body = {"messages": [{"role": "user", "content": "Hi"}], **sent}
    assert named_as_sent(refused, "chat", body).param == named


def test_only_a_context_refusal_is_renamed() -> None:
    """A prompt refusal names the API's prompt field; any other error keeps its own."""
    long = ContextTooLong("too long", backend="local", param="messages")
    assert named_as_sent(long, "completions", {"prompt": "Hi"}).param == "prompt"
    cut = Cut("the reply broke off", backend="local")
    assert named_as_sent(cut, "completions", {"prompt": "Hi"}).param is None
