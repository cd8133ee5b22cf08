"""The canary's calls as trace spans: one root client span per case asked.

Each span is a trace of its own (`Tracing.start_call`), `smf.traffic` "canary", naming the
backend as an attempt span does and the case by its suite and id (`smf.canary.suite`,
`smf.canary.case_id`), never by its prompt: a Tempo query tells the canary's load on a
backend from live traffic, and finds the call of a case that failed. With tracing off the
send is handed back as it is: no cost per case.
"""

from __future__ import annotations

from typing import Any

from evals.runner import ASKED, Ask, TransportProblem
from router.config import Backend as BackendSettings
from router.relay import usage_of
from router.span_attributes import usage_attributes
from router.tracing import Tracing


def traced(tracing: Tracing, backend: BackendSettings, send: Ask) -> Ask:
    """`send` with a span around each call; the case comes from the runner (`ASKED`)."""
    if not tracing.enabled:
        return send

    async def sending(body: dict[str, Any]) -> Any:
        case = ASKED.get()
        named = (
            {} if case is None else {"smf.canary.suite": case.suite, "smf.canary.case_id": case.id}
        )
        span = tracing.start_call("canary", backend.name, backend.tier, backend.model, named)
        error: str | None = "cancelled"  # the case's own timeout, the round's end, a stop
        payload: Any = None
        try:
            payload = await send(body)
            error = None
        except TransportProblem as problem:
            error = "timeout" if problem.timed_out else "transport"
            raise
        except TimeoutError:
            error = "timeout"
            raise
        except Exception as exc:
            error = type(exc).__name__
            raise
        finally:
            usage = usage_of("chat", payload.get("usage")) if isinstance(payload, dict) else None
            tracing.end(span, usage_attributes(usage), error)
        return payload

    return sending
