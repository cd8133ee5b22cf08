"""The routing decision: a pure function from request facts and backend states to a `Plan`.

The route comes from `router.target` (what the client named, and why a request takes its
route); this orders that route's backends. No I/O here. Dispatch executes the plan; explain
shows it without sending anything.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from classifier.intent import Intent
from router.backend_state import BackendState
from router.backend_state import Circuit as Circuit  # named here before it had a module
from router.config import Backend as BackendSettings
from router.config import Config
from router.failed_requests import FAILED_HERE, Fingerprint
from router.record import Api, Attempt
from router.target import Target, route_for
from router.translate.pairing import can_serve, native
from router.vllm_fields import is_vllm, reads_every_tool

# The longest wait every SDK sleeps through on its own (`router.api.errors.SDK_WAIT_S`: a
# 503 says `x-should-retry: true` below it): one this short is worth telling even beside a
# backend whose time is not known.
SHORT_WAIT_S = 60.0

# Why a backend was skipped, when no retry can change it: the prompt, the API, the privacy,
# the stored response another backend holds, vLLM's own fields it would lose.
# The others (circuit open, a 429's or a 503's wait, quality gate) pass, and so does a
# saturation.
PERMANENT_SKIPS = frozenset(
    {
        "context_window",
        "max_tokens_window",
        "api_unsupported",
        "private",
        "choices_unsupported",
        "n_unsupported",
        "response_elsewhere",
        "vllm_fields",
    }
)
# Those that hold for the conversation too, not only this request (a detour does not move
# its pin). Not so, each this turn's choice: `n` > 1 past a backend that cannot answer it, the
# output room asked (`max_tokens`) past a window, vLLM's own constraint (`structured_outputs`).
_THIS_TURN = {"choices_unsupported", "n_unsupported", "max_tokens_window", "vllm_fields"}
LASTING_SKIPS = PERMANENT_SKIPS - _THIS_TURN
# The passing ones: a 503's `Retry-After` says when the soonest of them may serve again.
PASSING = frozenset({"circuit_open", "rate_limited", "overloaded", "quality_gate", FAILED_HERE})
# Why an attempt failed, when no retry can change it: the backend said the prompt is too long
# (an attempt dispatch skipped after that failure has the same kind).
PERMANENT_FAILURES = frozenset({"context_too_long"})


@dataclass(frozen=True, slots=True)
class Demand:
    """The facts of one request that routing depends on."""

    api: Api = "chat"
    # The prompt a window must hold beside `max_tokens` (`request_size.window_prompt_tokens`:
    # a completions batch's longest, each prompt checked on its own as vLLM does)
    prompt_tokens: int = 0
    # The prompt a backend speaking the API itself (not Anthropic's) reads, where it is more:
    # vLLM's Messages renders deferred tools (`request_size.window_tokens`)
    native_prompt_tokens: int | None = None
    max_tokens: int | None = None
    private: bool = False
    sticky_backend: str | None = None
    several_choices: bool = False  # a streamed chat request for `n` > 1 choices
    choices_asked: bool = False  # a chat request for `n` > 1 choices, streamed or not
    # The backend that stored the Responses reply this turn continues (`previous_response_id`):
    # no other holds the conversation (`router.stored_responses`)
    response_home: str | None = None
    # The field naming a conversation stored on the server (`previous_response_id`,
    # `conversation`): no chat backend has it, translated or not
    server_state: str | None = None
    vllm_field: str | None = None  # vLLM's own output constraint (`router.vllm_fields`)
    # The request's fingerprint (`router.failed_requests`), worked out only when a backend
    # of the plan remembers failing some and its trial is due: a backend that failed this
    # request does not take it as its half-open trial while another backend can
    fingerprint: Fingerprint | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Step:
    backend: str
    reason: str
    # The backend's context window as the plan judged it (`context_window`: configured, else
    # learned from `/v1/models`): after one backend refuses a prompt as too long, dispatch
    # skips those whose window is no larger. It read the configured window alone, and tried
    # a backend whose learned window was smaller (found in review).
    window: int | None = None


@dataclass(frozen=True, slots=True)
class Plan:
    intent: Intent
    target: Target
    route: str
    steps: tuple[Step, ...]
    skipped: tuple[Step, ...] = field(default=())
    # The backends in the order they would be tried were nothing down, full or failing:
    # the sticky backend, then the route's (or the forced backend), skipped ones included.
    preference: tuple[str, ...] = field(default=())
    response_home: str | None = None  # `Demand.response_home`: its refusal names it
    server_state: str | None = None  # `Demand.server_state`: its refusal names it
    # The soonest a backend skipped for a passing reason (circuit open, quality gate) may
    # serve again, in seconds (None: none was, or one's time is not known): the 503's
    # Retry-After
    retry_in_s: float | None = None
    prompt_tokens: int = 0  # `Demand.prompt_tokens`: a refusal of length says it
    vllm_field: str | None = None  # `Demand.vllm_field`: a refusal names it
    # Of the backends skipped for it, the local ones (through litellm): a refusal says why
    vllm_litellm: tuple[str, ...] = ()

    @property
    def backends(self) -> tuple[str, ...]:
        return tuple(step.backend for step in self.steps)


def plan(
    intent: Intent,
    target: Target,
    demand: Demand,
    states: Mapping[str, BackendState],
    config: Config,
) -> Plan:
    """Order the route's backends for this request, skipping those that cannot serve it."""
    demand = _pinned(target, demand)
    route = route_for(intent, target, config)
    members = [target.name] if target.mode == "backend" else list(config.routes[route])
    home = demand.response_home
    if home and home not in members and target.mode != "backend":
        members.append(home)  # whatever the route: only it can continue the conversation
    first_reason = "forced" if target.mode != "auto" else "route"
    steps: list[Step] = []
    overflow: list[Step] = []
    skipped: list[Step] = []
    for position, name in enumerate(members):
        state = states.get(name, BackendState())
        why_not = _unfit(name, route, target, demand, state, config)
        window = context_window(state, config.backend(name))
        if why_not:  # with its window, which a refusal of length names (`router.refusals`)
            skipped.append(Step(name, why_not, window))
            continue
        step = Step(name, first_reason if position == 0 else "fallback", window)
        (overflow if state.saturated else steps).append(step)
    steps, overflow, skipped = _not_again(steps, overflow, skipped, demand, states)
    if overflow and steps:
        overflow = [replace(s, reason="overflow_last") for s in overflow]
        steps = [
            replace(s, reason="overflow" if s.reason == "fallback" else s.reason) for s in steps
        ]
    pinned = demand.sticky_backend  # first only while it is well; preferred whatever its state
    pin = states.get(pinned, BackendState()) if pinned else None
    well = pin is not None and pin.circuit == "closed" and not pin.saturated
    ordered = _sticky_first(steps + overflow, pinned if well else None)
    preference = _preferred_order(members, demand.sticky_backend)
    return Plan(
        intent,
        target,
        route,
        tuple(ordered),
        tuple(skipped),
        preference,
        home,
        demand.server_state,
        _retry_after(skipped, states),
        _judged_prompt(skipped, demand, config),
        demand.vllm_field,
        tuple(s.backend for s in skipped if s.reason == "vllm_fields" and _local(s, config)),
    )


def _not_again(
    steps: list[Step],
    overflow: list[Step],
    skipped: list[Step],
    demand: Demand,
    states: Mapping[str, BackendState],
) -> tuple[list[Step], list[Step], list[Step]]:
    """The steps, the overflow and the skipped, with each backend whose half-open trial is
    due and that failed this very request before skipped (`FAILED_HERE`: its state's
    `failed_requests`, which `Resilience.states` fills for a half-open circuit only), while
    another backend is left to try: its trial is left to another request
    (`router.failed_requests`). With none left, the plan stays as it was. The request's
    fingerprint is worked out only when some backend of the plan remembers failed requests
    (its trial due): most plans never hash their body."""
    print_ = demand.fingerprint
    if print_ is None:
        return steps, overflow, skipped
    due = [
        s.backend for s in steps + overflow if states.get(s.backend, BackendState()).failed_requests
    ]
    if not due:
        return steps, overflow, skipped
    failed = {name for name in due if print_() in states[name].failed_requests}
    if not failed or all(s.backend in failed for s in steps + overflow):
        return steps, overflow, skipped
    again = [replace(s, reason=FAILED_HERE) for s in steps + overflow if s.backend in failed]
    steps = [s for s in steps if s.backend not in failed]
    overflow = [s for s in overflow if s.backend not in failed]
    return steps, overflow, skipped + again


def _local(step: Step, config: Config) -> bool:
    return config.backend(step.backend).tier == "local"


def _pinned(target: Target, demand: Demand) -> Demand:
    """`demand`, without its home when its `model` names a backend and the home is a
    conversation's (`conversation`): the router saw where the conversation was last served,
    never where it was made (it has no `/v1/conversations`), so it cannot know that no other
    backend holds it. Pinned wherever its first turn's route led, a conversation was refused
    to the client naming the backend that holds it (found in review); such a turn is served
    there, and the home moves with it (`StoredResponses.made`). `auto` and a route keep the
    pin, and with it the refusal of a private turn whose conversation is homed on the
    cloud. A response id's home is known, the router stored it: another backend named is
    still refused."""
    if target.mode == "backend" and demand.server_state == "conversation":
        return replace(demand, response_home=None)
    return demand


def _unfit(
    name: str,
    route: str,
    target: Target,
    demand: Demand,
    state: BackendState,
    config: Config,
) -> str | None:
    backend = config.backend(name)
    if demand.response_home and name != demand.response_home:
        return "response_elsewhere"
    if demand.private and backend.tier != "local":
        return "private"
    if demand.vllm_field and not is_vllm(backend):  # a cloud answer was unconstrained
        return "vllm_fields"  # `router.vllm_fields.SKIP`
    if not can_serve(demand.api, backend):
        return "api_unsupported"
    # translation would refuse it there, after the attempt had begun: a 400 that named the
    # backend and counted against it though nothing was sent (found in review)
    if demand.server_state and not native(demand.api, backend):
        return "api_unsupported"
    # litellm's stream passes on one finish reason, from whichever choice sent one, labelled
    # choice 0: no choice of an n > 1 stream through it can be told finished from cut
    if demand.several_choices and backend.kind == "litellm":
        return "choices_unsupported"
    # one choice where the client asked for two came back as a 200 (found in review)
    if demand.choices_asked and state.one_choice_only:
        return "n_unsupported"
    window = context_window(state, backend)
    prompt = _prompt_tokens(demand, backend)
    if window and prompt > window:
        return "context_window"
    if window and prompt + (demand.max_tokens or 0) > window:
        return "max_tokens_window"
    # A gate keeps a route's traffic (an intent's, when the classifier is sure) away; a
    # request it is not sure of takes the default route and that route's gate, never the
    # gate of a label it did not trust.
    if target.mode == "auto" and route in state.gated_intents and not demand.response_home:
        return "quality_gate"
    # Last: a reason that outlasts the open circuit (a window, a gate) is the one told.
    # Checked first, the circuit hid a prompt too long for the window (503 "retry in 8 s",
    # then the 400) and a gate (its minutes told as the circuit's seconds; found in re-review).
    # Away (an open circuit, a 429's wait) as the canary and the shadow read it too.
    return state.away()


def _retry_after(skipped: list[Step], states: Mapping[str, BackendState]) -> float | None:
    """The soonest a backend skipped for a passing reason may serve again; None when none
    was. When one's time is not known (a live trial in flight, a canary round past its
    estimate, a gate the CronJob's canary keeps), it may serve any moment: a known wait is
    told only if short (`SHORT_WAIT_S`). Told another's long wait (minutes, "do not
    retry"), the client stayed away (found in re-review); told nothing for a circuit due in
    8 s beside a gate of unknown time, its SDK gave up after its own short backoff."""
    waits = [_retry_in(s.reason, states.get(s.backend)) for s in skipped if s.reason in PASSING]
    known = [wait for wait in waits if wait is not None]
    if not known:
        return None
    soonest = min(known)
    # whole seconds, as the header says it: 59.4 went out as 60, "do not retry"
    return soonest if len(known) == len(waits) or math.ceil(soonest) < SHORT_WAIT_S else None


def _retry_in(reason: str, state: BackendState | None) -> float | None:
    """When a backend skipped for `reason` may serve again, if that is known: not before
    the waits its 429 or 503 asked for end, whatever else holds it away. A gated backend
    whose circuit is open (or that waits out a 429) too waits for both: the canary skips
    its round then, so no round reopens the gate first (told the gate's wait alone, the
    client came back to the same refusal; found in re-review)."""
    if state is None:
        return None
    wait, asked = _reopens_in(reason, state), state.asked_wait_s()
    return wait if wait is None or asked is None else max(wait, asked)


def _reopens_in(reason: str, state: BackendState) -> float | None:
    """When what skipped the backend for `reason` ends, if that is known."""
    if reason == "rate_limited":
        return state.rate_limited_for_s
    if reason == "overloaded":
        return state.overloaded_for_s
    if reason == "circuit_open":
        return state.circuit_retry_in_s
    if reason == "quality_gate" and state.circuit == "open":
        gate, circuit = state.gate_retry_in_s, state.circuit_retry_in_s
        return None if gate is None or circuit is None else max(gate, circuit)
    if reason == "quality_gate":
        return state.gate_retry_in_s
    return None


def soonest(waits: Iterable[float | None]) -> float | None:
    """The least of the waits that are known; None when none is."""
    return min((w for w in waits if w is not None), default=None)


def one_choice_only(
    states: Mapping[str, BackendState], names: Iterable[str]
) -> Mapping[str, BackendState]:
    """`states` with the named backends marked as answering one choice only."""
    marked = dict(states)
    for name in names:
        marked[name] = replace(marked.get(name, BackendState()), one_choice_only=True)
    return marked


def _prompt_tokens(demand: Demand, backend: BackendSettings) -> int:
    """The prompt `backend` reads: sent as it came where it renders every tool it is sent
    (`vllm_fields.reads_every_tool`), as the translation and Anthropic's own do not."""
    more = demand.native_prompt_tokens
    if more is None or not reads_every_tool(demand.api, backend):
        return demand.prompt_tokens
    return more


def _judged_prompt(skipped: list[Step], demand: Demand, config: Config) -> int:
    """The prompt a refusal of length names (`Plan.prompt_tokens`): the one the largest window
    skipped for output room (else for the prompt) was judged by (`_prompt_tokens`), so that
    "prompt + max_tokens > window" holds of one backend."""
    windows = [
        s for s in skipped if s.window and s.reason in ("context_window", "max_tokens_window")
    ]
    room = [s for s in windows if s.reason == "max_tokens_window"]
    largest = max(room or windows, key=lambda s: s.window or 0, default=None)
    if largest is None:
        return demand.prompt_tokens
    return _prompt_tokens(demand, config.backend(largest.backend))


def context_window(state: BackendState, backend: BackendSettings) -> int | None:
    """A backend's context window: configured, else learned from its `/v1/models`. A
    configured window is a decision (headroom, a smaller budget) the server's own number
    must not undo; one larger than the server's ends in its context error and a fallback."""
    return backend.context_window or state.context_window


def _preferred_order(members: list[str], sticky: str | None) -> tuple[str, ...]:
    if sticky in members:
        return (sticky, *(name for name in members if name != sticky))
    return tuple(members)


def detoured(plan: Plan, attempts: Iterable[Attempt], served: str) -> bool:
    """Whether `served` answered only because a backend preferred before it was passing
    trouble: skipped with its circuit open, waiting out a 429 or held by a gate, put after
    it for being saturated or (the pin) for a half-open circuit, or tried and failed. A
    conversation then does not stick to `served`: pinned there, one 429 from the local
    backend kept an agent's session on the paid cloud for as long as it went on, the local
    backend healthy again, and so did a cloud-first turn while local's circuit waited for
    a live trial after a hang (found in review). Permanent reasons (a prompt too long for the
    window, privacy, an API the backend does not speak) are no detour: a conversation too
    long for the local backend keeps to the cloud (one that asked for more output than
    the window leaves is a detour: the next turn may ask for less; so is one whose vLLM
    constraint kept off the cloud: the next may carry none). A failure on `served` itself
    (a retry after a short Retry-After) is none either."""
    order = plan.preference
    rank = order.index(served) if served in order else len(order)
    before = set(order[:rank])
    passed = any(s.backend in before and s.reason not in LASTING_SKIPS for s in plan.skipped)
    steps = [s.backend for s in plan.steps]
    after = steps[steps.index(served) + 1 :] if served in steps else []
    full = any(name in before for name in after)  # saturated, or an unwell pin
    failed = any(
        a.backend in before and a.outcome == "error" and a.error_kind not in PERMANENT_FAILURES
        for a in attempts
    )
    return passed or full or failed


def _sticky_first(steps: list[Step], sticky: str | None) -> list[Step]:
    for index, step in enumerate(steps):
        if step.backend == sticky and index > 0:
            return [replace(step, reason="sticky"), *steps[:index], *steps[index + 1 :]]
    return steps
