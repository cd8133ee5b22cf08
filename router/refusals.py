"""The refusal of a request every backend of its plan skipped, nothing tried (`Dispatcher`).

A 400 when every reason is the request's own to change, else a 503 `no_backend_available`
that names what holds the backends away (a canary's gate, an open circuit, a rate limit's
wait) and, when the router knows it, when one may serve again (`Retry-After`): a 429 when
the rate limits' waits alone do. A backend's
own context-length refusal names the client's fields as these do (`named_as_sent`).
"""

from __future__ import annotations

from typing import Any

from router import vllm_fields
from router.attempt_errors import ContextTooLong, OutputTooLong, UpstreamError
from router.errors import (
    BadRequest,
    BadRequestTooLong,
    NoBackendAvailable,
    RateLimitedBackends,
    RouterError,
)
from router.policy import PERMANENT_SKIPS, Plan
from router.record import Api
from router.request_size import OUTPUT_LIMITS, Counts, output_limit

# Where each API holds the prompt, for a 400 that says it is too long.
PROMPT_FIELDS: dict[Api, str] = {
    "chat": "messages",
    "completions": "prompt",
    "messages": "messages",
    "responses": "input",
}


def refusal_of(plan: Plan, api: Api, body: dict[str, Any]) -> dict[str, Any] | None:
    """What serving would answer instead of trying a backend, for explain: the status and
    error body of `nothing_tried` when every backend of `plan` is skipped, else None. Explain
    answered 200 with an empty `backends` list, which a reader took for a route that serves."""
    if plan.steps:
        return None
    error = nothing_tried(plan, api, output_limit(api, body))
    return {"status": error.status, **error.body()["error"]}


def nothing_tried(plan: Plan, api: Api, limit: tuple[str, int] | None) -> RouterError:
    """Every backend was skipped. When every reason is permanent the request is the
    client's to change, a 400, since a 503 would have the client's SDK retry in vain: an
    output limit some window holds the prompt without, or else a prompt no window can hold
    (each change lets a backend serve it, so these answers win), an API no backend of the
    target speaks (`/v1/completions` to a litellm backend), a private request with no local
    backend in its target, or one with vLLM's own `structured_outputs` (`router.vllm_fields`)
    with none that honours it. A backend down (circuit open), waiting out a rate limit or held
    by a quality gate is not permanent, and the answer stays a 503 (`_unavailable`), unless
    a window holds the prompt but not the output limit sent: lowered, it is served now."""
    reasons = {step.reason for step in plan.skipped}
    listed = ", ".join(f"{s.backend}: {s.reason}" for s in plan.skipped)
    if "max_tokens_window" in reasons and limit and not reasons <= PERMANENT_SKIPS:
        # A lower limit is served now where the others wait (a 429's wait, an open circuit,
        # a gate): told to wait ten minutes, Claude Code never lowered `max_tokens` (review).
        return _lower_the_limit(plan, api, limit, reasons, f" ({listed})")
    if not reasons or not reasons <= PERMANENT_SKIPS:
        return _unavailable(plan, listed)
    home = next((s.reason for s in plan.skipped if s.backend == plan.response_home), None)
    if "response_elsewhere" in reasons and home in (None, "private", vllm_fields.SKIP):
        return _stored_elsewhere(plan, home)
    # `_unfit` says so of every cloud backend, first (but of those a stored response rules out)
    local, local_only = _local_words(plan, reasons)
    if "max_tokens_window" in reasons and (limit or "context_window" not in reasons):
        return _lower_the_limit(plan, api, limit, reasons, "")
    if "context_window" in reasons:
        return BadRequestTooLong(
            f"This request is longer than the context window of every {local}backend that "
            f"could serve it{local_only}; shorten the prompt.",
            param=PROMPT_FIELDS[api],
        )
    target = plan.target.name or plan.route
    if "choices_unsupported" in reasons:
        return BadRequest(
            f"no {local}backend of {target!r} can stream several choices whole ({listed}); "
            "ask for n: 1, or stream: false, or send it to a model with a kind: openai backend",
            param="n",
        )
    if "n_unsupported" in reasons:
        return BadRequest(
            f"no {local}backend of {target!r} returns several choices ({listed}): its "
            "provider answers one whatever n asks; ask for n: 1, or send it to a model whose "
            "backends return n choices",
            param="n",
        )
    if "api_unsupported" in reasons and plan.server_state == "background":
        return BadRequest(
            "background: true asks the server to run the response and keep it for polling, "
            f"and no {local}backend of {target!r} serves the responses API itself"
            f"{local_only} ({listed}): a chat backend answers only while the client waits; "
            f"send it without background, or to a model whose {local}backends speak Responses",
            param="background",
        )
    if "api_unsupported" in reasons and plan.server_state == "input":
        return BadRequest(
            "input holds an item_reference to an item this router does not hold (it keeps "
            "only the items it made from a chat backend's answer, for the caller it "
            "answered, in this process: none from before a restart or from another router "
            "process), and no "
            f"{local}backend of {target!r} serves the responses API itself{local_only} "
            f"({listed}) to look it up: send the items whole, with store: false (the Vercel "
            "AI SDK and Mastra: providerOptions.openai.store = false), or use chat completions",
            param="input",
        )
    if "api_unsupported" in reasons and plan.server_state:
        return BadRequest(
            f"{plan.server_state} names what the server stored (a conversation, a prompt, an"
            " item), and no "
            f"{local}backend of {target!r} serves the responses API itself{local_only} "
            f"({listed}): a chat backend holds no stored state; send the whole input instead, "
            f"or send it to a model whose {local}backends speak Responses",
            param=plan.server_state,
        )
    if "api_unsupported" in reasons:
        advice, param = _elsewhere(plan, f"whose {local}backends speak it")
        return BadRequest(
            f"no {local}backend of {target!r} serves the {api} API{local_only} ({listed}); "
            f"{advice}",
            param=param,
        )
    if not plan.vllm_field or vllm_fields.SKIP not in reasons:
        advice, param = _elsewhere(plan, "with a local backend")
        return BadRequest(
            f"{target!r} has no local backend, and a private request may use the local tier "
            f"only ({listed}); {advice}",
            param=param,
        )
    # A backend skipped for the field was there to serve but for it: the field left nothing
    # (told "no local backend, private" of `prose: [cloud, ollama]`, ollama local, a private
    # client looked for a privacy fault; found in review)
    advice, param = _elsewhere(plan, "with a local backend not called through litellm")
    return BadRequest(
        f"{target!r} has no backend that honours {vllm_fields.named(plan.vllm_field)} "
        f"({listed}): {_field_why(plan)}; {advice}, or leave it out (a JSON schema as "
        "response_format json_schema, which every backend honours)",
        param=param,
    )


def _field_why(plan: Plan, home: str | None = None) -> str:
    """`vllm_fields.why` for the backends the plan skipped for vLLM's field (or `home`
    alone): a cloud one, a local one through litellm, or both."""
    skipped = [s.backend for s in plan.skipped if s.reason == vllm_fields.SKIP]
    passed = [home] if home else skipped
    litellm = [b for b in passed if b in plan.vllm_litellm]
    field = plan.vllm_field or vllm_fields.FIELD
    return vllm_fields.why(field, cloud=len(litellm) < len(passed), litellm=bool(litellm))


_HONOURED = "is honoured only by a local backend not through litellm"


def _local_words(plan: Plan, reasons: set[str]) -> tuple[str, str]:
    """The words of a refusal saying no local backend could serve (`local `, and why only
    the local tier may): privacy, vLLM's own field (`router.vllm_fields`), or both, kept the
    others out. Privacy's words alone, when the field had skipped a backend too, hid it."""
    why = [
        *(["a private request may use the local tier only"] if "private" in reasons else []),
        *(
            [f"{vllm_fields.named(plan.vllm_field)}, vLLM's own, {_HONOURED}"]
            if vllm_fields.SKIP in reasons and plan.vllm_field
            else []
        ),
    ]
    return ("local ", f" ({'; '.join(why)})") if why else ("", "")


def _sizes(plan: Plan, limit: tuple[str, int] | None) -> Counts:
    """The numbers the plan skipped its backends by: the router's estimate of the prompt,
    the output limit asked, and the largest window skipped for want of room for it, the one
    a lower limit reaches first. Claude Code lowers `max_tokens` on a refusal that says
    them ("...: I + K > L"); told none, its session stopped at the error (found in review)."""
    windows = [s.window for s in plan.skipped if s.reason == "max_tokens_window" and s.window]
    return Counts(plan.prompt_tokens, limit[1] if limit else None, max(windows, default=None))


def _elsewhere(plan: Plan, which: str) -> tuple[str, str | None]:
    """Where to send a request its target cannot serve, and the field that chose that target:
    the client's `model`, or its `x-smf-route` header (no field: `param` null, as the header's
    other 400s). Told to send `model: auto` "to a model with a local backend", `param:
    model`, a client whose header had chosen the route changed the wrong thing (found in
    review)."""
    if plan.target.by_header:
        return f"leave out x-smf-route, or have it name a route {which}", None
    return f"send it to a model {which}", "model"


def named_as_sent(
    error: UpstreamError, api: Api, body: dict[str, Any], prompt_tokens: int | None = None
) -> UpstreamError:
    """`error`, a backend's context-length refusal naming the field the client sent, as the
    router's own refusals do. The backend names its own API's field: a Responses request
    translated to chat was refused for `messages` or `max_tokens`, a completions one for
    `messages` (`router.upstream_errors` reads every prompt refusal so), fields those
    clients never sent; and OpenAI's adapter sends chat's `max_tokens` as
    `max_completion_tokens`, which its refusal names. The output limit named is the one the
    client set (`output_limit`); with none set, the backend's, if the client's API has it,
    else the API's own. The message stays the backend's words; the router's estimate of the
    prompt (`prompt_tokens`) goes beside them, for the words of a Messages client that do not
    say it (vLLM's output refusal names the limit and the window only). Any other error is
    as it was."""
    if isinstance(error, ContextTooLong):
        error.sizes = Counts(prompt_tokens)
    if isinstance(error, OutputTooLong):
        fields = OUTPUT_LIMITS[api]
        limit = output_limit(api, body)
        if limit is not None:
            error.param = limit[0]
        elif error.param not in fields:
            error.param = fields[-1]
    elif isinstance(error, ContextTooLong):
        error.param = PROMPT_FIELDS[api]
    return error


def _lower_the_limit(
    plan: Plan, api: Api, limit: tuple[str, int] | None, reasons: set[str], others: str
) -> RouterError:
    """The output refusal: a window holds the prompt, not the output room asked, so a lower
    limit is served there, whatever the windows that hold not even the prompt. Told the
    prompt was too long, Claude Code compacted or stopped where it could have lowered
    `max_tokens` (found in review). `others`: what holds the other backends away. The
    client's own field, as its API names it: a Responses client was told of `messages` and
    `max_tokens`, which it never sent (found in re-review)."""
    field = limit[0] if limit else OUTPUT_LIMITS[api][-1]
    local, local_only = _local_words(plan, reasons)
    some = " (some hold not even the prompt)" if "context_window" in reasons else ""
    return BadRequestTooLong(
        f"This request's prompt and the output its {field} asks room for do not fit the "
        f"context window of every {local}backend that could serve it{local_only}{some}"
        f"{others}; lower {field}.",
        param=field,
        sizes=_sizes(plan, limit),
    )


def _unavailable(plan: Plan, listed: str) -> NoBackendAvailable:
    """A 503 that says why the backends are away for now, and for how long when that is
    known: `quality_gate` alone named neither the canary that closed the gate nor what opens
    it again. A 429 when only rate limits' waits keep them away (`RateLimitedBackends`); an
    overloaded backend's wait is the 503 it would have met."""
    gated = ", ".join(repr(s.backend) for s in plan.skipped if s.reason == "quality_gate")
    failing = [repr(s.backend) for s in plan.skipped if s.reason == "circuit_open"]
    limited = [repr(s.backend) for s in plan.skipped if s.reason == "rate_limited"]
    overloaded = [repr(s.backend) for s in plan.skipped if s.reason == "overloaded"]
    message = f"no backend can serve this request ({listed or 'none'})"
    if gated:
        message += (
            f"; the canary closed the quality gate of route {plan.route!r} on {gated} until "
            "its runs pass the floor again"
        )
    if failing:
        circuits = "circuit of {} is" if len(failing) == 1 else "circuits of {} are"
        message += (
            f"; the {circuits.format(', '.join(failing))} open after failures until a trial "
            "succeeds"
        )
    if limited:
        them = "it" if len(limited) == 1 else "them"
        message += (
            f"; {', '.join(limited)} answered a rate limit with a Retry-After, which the "
            f"router waits out before it tries {them} again"
        )
    if overloaded:
        them = "it" if len(overloaded) == 1 else "them"
        message += (
            f"; {', '.join(overloaded)} answered overloaded with a Retry-After, which the "
            f"router waits out before it tries {them} again"
        )
    message += passed_over(plan)
    passing = {s.reason for s in plan.skipped} - PERMANENT_SKIPS
    unavailable = RateLimitedBackends if passing == {"rate_limited"} else NoBackendAvailable
    return unavailable(message, retry_after=plan.retry_in_s)


def passed_over(plan: Plan) -> str:
    """The words saying which backends were passed over for vLLM's own field and why, to add
    to an error of the backends left (a 503 of an open circuit, the failed attempt's 502):
    told only `cloud: vllm_fields`, a client asked why no fallback served it."""
    passed = [repr(s.backend) for s in plan.skipped if s.reason == vllm_fields.SKIP]
    if not passed or not plan.vllm_field:
        return ""
    return f"; {', '.join(passed)} not tried: {_field_why(plan)}"


def _stored_elsewhere(plan: Plan, reason: str | None) -> RouterError:
    """The backend that stored the response this turn continues, or the conversation it
    names, may not take it: a cloud one for a private request or one carrying vLLM's own
    field, or (a response's) not the backend the client named: a named backend serves a
    conversation (`policy._pinned`). No other can (one skipped for another reason, its
    window or its API, is refused as such)."""
    home = plan.response_home
    if reason == "private":
        why = f"{home!r}, a cloud backend, and a private request may use the local tier only"
    elif reason == vllm_fields.SKIP and plan.vllm_field:
        why = f"{home!r}, and {_field_why(plan, home)}"
    else:
        why = f"{home!r}, which {plan.target.name!r} does not use"
    if plan.server_state == "conversation":
        field, what = "conversation", "a conversation"
    else:
        field, what = "previous_response_id", "a response"
    return BadRequest(
        f"{field} names {what} stored on {why}; no other backend holds that conversation: "
        "send its whole input instead",
        param=field,
    )
