"""A refusal of a Codex stream told in-band, as OpenAI tells it (Codex reads it so only).

Codex branches on a `response.failed` event's `error.code`, never on an HTTP error's body:
`context_length_exceeded` marks its window full: it ends the turn and compacts its history
before the next; `rate_limit_exceeded` is retried after the wait its message names ("try
again in Ns", the pattern below), up to its `stream_max_retries`. As its source read when
this was built, the same refusal as an HTTP status ended the turn: any 400 an invalid
request, never compacted, and a 429 "exceeded retry limit" at once (openai/codex
`codex-api/src/api_bridge.rs` `map_api_error`, `codex-api/src/sse/responses.rs`): a
conversation that outgrew a window was refused turn after turn, `/compact` too (found in
review). Codex 0.171.0, run live, treats both forms alike; the in-band one keeps older
versions working.

So a context-length refusal (the router's own or the backend's before anything streamed) and
a 429 go to Codex's streamed Responses request as a stream of its own: `response.created`,
`response.in_progress`, then `response.failed`, shaped as the failure that ends a broken
stream (`events.error_event`). The record keeps the error's status, as a stream that failed
after its start does. Other refusals, other APIs and whole replies keep their HTTP status:
a 503 Codex retries already, and a chat or Messages client reads the status.

Only Codex (`is_codex`): every other Responses client retries by the HTTP status. The
`openai` SDKs retry a 429 after its `Retry-After` and never a `response.failed` of a 200,
and the OpenAI Agents SDK's streamed run (`Runner.run_streamed`) raised at once on the
in-band 429 (`ModelBehaviorError`) that the same request whole, or over chat, waited out
(found in review). Codex's HTTP client names its front end in an `originator` header and
begins its user agent with the same name (openai/codex `default_client.rs`): `codex_cli_rs`
(the CLI; `codex-tui` in 0.171.0), `codex_exec` (`codex exec`), `codex_vscode` (the IDE
extension); so a client is
Codex when either begins with "codex", in any case.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Mapping
from typing import Any

from router.attempt_errors import RateLimited
from router.errors import RateLimitedBackends, RouterError
from router.record import Api
from router.translate.context_refusal import is_context_refusal
from router.translate.events import Failure, response_failed
from router.translate.responses_items import envelope, response_id
from router.translate.wire import named_event

# Codex's own pattern for the wait a rate limit names (`rate_limit_regex` in
# codex-api/src/sse/responses.rs), read only when the code is `rate_limit_exceeded`.
CODEX_WAIT = re.compile(r"(?i)try again in\s*(\d+(?:\.\d+)?)\s*(s|ms|seconds?)")


# What Codex's `originator` header and user agent begin with, whichever front end sent it
CODEX = "codex"


def is_codex(headers: Mapping[str, str]) -> bool:
    """Whether the request came from Codex: its `originator` or user agent says so."""
    return any(
        headers.get(name, "").lower().startswith(CODEX) for name in ("originator", "user-agent")
    )


def told_in_band(api: Api, stream: bool, error: RouterError, codex: bool) -> bool:
    """Whether `error`, ending a request before anything was sent, goes out in-band: to a
    Codex stream (`codex`, `is_codex`) only."""
    if api != "responses" or not stream or not codex:
        return False
    return is_context_refusal(error) or isinstance(error, RateLimited | RateLimitedBackends)


def refusal_stream(error: RouterError, request: dict[str, Any]) -> bytes:
    """The whole answer to `request` that `error` refused: the Response opened, then failed."""
    rid = response_id()
    opened = envelope(rid, request.get("model"), request, "in_progress", int(time.time()))
    said = [
        named_event(name, {"type": name, "sequence_number": number, "response": opened})
        for number, name in enumerate(("response.created", "response.in_progress"))
    ]
    failed = response_failed(opened, rid, len(said), _failure(error))
    return b"".join([*said, failed])


def _failure(error: RouterError) -> Failure:
    """The code Codex acts on, and a rate limit's wait in the words it reads."""
    if is_context_refusal(error):
        return Failure("context_length_exceeded", error.message)
    # the router's own refusal says its wait once, in Codex's words, not also in its own
    message = error.reason if isinstance(error, RateLimitedBackends) else error.message
    if error.retry_after is not None and not CODEX_WAIT.search(message):
        # whole seconds, as `Retry-After` says it; an upstream's own "try again in" stays
        message = f"{message.rstrip('. ')}. Please try again in {math.ceil(error.retry_after)}s."
    return Failure("rate_limit_exceeded", message)
