"""The routing headers a client sends, `x-smf-private`, `x-smf-route` and
`x-smf-session-id`, and the target `x-smf-route` and `model` pick: read the same way by
every endpoint that plans a request (serving, `explain`, `/v1/messages/count_tokens`, the
record of a refused request).

Each may arrive repeated, joined with commas (`router.api.headers`). An empty item
beside a real one (`1, `) is ignored; a header with no item at all (curl's `-H
'x-smf-private;'`, a client that sends an unset variable's empty value) is a 400 naming it:
read as absent, the privacy switch failed open, and a forced route fell back to `model`.
curl itself drops `-H "x-smf-private: $PRIVATE"` with the variable unset or empty: no header
arrives, and nothing here can tell (the README says to write `${PRIVATE:?}`).

A value is read as UTF-8, as curl sends what is typed (a byte that is not UTF-8 as its
escape, `\\xff`): read as Latin-1 (how headers arrive), `x-smf-route: 快速` missed the
alias `快速` that the 400 then offered, and was quoted back garbled, C1 control characters
included (found in review).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from router.auth import Caller
from router.config import Config
from router.errors import BadRequest, NotFound
from router.field_refusals import with_anthropic_words
from router.target import Target, model_names, resolve_target

_YES, _NO = ("1", "true", "yes", "on"), ("0", "false", "no", "off")
# Characters of names a refusal of an unknown one offers: a config of hundreds of aliases
# made a message of them all. `GET /v1/models` lists every one.
OFFERED_CHARS = 300
# The router's own session header (`session_header`), and its longest value
SESSION = "x-smf-session-id"
SESSION_CHARS = 256


def header_items(headers: Mapping[str, str], name: str) -> list[str]:
    """The stripped, non-empty comma-separated items of header `name`; none when it is
    absent, a 400 when it is present and empty."""
    value = headers.get(name)
    if value is None:
        return []
    value = as_written(value)
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
                f"x-smf-private must be one of {', '.join(_YES + _NO)}, not {quoted(value, 20)}"
            )
    return caller.private or any(v in _YES for v in values)


def session_header(headers: Mapping[str, str]) -> str | None:
    """The session `x-smf-session-id` names (None without the header), for the conversation
    key (`router.session.session_id`), for a client that can set a header but not a body
    field (Flowise's ChatOpenAI node, a curl script, a proxy). Refused as `x-smf-route` is
    (`header_items`): empty, or repeated naming two sessions (a comma in it reads so); and
    past `SESSION_CHARS` characters or with one that does not print, as `x-request-id` is
    bounded. A 400, not ignored: read as absent, two sessions that open alike would silently
    be one conversation sharing one pin, the header's whole point lost. The value is the
    caller's and is never quoted back, logged or recorded: only its hash keys anything."""
    items = header_items(headers, SESSION)
    if len(set(items)) > 1:
        raise BadRequest(
            f"{SESSION} was sent more than once, naming different sessions (or has a comma)"
        )
    if items and (len(items[0]) > SESSION_CHARS or not items[0].isprintable()):
        raise BadRequest(f"{SESSION} must be at most {SESSION_CHARS} printable characters")
    return items[0] if items else None


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
        known = f"use one of: {offered(model_names(config))}"
        if forced:  # the client's header, not its `model`: a 400 like a repeated header
            raise BadRequest(
                f"x-smf-route {quoted(forced, 100)} names no route or backend here; {known}"
            )
        missing = f"{quoted(model, 100)} does not exist here; {known}"
        # Anthropic's 404 names the field first ("model: claude-x"), OpenAI's says "The model"
        raise with_anthropic_words(NotFound(f"The model {missing}", param="model"), missing)
    return replace(target, by_header=True) if forced else target


def as_written(value: str) -> str:
    """A header's value as the client wrote it, from the Latin-1 it arrives as: its bytes
    read as UTF-8, a byte that is not UTF-8 as its escape (`\\xff`)."""
    return value.encode("latin-1", "backslashreplace").decode("utf-8", "backslashreplace")


def quoted(text: str, limit: int) -> str:
    """The first `limit` characters of a name the client sent, quoted for a message, with
    the characters that do not print escaped (`\\n`, `\\x85`)."""
    shown = (c if c.isprintable() else c.encode("unicode_escape").decode() for c in text[:limit])
    return f"'{''.join(shown)}'"


def offered(names: list[str]) -> str:
    """`names` joined for a refusal to offer, as many as fit in `OFFERED_CHARS` (the first,
    `auto`, always), then how many more there are and where to find them."""
    shown: list[str] = []
    size = 0
    for name in names:
        size += len(name) + 2
        if shown and size > OFFERED_CHARS:
            break
        shown.append(name)
    rest = len(names) - len(shown)
    more = f", and {rest} more (GET /v1/models lists them all)" if rest else ""
    return ", ".join(shown) + more
