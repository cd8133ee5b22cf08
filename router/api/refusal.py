"""The record of a model-API request answered before the gateway took it.

"Bad input gets a clear error and loses nothing": a caller's request refused for its body or
its model (400, 404, 413, 408, 415) is a request all the same. It leaves one record, handed
to the same sinks as every other (ledger, metrics, log line), and its error reply carries
that record's `x-request-id`, so the client can quote it and the operator find it. Without
this, such requests only moved a label-only counter. A request whose key was refused has no
caller and no record (`router.api.front._refused`): only its counter; so has a web page's
request (`router.api.front.refuse`), which no API client sends.

The record holds only what the router could read before it refused: who called (the key's
name; never the key), the `model` the body named, the status and the error's code. No
intent, route or backend: nothing was classified, planned nor sent, so the request costs
nothing and has no latency to report (no `request_duration_seconds` sample: `Record.refused`).
No prompt text either, even with `ledger.store_text`: the body was unreadable, invalid or
not yet read (a refused key's sender may not write text into the ledger). A refusal
starts no trace span (`Gateway.prepare` starts it once a request can no longer be refused).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from router import request as req
from router.auth import Caller
from router.errors import BadRequest, RouterError, error_kind, refused_outcome
from router.record import Api, Record
from router.routing_headers import is_private


@dataclass(slots=True)
class Arrival:
    """What the front knows of a request before the gateway takes it, filled in as it reads:
    `headers`, then `caller` once the key is accepted, then `body` once it parsed."""

    api: Api
    started_at: float = field(default_factory=time.time)
    began: float = field(default_factory=time.monotonic)
    headers: dict[str, str] = field(default_factory=dict)
    caller: Caller | None = None
    body: dict[str, Any] | None = None

    def record(self, error: RouterError, caller: Caller) -> Record:
        """The finished record of this request, from `caller`, answered with `error`."""
        body = self.body or {}
        model = body.get("model")
        duration_s = time.monotonic() - self.began
        return Record(
            # the helper the served path uses: the client's own id when it is a valid one
            request_id=req.request_id(self.headers),
            started_at=self.started_at,
            ended_at=self.started_at + duration_s,  # as the served path: no wall-clock step
            api=self.api,
            caller=caller.name,
            requested_model=model[:200] if isinstance(model, str) else "",
            stream=body.get("stream") is True,
            status=error.status,
            outcome=refused_outcome(error),
            # a refusal's code names why (`invalid_api_key`, `model_not_found`, ...)
            error_kind=error_kind(error),
            duration_s=duration_s,
            private=_private(caller, self.headers),
        )


def _private(caller: Caller, headers: dict[str, str]) -> bool:
    """As the served path reads it; a switch it could not read counts as on (fail closed)."""
    try:
        return is_private(caller, headers)
    except BadRequest:
        return True
