"""A client request on its way through dispatch (`Call`), and the backend that committed
to answering it (`Committed`): what the gateway, the dispatcher, the relay and the front
pass between them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from router.attempt_errors import UpstreamError
from router.backends.base import Backend, Reply
from router.policy import Plan
from router.record import Api, Attempt, Record
from router.refusals import named_as_sent
from router.sse import Data, EventBuffer
from router.stored_items import Own
from router.tracing import NO_SPAN


@dataclass(slots=True)
class Call:
    """One client request on its way through dispatch."""

    api: Api
    body: dict[str, Any]
    stream: bool
    record: Record
    plan: Plan
    started: float  # time.monotonic() at arrival
    headers: dict[str, str] = field(default_factory=dict)
    wants_usage: bool = False
    span: Any = NO_SPAN
    client_left: bool = False  # the client hung up: a cancellation is its doing, not ours
    # what the attempts that ended before a commit generated and never sent (`Hold`),
    # summed: each one's model generated it. Zeroed at a commit: the served reply counts.
    unsent_chars: int = 0
    # picked by a call sink's dice as it arrived (`Gateway.prepare`): only then does the
    # front keep the body as received (`raw_body`) and the relay the answer text, to replay
    sampled: bool = False
    raw_body: bytes | None = None
    # a Responses turn's own input, kept with the answer the router makes (`stored_items`)
    own: Own | None = None

    def asked(self) -> dict[str, Any]:
        """`body` as the client asked it, which a reply the router makes echoes: with the
        `previous_response_id` that `StoredResponses.whole` took out of what is sent (not
        the response a turn sent whole begins with, which the client did not name)."""
        own = self.own
        previous = own.previous if own is not None and not own.found else None
        return {**self.body, "previous_response_id": previous} if previous else self.body

    def named_as_sent(self, error: UpstreamError) -> UpstreamError:
        """`error` naming the client's own fields (`router.refusals.named_as_sent`), as it
        reaches the client: before the commit (`Dispatcher.execute`) or in-band after it
        (`router.relay`)."""
        return named_as_sent(error, self.api, self.body, self.plan.prompt_tokens)


@dataclass(slots=True)
class Committed:
    """The backend that will answer, and what it has sent so far."""

    backend: Backend
    attempt: Attempt
    reply: Reply
    started: float  # monotonic time the attempt began
    deadline: float  # monotonic time when the attempt's total budget runs out
    parsed: dict[str, Any] | None = None  # the whole body, for non-streamed replies
    first_events: list[tuple[bytes, Data]] = field(default_factory=list)
    events: EventBuffer = field(default_factory=EventBuffer)
    pieces: AsyncIterator[bytes] | None = None
    span: Any = NO_SPAN
    finished: bool = False  # the attempt was reported over (once, whoever gets there first)
