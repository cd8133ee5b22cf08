"""The routing headers a client sends, `x-smf-private` and `x-smf-route`, and the target
they and `model` pick: read the same way by every endpoint that plans a request (serving,
`explain`, `/v1/messages/count_tokens`, the record of a refused request).

Both headers may arrive repeated, joined with commas (`router.api.headers`). An empty item
beside a real one (`1, `) is ignored; a header with no item at all (curl's `-H
'x-smf-private;'`, a client that sends an unset variable's empty value) is a 400 naming it:
read as absent, the privacy switch failed open, and a forced route fell back to `model`.
curl itself drops `-H "x-smf-private: $PRIVATE"` with the variable unset or empty: no header
arrives, and nothing here can tell (the README says to write `${PRIVATE:?}`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from router.auth import Caller
from router.config import Config
from router.errors import BadRequest, NotFound
from router.policy import Target, resolve_target

_YES, _NO = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


def header_items(headers: Mapping[str, str], name: str) -> list[str]:
    """The stripped, non-empty comma-separated items of header `name`; none when it is
    absent, a 400 when it is present and empty."""
    value = headers.get(name)
    if value is None:
        return []
    items = [item.strip() for item in value.split(",") if item.strip()]
    if not items:
        raise BadRequest(f"{name} is empty: send a value or leave the header out")
    return items


def is_private(caller: Caller, headers: Mapping[str, str]) -> bool:
    """A private request never leaves for a cloud backend: the caller's key says so, or the
    request's `x-smf-private` header. A value that is neither yes nor no is refused rather
    than read as "not private", and of repeated headers one yes is enough: a privacy switch
    must not fail open."""
    values = [v.lower() for v in header_items(headers, "x-smf-private")]
    for value in values:
        if value not in _YES and value not in _NO:
            raise BadRequest(
                f"x-smf-private must be one of {', '.join(_YES + _NO)}, not {value[:20]!r}"
            )
    return caller.private or any(v in _YES for v in values)


def target_of(config: Config, body: dict[str, Any], headers: Mapping[str, str]) -> Target:
    """The route, backend or `auto` a request asks for: `x-smf-route` where auth allows it,
    else `model`. A header naming nothing is the client's 400, an unknown `model` a 404."""
    forced: str | None = None
    if config.auth.allow_route_header:
        names = set(header_items(headers, "x-smf-route"))
        if len(names) > 1:  # repeated headers, joined: one route, or the client's 400
            raise BadRequest("x-smf-route was sent more than once, naming different routes")
        forced = names.pop() if names else None
    model = forced or str(body["model"])
    target = resolve_target(model, config)
    if target is None:
        known = ", ".join(["auto", *config.routes, *(b.name for b in config.backends)])
        if forced:  # the client's header, not its `model`: a 400 like a repeated header
            raise BadRequest(
                f"x-smf-route '{forced[:100]}' names no route or backend here; use one of: {known}"
            )
        raise NotFound(
            f"The model '{model[:100]}' does not exist here; use one of: {known}", param="model"
        )
    return target
