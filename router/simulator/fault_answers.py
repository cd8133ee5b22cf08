"""What a fault answers in place of a generation: the faults that strike before any token
(a reset, a hang, a 429, a 5xx, a context overflow worded by one server or another) and the
in-band error `error_event` stands for.

Apart from `app.py` so the pipeline reads as the pipeline: these are pure mappings from a
fault to an `ApiError` (or a connection's fate), with the window the only setting they need.
"""

from __future__ import annotations

from router.simulator import servers
from router.simulator.errors import ApiError, echo_error
from router.simulator.faults import ECHOES, IN_BAND, Fault
from router.simulator.generation import Ask
from router.simulator.httpserver import Response


async def early_fault(fault: Fault, ask: Ask, resp: Response, window: int) -> bool:
    """Faults that strike before any generation. True when the request is dealt with."""
    name = fault.name
    if name in ("reset", "down"):
        resp.reset()
        return True
    if name == "no_response":
        await resp.hang()
        return True
    if name == "rate_limit":
        raise ApiError(429, "rate_limit", rate_message(fault.value), retry_after=fault.value)
    if name == "rate_limit_no_retry_after":
        raise ApiError(429, "rate_limit", rate_message(1.0))
    if name == "server_error":
        status = int(fault.value)
        raise ApiError(status, "overloaded" if status in (503, 529) else "server_error")
    if name == "overloaded":
        raise ApiError(503, "overloaded", retry_after=fault.value)
    if name == "bad_request":
        raise ApiError(400, "bad_request", "The request was refused (the bad_request fault).")
    if name in IN_BAND and not ask.stream:
        raise error_event(fault, window)
    if name == "context_length" or name in servers.SERVERS:
        too_many = max(ask.prompt_tokens, window + 1)
        if name in servers.SERVERS:  # another server's words, whatever the profile
            raise servers.overflow(name, window, too_many, ask.max_tokens)
        raise ApiError(400, "context_length", window=window, prompt_tokens=too_many)
    return False


def error_event(fault: Fault, window: int) -> ApiError:
    """The error `error_event[:N[:STATUS]]` stands for (a 500 by default); for
    `echo_credentials` faults one of that status saying what the request carried."""
    status = fault.status or 500
    if fault.name in ECHOES:
        return echo_error(fault.name, status, fault.echo, fault.echo_names)
    if status == 429:
        return ApiError(429, "rate_limit", rate_message(1.0))
    if status in (503, 529):
        return ApiError(status, "overloaded", "Overloaded")
    if status == 400:
        return ApiError(400, "context_length", window=window, prompt_tokens=window + 1)
    return ApiError(status, "server_error", "Internal server error")


def rate_message(seconds: float) -> str:
    """OpenAI's words for a 429, naming when to try again."""
    return (
        "Rate limit reached for requests per min (RPM): Limit 500, Used 500, Requested 1. "
        f"Please try again in {seconds:g}s."
    )
