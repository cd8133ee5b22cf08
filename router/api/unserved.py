"""A WARNING line, now and then, for requests to a path (or method) the router does not serve.

A client that keeps sending `POST /v1/embeddings` (an agent with one base URL for every
API) gets a 404 that says what is served (`router.api.errors.no_such_endpoint`), but its
operator saw nothing: only `rejected_requests_total{api="other"}` went up, which names no
path. So the first such request of each method and path is logged, naming the caller when
its key names one, then at most one line every `LOG_INTERVAL_S` per method and path,
saying how many it stands for (`router.log_sparing.Sparing`). Never a body, a key or a
query string: the path as routed, its first `PATH_CHARS` characters, escaped.

Paths are the client's to choose: a scanner sends thousands, and a client asking for stored
responses one path each (`/v1/responses/resp_...`) as many. So at most `REMEMBERED` method and
path pairs are remembered, those seen most recently: a pair new while the table is full takes
the place of the one seen least recently, and its first line shares one `Sparing` with every
other such newcomer (named only when it is the one that passes); from then on, while it
keeps coming, it has lines of its own. Memory and log lines stay bounded whatever arrives,
and a client misconfigured late in the process's life is still named: the first pairs were
held for good, and every later one shared a line (found in review).

Claude Code sends `HEAD /api/hello` (a reachability probe of Anthropic's API) each time it
starts; it goes on whatever the answer, so its 404 is expected and logged by nobody: a
warning on every start of every developer's Claude Code sent operators hunting for a
misconfigured client that was not there (found in a live run).
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping

from router.auth import Authenticator
from router.errors import RouterError
from router.log_sparing import Sparing

log = logging.getLogger("smf_router.api")

LOG_INTERVAL_S = 300.0
REMEMBERED = 256
PATH_CHARS = 200
# Requests a client sends expecting a 404 from anything but its own vendor's API.
EXPECTED = frozenset({("HEAD", "/api/hello")})
# What an operator is told of any other unserved request
ADVICE = "the client may need another base URL or a backend of its own"


class Unserved:
    """The lines of one process (its log is one); not locked: called on the event loop."""

    def __init__(
        self,
        interval_s: float = LOG_INTERVAL_S,
        remembered: int = REMEMBERED,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.interval_s = interval_s
        self.remembered = remembered
        self.clock = clock
        # the pairs seen most recently, the least recent first
        self.pairs: OrderedDict[tuple[str, str], Sparing] = OrderedDict()
        self.others = Sparing(interval_s)  # the first line of a pair new while it is full

    def seen(
        self, method: str, path: str, status: int, caller: str | None, advice: str | None = None
    ) -> None:
        """Say, sparingly, that `method path` was answered `status` (404, 405) for `caller`
        (None: no key, or one the router does not hold), with `advice` for its operator
        where the answer knows better than `ADVICE` (a WebSocket's, `errors.WEBSOCKET_ADVICE`)."""
        if (method, path) in EXPECTED:
            return
        shown, now = _shown(path), self.clock()
        pair = (method, shown)
        lines = self.pairs.get(pair)
        if lines is not None:
            self.pairs.move_to_end(pair)
        elif len(self.pairs) < self.remembered:
            lines = self.pairs[pair] = Sparing(self.interval_s)
        else:
            self.pairs.popitem(last=False)  # the pair seen least recently
            newcomer = self.pairs[pair] = Sparing(self.interval_s)
            newcomer.passes(now)  # its own lines from the next interval on
        held = (lines or self.others).passes(now)
        if held is None:
            return
        log.warning(
            "%d for %s %s (caller %s): the router does not serve it; %s (%d such lines held "
            "back since the last%s; at most one every %.0f s, all counted in "
            "rejected_requests_total)",
            status,
            method[:16],
            shown,
            caller or "unknown",
            advice or ADVICE,
            held,
            "" if lines else f" for any path new while {self.remembered} others were remembered",
            self.interval_s,
        )


def _shown(path: str) -> str:
    """The path as a log line may hold it: its first `PATH_CHARS` characters, anything not
    printable escaped (a line of its own must not be forged from a path)."""
    cut = path[:PATH_CHARS]
    shown = cut if cut.isprintable() else cut.encode("unicode_escape").decode("ascii")
    return shown + ("..." if len(path) > PATH_CHARS else "")


LINES = Unserved()


def caller_name(auth: Authenticator, headers: Mapping[str, str]) -> str | None:
    """The name the request's key gives, or None (no key, a wrong one): only to name it."""
    try:
        return auth.caller(headers).name
    except RouterError:  # a refused key names no one
        return None
