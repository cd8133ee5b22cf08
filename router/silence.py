"""A backend that says nothing: when a client's hang-up counts against the backend.

A backend that takes connections and passes `/health` but never answers is judged by the
router's first-token deadline (`timeouts.first_token_s`, kind `first_token_timeout`), but
only when a client waits that long. Clients give up sooner (a person pressing Esc in Claude
Code, an SDK's timeout), and a hang-up is the client's doing, neutral for the breaker: every
request went to the dead backend first, none fell back, its circuit never opened and
`smf_router_backend_up` stayed 1 (found in review). So a streamed attempt its client left
after waiting `silent_after` with nothing from the backend that the first-token deadline
would count (no event yet) counts for the breaker as the backend's failure, kind `SILENT`.
The request is still `cancelled` (499) and the attempt's row and metrics still say
`cancelled`: that is what ended them; only the breaker's verdict (and the attempt span's
status, `router.dispatch`) differs.
"""

from __future__ import annotations

# The kind the breaker is told (`router.health.FAILURE_KINDS`), named in the log line of the
# opening: not `first_token_timeout`, a deadline that did not fire.
SILENT = "silent"

# The longest wait that judges a silence when `first_token_s` is longer. `first_token_s` is
# the operator's own bound (README's example: 60 s, long enough for the prefill of a long
# prompt), and clients rarely wait that long: judged only there, a dead backend whose
# clients give up sooner was never judged. 30 s is well past an impatient person's Esc (a
# dozen seconds), and past the prefill of most prompts; a 100k-token prompt on a DGX Spark
# may take longer, which is why one silence opens nothing: the circuit opens after
# `failure_threshold` (3) failures in a row, and any success on the backend (another
# request's) starts the count again. A fraction of `first_token_s` instead would judge a
# short deadline (5 s) before the operator's own bound, and a long one no better.
SILENT_S = 30.0


def silent_after(first_token_s: float) -> float:
    """How long a stream's backend may say nothing before a hang-up is its failure: its
    `first_token_s` (a client that waited as long as the router would have saw what the
    router's own deadline judges), capped at `SILENT_S`."""
    return min(first_token_s, SILENT_S)


def silent(stream: bool, opened: bool, waited_s: float, first_token_s: float) -> bool:
    """Whether an attempt its client left after `waited_s` counts as its backend's failure:
    a stream with no event yet (`Hold.opened` false; headers alone, which vLLM sends before
    prefill, are no answer), after at least `silent_after(first_token_s)`. Never a whole
    reply: a healthy backend sends nothing of one until it is complete (a long answer takes
    minutes, bounded by `total_s` alone), so its silence is how an answer looks. Never a
    stream after its first event: the backend was working when the client left."""
    return stream and not opened and waited_s >= silent_after(first_token_s)
