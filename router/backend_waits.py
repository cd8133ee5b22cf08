"""A backend's ask for a wait, told to what keeps it (`Health.asked_to_wait`), whatever
request met it: a live attempt (`router.dispatch`), a canary case (`router.canary_wait`), a
shadow replay or its judge's call (`router.shadow_replay`).

One path for all: the same rule (`asked_wait`: a 429's, or an overloaded 503's or 529's,
`Retry-After` longer than the backend's `retry_after_max_s`; none without one), the same
listeners, so the same state, log line and gauges, and the same test of whether the call
still speaks for the backend its name has now (`speaks_for`: not after a reload gave the
name another server or other credentials). Told by live attempts alone, a wait the
canary or a shadow met was the canary's own (its round passed the backend by) or nobody's:
the next live request went to the backend first, got the same 429 and fell back, a round
trip its user waited through, the provider asked again for nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from router.attempt_errors import UpstreamError, asked_wait
from router.backend_state import Wait
from router.config import Backend as BackendSettings
from router.server_identity import same_credentials, same_server

if TYPE_CHECKING:
    from router.components import Components

# Told that a backend asked for a wait longer than its `retry_after_max_s` (a 429's or an
# overloaded 503's `Retry-After`): (backend, seconds, which). Health passes it by till then.
WaitListener = Callable[[str, float, Wait], None]
# A router's own call (a canary case, a shadow replay, a judge's call) failed with `error`,
# sent with the backend settings `ran`
Heard = Callable[[BackendSettings, UpstreamError], None]


def tell(
    listeners: Iterable[WaitListener],
    ran: BackendSettings,
    now: BackendSettings | None,
    error: UpstreamError,
) -> None:
    """Tell `listeners` of the wait `error` asks of the backend `ran` names, if it asks one
    and `ran` still speaks for that backend, whose settings are `now` (`speaks_for`)."""
    if not speaks_for(ran, now):
        return
    asked = asked_wait(error, ran.retry_after_max_s)
    if asked is None:
        return
    kind, seconds = asked
    for listener in listeners:
        listener(ran.name, seconds, kind)


def speaks_for(ran: BackendSettings, now: BackendSettings | None) -> bool:
    """Whether a call sent with the settings `ran` answers for the backend its name has now
    (`now`; None: a reload removed it): the same server (`same_server`) and the same
    credentials (`same_credentials`). A call sent before a reload that changed either met
    the old server's or the old key's wait, which the reload forgot
    (`router.resilience_reload`); told, it passed the new one by. One test for every call:
    a live attempt on a backend a reload retired (`Retirement.now`) and a canary case or
    shadow call (`heard_by`). Live attempts were asked whether the server moved only: a
    late 429 for the old key, answered after a reload gave the backend a new one, kept the
    new key's traffic away for the old key's hour (found in review)."""
    return now is not None and same_server(ran, now) and same_credentials(ran, now)


def unheard(ran: BackendSettings, error: UpstreamError) -> None:
    """Outside a router (`smf-router canary run`, the CronJob): no live traffic to tell."""


def heard_by(components: Components) -> Heard:
    """What a router's canary and shadow tell of their calls' errors: the waits they ask,
    to the listeners live attempts tell (`Dispatcher.waits`, read at each call: a reload
    makes another dispatcher, with the same listeners), of the backend the running config
    names as the call's (`speaks_for`)."""

    def heard(ran: BackendSettings, error: UpstreamError) -> None:
        config = components.config
        now = config.backend(ran.name) if ran.name in config.backend_names else None
        tell(components.gateway.dispatcher.waits, ran, now, error)

    return heard
