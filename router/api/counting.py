"""What the two token-count endpoints share: `/v1/messages/count_tokens`
(`router.api.messages`) and `/v1/responses/input_tokens` (`router.api.responses_count`).

Each reads its body, plans the turn as its model API would, and answers `{"input_tokens":
n, ...}` with `x-smf-estimated` and, when a backend counted, `x-smf-backend` (no empty one
for an estimate). Only the backend that would serve the turn is asked, the plan's first step:
counting sends it the whole conversation, so a turn served locally is counted locally or
estimated, never sent to a cloud further down the plan for it (every kani turn reached
OpenAI so, and every local-first Claude Code turn Anthropic; found in review). That backend
is asked only when it counts natively; otherwise, or when its answer fails, the router's
estimate. Errors leave in the path's shape (`router.api.errors.shaped_response`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import orjson
from fastapi import Request
from fastapi.responses import Response

from router import request as req
from router.api.body import read_json
from router.api.errors import shaped_response
from router.api.headers import request_headers
from router.attempt_errors import UpstreamError
from router.auth import Caller
from router.backends.openai_compatible import OpenAICompatibleBackend
from router.call import Call
from router.config_backend import Backend as BackendSettings
from router.content_checks import uncarried
from router.errors import RouterError, internal_error
from router.gateway import Gateway
from router.refusals import nothing_tried
from router.translate.pairing import native

log = logging.getLogger("smf_router")
COUNT_TIMEOUT_S = 10.0
# The skips that refuse a count as its turn: an API or stored state no backend of the
# target serves, a response stored on a backend outside it. Not a prompt past every window
# (the count is how a client learns it), nor privacy: a private count of a cloud-only
# target sends nothing anywhere, and its estimate tells the size all the same
COUNT_REFUSED = frozenset({"api_unsupported", "response_elsewhere"})


@dataclass(frozen=True)
class Counted:
    tokens: int
    backend: str = ""  # the backend that counted them; "" for the router's estimate


# An endpoint's count of one body: (gateway, body, caller, headers) to its `Counted`
Count = Callable[[Gateway, dict[str, Any], Caller, dict[str, str]], Awaitable[Counted]]
# One backend asked for its count: None means "estimate instead"
Ask = Callable[[OpenAICompatibleBackend], Awaitable[int | None]]


async def answer(
    request: Request, count: Count, reply: Callable[[int], dict[str, Any]]
) -> Response:
    """The endpoint: `count` the body, `reply` holding the tokens, or the refusal."""
    headers = req.identified(request_headers(request.scope))  # one id: the reply's
    try:
        gateway: Gateway = request.app.state.gateway
        caller = request.app.state.auth.caller(headers)
        body = await read_json(request, gateway.config.server.max_body_bytes)
        counted = await count(gateway, body, caller, headers)
    except RouterError as error:
        return shaped_response(request, error)
    except Exception:  # a bug of ours: still an answer in the API's shape, never a traceback
        log.exception("%s failed", request.url.path[:64])
        return shaped_response(request, internal_error())
    estimated = "false" if counted.backend else "true"
    said = {"x-request-id": headers["x-request-id"], "x-smf-estimated": estimated}
    if counted.backend:  # an estimate has no backend: no empty header
        said["x-smf-backend"] = counted.backend
    payload = orjson.dumps(reply(counted.tokens))
    return Response(payload, media_type="application/json", headers=said)


async def by_first_step(
    gateway: Gateway,
    call: Call,
    counts: Callable[[BackendSettings], bool],
    ask: Ask,
    estimate: Callable[[], int],
) -> Counted:
    """The count of the backend that would serve the turn, when it `counts` natively and
    answers; else the `estimate`. Never a fallback's: the turn does not go there. A turn no
    backend could ever serve is refused as the turn is (`refused`)."""
    the_plan = call.plan
    _carried(gateway, call)
    if not the_plan.steps:
        refused(call)
        return Counted(estimate())
    settings = gateway.config.backend(the_plan.steps[0].backend)
    backend = gateway.backends.get(settings.name)
    if counts(settings) and isinstance(backend, OpenAICompatibleBackend):
        counted = await ask(backend)
        if counted is not None:
            return Counted(counted, settings.name)
    return Counted(estimate())


def _carried(gateway: Gateway, call: Call) -> None:
    """Raise the turn's refusal of a type the translation to chat does not know
    (`router.content_checks.uncarried`) when no backend of the plan speaks the API natively:
    the turn would be refused so (`router.translate.exchange`), and counted, it counted what
    serving dropped. With a native backend on the plan, the turn may be served there: the
    count counts it, natively or estimated, as it did any type before the check."""
    api = call.api
    if api not in ("messages", "responses"):
        return
    steps = call.plan.steps
    if any(native(api, gateway.config.backend(step.backend)) for step in steps):
        return
    refusal = uncarried(api, call.body)
    if refusal is not None:
        raise refusal


def refused(call: Call) -> None:
    """Raise the turn's own refusal (`router.refusals.nothing_tried`) when every backend was
    skipped for its API or the stored state it names (`COUNT_REFUSED`): a
    `previous_response_id` with no backend speaking Responses natively was counted 200
    where its turn is a 400 (found in review). A backend down, a prompt past every window
    or a private count of a cloud target is still estimated."""
    reasons = {step.reason for step in call.plan.skipped}
    if reasons and reasons <= COUNT_REFUSED:
        raise nothing_tried(call.plan, call.api, None)


async def asked(
    backend: OpenAICompatibleBackend, path: str, sent: dict[str, Any], headers: dict[str, str]
) -> int | None:
    """One POST of `sent` to the backend's count at `path`; any failure means "estimate
    instead" (a line says which, never the body)."""
    name = backend.settings.name
    try:
        status, raw = await backend.post(path, orjson.dumps(sent), headers, COUNT_TIMEOUT_S)
        counted = orjson.loads(raw).get("input_tokens") if status == 200 else None
    except (UpstreamError, orjson.JSONDecodeError, AttributeError) as exc:
        log.info("%s on %s failed (%s); estimating", path, name, type(exc).__name__)
        return None
    if status != 200:
        log.info("%s on %s answered %d; estimating", path, name, status)
    return counted if isinstance(counted, int) and not isinstance(counted, bool) else None
