"""The router's own words for a transient failure of a stream after it began.

Once a 200 went out, a client sees no HTTP status: the in-band error event is all it has,
and clients decide by its words whether to ask again. pi (the pi coding agent) retries when
the message matches, among others, "server error", "connection lost", "ended without",
"timed out" or "timeout" (its `_isRetryableError`, docs/agents/errors.md). Against vLLM
directly, a cut stream is pi's own HTTP error, "terminated", and it retries; through the router
the same cut was "local: stream broke (UpstreamClosed)", a stall "stream stalled for 60 s",
an engine's abort "the answer was stopped (finish_reason 'abort')": none matched, and pi
ended its run where a retry would have cured it (found live, pi 0.73.1).

So each failure a retry may cure says what happened in those words, honestly: a broken
connection (`broke`), a stream that ended short (`ended_unfinished`), a stall (`stalled`),
the total deadline (`out_of_time`), the engine stopping the answer (`stopped_by_backend`).
What a retry meets again says none: a malformed reply, a refusal, a bug of ours. Each
error keeps its `code` and `type`; the words are for a reader, never for the router, which
decides fallback by the error's class (`router.errors`).
"""

from __future__ import annotations


def broke(name: str, exc: BaseException, lead: str = "stream broke") -> str:
    """The upstream's connection broke mid-reply (closed, reset, garbled: then dropped).
    "connection lost" side by side: pi's `connection.?lost` took "the connection to the
    backend was lost" for no such thing."""
    return f"{name}: {lead}: connection lost mid-reply ({type(exc).__name__})"


def ended_unfinished(name: str, what: str = "the answer") -> str:
    """The upstream's stream ended (a close, or `[DONE]`) before `what` said why it stopped."""
    said = f"stream cut: it ended without finishing {what}"
    return f"{name}: {said}" if name else said


def stalled(name: str, wait_s: float) -> str:
    """Nothing came from the upstream (no event, no keep-alive) for `wait_s`."""
    return f"{name}: stream stalled: nothing arrived for {wait_s:g} s (timed out)"


def out_of_time(name: str) -> str:
    """The attempt's total time limit ran out mid-stream."""
    return f"{name}: total time limit reached mid-stream (timed out)"


def stopped_by_backend(reason: str | None = None) -> str:
    """The engine stopped the answer (vLLM's `finish_reason: "abort"` on shutdown, sleep or
    scale-down; its "error"; DeepSeek's "insufficient_system_resource"): the server's
    failure, which another try may well not meet."""
    named = "" if reason is None else f" (finish_reason {reason!r})"
    return f"the backend stopped the answer{named}: a server error, a retry may succeed"
