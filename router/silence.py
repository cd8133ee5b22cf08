"""A backend that says nothing: when a client's hang-up counts against the backend.

A backend that takes connections and passes `/health` but never answers is judged by the
router's first-token deadline (`timeouts.first_token_s`, kind `first_token_timeout`) or, for
a whole (non-streamed) reply, by `timeouts.total_s` alone (540 s by default), but only when a
client waits that long. Clients give up sooner (a person pressing Esc in Claude Code, an
SDK's timeout: OpenHands' 300 s, browser-use's 75 s step, Shell-GPT's 60 s), and a hang-up
is the client's doing, neutral for the breaker: every request went to the dead backend
first, none fell back, its circuit never opened and `smf_router_backend_up` stayed 1 (found
in review, for streams; then live, for whole replies, three times). So an attempt its client
left after waiting `silent_after` with nothing from the backend that shows its engine at
work on the request counts for the breaker as the backend's failure, kind `SILENT`, unless
the backend is evidently alive or busy (`Life.busy`): silence is judged only of a backend
silent to everyone, with no queue it reports. A stream shows work by its first output
(`shows_work`); a whole reply shows nothing until it is complete, so its only evidence of
work is the backend's: another request answered meanwhile, or vLLM's `/metrics` counting
requests running (`Life.generating`), which a long healthy generation (4096 tokens take one
to two minutes on a local GPU) shows all along, and a request hung short of the engine (in a
wedged server or a proxy in front) never does. An engine stuck with requests running looks
busy then: its whole replies are judged by `total_s` (a timeout counts), its streams by
their silence.

A backend whose `/metrics` the router does not read (a cloud API, Ollama) has no such count:
there a whole reply its client left past `silent_after`, with nothing else answered there
meanwhile, is one silence, however healthy the generation it cut. That is accepted: one opens
nothing, the circuit opens after `failure_threshold` (3) in a row, and any success on the
backend (another request's, a short one's) starts the count again; a backend whose every
answer, for three clients in a row, outlasted what they would wait gave none of them an
answer, and the next requests are better off at the fallback. Judging no whole reply there
instead would leave a hung Ollama, or a cloud API that hangs, as the review found the local
one: never left.

An opened circuit's trial is a live request (`router.health.UNPROBED_KINDS`: `/health`
passes on a hung backend), which meets the hung backend again: a lone client whose next
request comes after the open wait (`open_s`, up to `max_open_s`) waits out its own timeout
once more for each trial. `timeouts.total_s` below the clients' timeout still fails over
sooner: within the request, from the first hung one on.

The request is still `cancelled` (499) and the attempt's row and metrics still say
`cancelled`: that is what ended them; only the breaker's verdict (and the attempt span's
status, `router.dispatch`) differs.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from router.record import CHAT_APIS, Api

if TYPE_CHECKING:
    from router.backends.base import Backend
    from router.config import Backend as BackendSettings

# The kind the breaker is told (`router.health.FAILURE_KINDS`), named in the log line of the
# opening: not `first_token_timeout`, a deadline that did not fire.
SILENT = "silent"

# The kind the breaker is told of a deadline that fired before the backend showed work on
# the request while `Life.busy` says it was busy: the wait was in its queue, and an
# overloaded backend is a working one. Neutral (not in `router.health.FAILURE_KINDS`): a
# burst of twelve streams on a backend with `max_concurrency: 2` served six, the six
# waiting in vLLM's queue past `first_token_s` opened its circuit, and the next private
# request got a 503 (found in review). The client still gets its 504 (or the fallback),
# and the attempt's row, metrics and span still say the timeout.
QUEUED = "queued"

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


def silent(working: bool, waited_s: float, first_token_s: float) -> bool:
    """Whether an attempt its client left after `waited_s` counts as its backend's failure
    (unless `Life.busy` excuses it): one that showed nothing of its engine at work yet
    (`Hold.working` false: headers, keep-alive comments and openers are no answer; a whole
    reply's attempt shows nothing before it is complete, and one that completed is no longer
    an attempt to leave), after at least `silent_after(first_token_s)`. Never a stream after
    its engine showed work: the backend was working when the client left. A whole reply's
    silence is how a long healthy answer looks too, so `Life.busy` reads more evidence for
    it (`whole`)."""
    return not working and waited_s >= silent_after(first_token_s)


def shows_work(api: Api, translated: bool, obj: dict[str, Any]) -> bool:
    """Whether a held stream event (a parsed `data:` object before the first output or end,
    which show it anyway: `router.commit`) shows the engine at work on the request.

    A chat chunk with a choice does, a role-only one too: vLLM (as llama.cpp and SGLang)
    sends it with the engine's first output, and the chat API has no opener a server sends
    before; a chunk without one (Azure's prompt-filter results) comes before generation.
    Every event translated from a chat backend's stream comes from such a chunk (its
    `message_start` from the role chunk, the translators holding their openers back past a
    choice-less one; the Messages one's `ping`s and the Responses one's reasoning items from
    a reasoning model's thinking). A native
    Messages or Responses event before the first output does not: servers open those
    streams before the engine takes the request up, one waiting in a full vLLM's queue
    included (Anthropic's `message_start` and `ping`s, vLLM's
    `response.created` and `response.in_progress`), and a block or an item opens empty
    before its first delta. A model reasoning unseen behind an open item (OpenAI's hidden
    reasoning) is taken for silent then; its backend's other answers excuse it (`Life`)."""
    if translated:
        return True
    return api in CHAT_APIS and bool(obj.get("choices"))


class Life:
    """Evidence that a backend is alive or busy, against which a silence proves nothing (nor
    a deadline that fired before the backend showed work on the request: `QUEUED`):
    when any stream on it last showed its engine at work or a whole reply of it came, the
    sources (`queues`: the capacity tracker, `Capacity.queued`) that say a request sent
    there now may wait in its queue, and those (`generating`: `Capacity.generating`) that
    say its engine reports requests running. A vLLM with `max-num-seqs` full sends a queued
    stream its headers alone, and clients giving up on such streams opened the circuit of a
    backend streaming other answers (found in re-review): an overloaded backend is a working
    one. Kept per backend object, so a reload that re-points a backend starts its evidence
    over; shared by the dispatchers a reload makes."""

    def __init__(self) -> None:
        self._heard: weakref.WeakKeyDictionary[Backend, float] = weakref.WeakKeyDictionary()
        # settings, and whether the backend was heard of late (`busy`): in-flight counts
        # are evidence of a queue only then
        self.queues: list[Callable[[BackendSettings, bool], bool]] = []
        # settings: whether the backend's engine reports requests running now
        self.generating: list[Callable[[BackendSettings], bool]] = []

    def heard(self, backend: Backend) -> None:
        """A stream on `backend` showed its engine at work, now, or a whole reply came."""
        self._heard[backend] = time.monotonic()

    async def relayed(self, backend: Backend, pieces: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
        """The rest of a committed stream (its engine has shown work), marking `backend`
        heard at each piece with an event in it; a keep-alive comment (or an empty piece of a
        translated stream) is no output."""
        async for piece in pieces:
            if b"data:" in piece:
                self._heard[backend] = time.monotonic()
            yield piece

    def busy(self, backend: Backend, since: float, whole: bool = False) -> bool:
        """Whether `backend` is evidently alive or busy for an attempt started at `since`
        (monotonic): a stream on it showed work since, or a whole reply came, or a source
        says it queues, or, for a `whole` reply's silence, a source says its engine has
        requests running. Whether it was heard within `silent_after` before the attempt began
        is what the queue sources are told: the attempt waited that long since, so a window
        ending now would hold nothing the first test had not taken; a backend heard of late
        may well have its slots full of live requests, one heard of long before (or never)
        is no evidence of that.

        Requests running are read for a whole reply's silence only. That reply shows nothing
        of the engine's work until it is complete, and the count is the one sign of it: a
        long healthy generation whose client left after 30 s was otherwise taken for a
        silence. A stream shows its engine's work itself, by its first output: one silent
        past `silent_after` while the engine reports requests running is a stuck engine or
        a very long prefill, judged as before. Nor does a deadline read it
        (`QUEUED`): a whole reply past its `total_s` while the engine runs requests is a
        generation past its bound, not a wait in a queue."""
        heard = self._heard.get(backend)
        if heard is not None and heard > since:
            return True
        settings = backend.settings
        if whole and any(running(settings) for running in self.generating):
            return True
        window = silent_after(settings.timeouts.first_token_s)
        alive = heard is not None and heard >= since - window
        return any(queued(settings, alive) for queued in self.queues)
