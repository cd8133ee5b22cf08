"""Which server a backend is: what a hot reload may change about a backend's settings
while it still names the same server, and what makes it another one.

One definition for every part that keeps something learned about a server across a
reload: the canary's windows and gates (`router.canary_judge`), and resilience's breaker,
in-flight load and 429 wait (`router.resilience`, `router.retirement`). And whose quota a
backend's requests count against (`credentials`), which a reload may change on the same
server: a wait a 429 asked for is that key's (`router.resilience_reload`), and one a call
sent with another key met is not the backend's (`router.backend_waits.speaks_for`).
"""

from __future__ import annotations

import hashlib

import orjson

from evals.urls import masked_url
from router.config import Backend as BackendSettings


def fingerprint(settings: BackendSettings) -> str:
    """What makes a backend the server it is: its kind, URL, model and extra body (thinking
    on or off answers differently), hashed (the extra body may hold anything). The URL is the
    masked one: a new password or `api-version` value is the same server. One definition for
    a reload, a restart's recall and a follower: the recall and the follower compared the
    model and URL only, and brought a server whose `extra_body` a reload had changed back
    under its predecessor's gates (found in re-review)."""
    url = masked_url(settings.base_url) if settings.base_url else None
    what = [settings.kind, url, settings.model, settings.extra_body]
    # the config made extra_body JSON (`Backend._as_json`): orjson writes all of it
    text = orjson.dumps(what, option=orjson.OPT_SORT_KEYS)
    return hashlib.blake2b(text, digest_size=8).hexdigest()


def same_server(ran: BackendSettings, now: BackendSettings) -> bool:
    """Whether the settings `ran` and `now` name the same server. A reload that changed a
    backend's kind, URL, model or extra body points the name at another server, where what
    was learned starts over; one that changed its timeouts, price, tier, headers or
    concurrency does not, and what was learned stays."""
    return fingerprint(ran) == fingerprint(now)


def credentials(settings: BackendSettings) -> str:
    """Whom the backend's requests count against, hashed (never kept or shown as is): its
    `api_key_env` and the key it holds, its headers (a key, a gateway's token, an
    organization or project, named as each provider names it) and the credentials in its
    URL (`secret_values`: a password, a key in the query). Rate limits are per key or
    organization: a reload that gives the backend another key is the operator's way out of
    the old one's limit."""
    what = [
        settings.api_key_env,
        settings.api_key,
        sorted(settings.headers.items()),
        sorted(settings.secret_values()),
    ]
    text = orjson.dumps(what)
    return hashlib.blake2b(text, digest_size=8).hexdigest()


def same_credentials(ran: BackendSettings, now: BackendSettings) -> bool:
    """Whether the settings `ran` and `now` send the backend's requests with the same
    credentials (`credentials`)."""
    return credentials(ran) == credentials(now)
