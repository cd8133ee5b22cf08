"""How a canary case reaches a backend: over HTTP as the eval runner asks any endpoint
(`endpoint_of`), or through the router's own adapter for a backend with another wire format
(`ask_backend`: a litellm backend, as live traffic reaches it)."""

from __future__ import annotations

from typing import Any

import orjson

from evals.endpoint import Endpoint, TransportProblem
from evals.redaction import Secrets
from router.attempt_errors import Timeout, UpstreamError
from router.backends import Backend
from router.config import Backend as BackendSettings


def endpoint_of(settings: BackendSettings) -> Endpoint:
    """A backend as the eval runner sees it: its URL, model, key, headers and extras, and
    what its errors are cleaned of, as its live adapter's (`Backend.secret_values`)."""
    return Endpoint(
        settings.base_url,
        settings.model,
        api_key=settings.api_key,
        extra_body=dict(settings.extra_body),
        headers=dict(settings.headers),
        secrets=Secrets(settings.secret_values()),
        direct=True,  # as live traffic: never through HTTP_PROXY
    )


async def ask_backend(backend: Backend, body: dict[str, Any]) -> Any:
    """One case through a router backend adapter, failures as the runner's TransportProblem.
    A `Timeout` (the backend's own `timeouts`, or litellm's of an upstream 504 or 408) is
    one that got no reply in time, as the canary's bound counts them (`router.canary_bound`)."""
    try:
        reply = await backend.send("chat", body, {}, False)
    except UpstreamError as exc:
        late = isinstance(exc, Timeout)  # timeout, first_token_timeout or stall
        raise TransportProblem(f"{exc.kind}: {exc.message}"[:300], timed_out=late) from exc
    try:
        return orjson.loads(reply.body or b"")
    except orjson.JSONDecodeError as exc:
        raise TransportProblem("reply is not JSON") from exc
