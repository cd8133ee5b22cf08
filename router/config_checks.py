"""What single config values must look like before anything is built from them.

Each of these passed `config check` once and failed later: at the first request, with a
traceback from `serve`, or silently (a typo that did nothing). The config model's
validators call them, so start, reload and `config check` refuse the same things.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from pydantic import AfterValidator

from classifier.intent import INTENTS
from router.translate.pairing import native

if TYPE_CHECKING:  # `router.config_backend`, `router.config_sections` and `router.config` import it
    from router.config import Config
    from router.config_backend import Backend

_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")  # an RFC 9110 token
_LABEL = r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?"
_HOST_NAME = re.compile(rf"{_LABEL}(?:\.{_LABEL})*")
# The most days a retention or a `--days` window may span: 100 years keeps everything a
# user means by "keep it all", where a million days overflowed the date arithmetic (before
# year 1) and stopped retention, and with it compaction, at every run.
MAX_DAYS = 36500
# The bounds of the config's waits, deadlines and intervals, as a reader counts them: each
# field says why it has the one it has.
HOUR_S = 3600
DAY_S = 86400


def at_most(seconds: int, said: str) -> AfterValidator:
    """`le=seconds` with the bound also said as a reader counts it: pydantic's message alone
    said "less than or equal to 2592000" (found in review)."""

    def check(value: float) -> float:
        if value > seconds:
            raise ValueError(f"Input should be less than or equal to {seconds} ({said})")
        return value

    return AfterValidator(check)


# What a backend's `extra_body` may not fill in, and why: the router or the request itself
# sets each. `extra_body: {stream: true}` loaded, and every whole request then read a stream
# as a whole reply: a malformed answer, three, and an open circuit (found in review).
_NOT_EXTRAS = {
    "model": "the router sends the backend's `model` setting there",
    "stream": "the client's request says whether it streams, and the router reads the reply "
    "as it says",
    "stream_options": "the router asks for usage in a stream itself, and OpenAI's API and "
    "vLLM refuse stream_options on a whole request",
    "messages": "it is the request's own text, which every client sends",
    "prompt": "it is the request's own text, which every client sends",
    "input": "it is the request's own text, which every client sends",
    # `n: 2` loaded, and every reply to a client that left n out came with two choices it did
    # not ask for, billed twice; and the router plans on the request's n (found in review)
    "n": "the request says how many choices it wants, and the router plans on that: which "
    "backends can return several, when a stream has ended whole",
}


def check_extra_body(body: dict[str, object]) -> dict[str, object]:
    """`body` unless it names a key the router or the request sets (`_NOT_EXTRAS`): as
    defaults merged into each request, such a key filled in what the client left out."""
    for key in body:
        if (why := _NOT_EXTRAS.get(key)) is not None:
            raise ValueError(f"{key}: cannot be a default for requests: {why}")
    return body


def is_header_name(name: str) -> bool:
    return _HEADER_NAME.fullmatch(name) is not None


def header_safe(value: str) -> bool:
    """Text an HTTP/1.1 header value can carry: Latin-1 without control characters but tab."""
    return all(c == "\t" or (" " <= c <= "\xff" and c != "\x7f") for c in value)


def check_entries(entries: list[str], check: Callable[[str], str]) -> list[str]:
    """Each of a list's `entries` as `check` keeps it; an error names the entry by its
    index and says why, never quoting it: an entry may hold a password
    (`https://u:pw@x`), and the message reaches `config check`, the log of a refused reload
    and its 400 answer (found in review). `check` says why after "entry N"."""
    checked = []
    for index, entry in enumerate(entries):
        try:
            checked.append(check(entry))
        except ValueError as exc:
            raise ValueError(f"entry {index} (counting from 0) {exc}") from None
    return checked


def check_origin(origin: str) -> str:
    """A web origin as browsers send it (`scheme://host[:port]`: a page's `https://...`, an
    extension's `chrome-extension://<id>`, an Electron app's `app://...`), normalised for
    comparing with the `Origin` header: lower case, no trailing slash, no default port, a
    name in another script in its punycode form. An entry is compared whole, so one no
    browser sends (a wildcard, a user and password, a bad port) silently did nothing
    (found in review): refused, saying why, never quoting it (it may hold a password)."""
    text = origin.strip().rstrip("/").lower()
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:  # Python's message quotes the port: after a `:` in a password
        parts, port = urlsplit(""), -1
    if "*" in text:
        why = "holds a *, but entries are compared whole, never as patterns: list each origin"
    elif "@" in text:
        why = "holds a user or password, which no browser sends in an Origin"
    elif port == -1 or port == 0 or parts.netloc.endswith(":"):
        why = "has a port that is not a number from 1 to 65535, or is no URL"
    elif not parts.scheme or not parts.netloc or parts.path or parts.query or parts.fragment:
        why = "is not an origin like https://chat.example:8443 (no path, query or fragment)"
    elif (found := _origin(parts.scheme, parts.hostname or "", port)) is None:
        why = "has no host a browser could send (a DNS name or an IP address)"
    else:
        return found
    raise ValueError(why)


_DEFAULT_PORTS = {"http": 80, "https": 443}


def _origin(scheme: str, host: str, port: int | None) -> str | None:
    """The origin as browsers serialise it, without their default port (`https://x:443`
    never matched), or None for a host no browser sends."""
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            return None
    if ":" in host:  # an IPv6 address (urlsplit checked it), without its brackets
        host = f"[{host}]"
    elif not _HOST_NAME.fullmatch(host):
        return None
    default = port is None or _DEFAULT_PORTS.get(scheme) == port
    return f"{scheme}://{host}" if default else f"{scheme}://{host}:{port}"


def check_host_name(name: str) -> str:
    """A DNS name as the `Host` header carries it without its port, normalised for comparing
    with it: lower case, no trailing dot. A port, scheme or path would never match a Host
    the router compares it with, so the entry would silently do nothing. A name in another
    script (`bücher.lan`) was refused as no host name, though browsers send it, in its
    punycode form (`xn--bcher-kva.lan`): that form is what is kept (found in review). Refused
    saying why, never quoting it (`check_entries`): `http://u:pw@x` held a password."""
    host = name.strip().lower().rstrip(".")  # as the Host header is read
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")  # IDNA 2003: what Python ships
        except UnicodeError:
            host = ""  # an empty or overlong label: refused below
    if _HOST_NAME.fullmatch(host):
        return host
    raise ValueError(
        f"{_not_host_name(name.strip())}, so it is not a host name like router.lan or "
        "bücher.lan (its punycode form xn--bcher-kva.lan too; no scheme, port, path or "
        "wildcard; IP addresses and localhost need no listing)"
    )


def _not_host_name(text: str) -> str:
    """Why `text` is no host name, in words that quote none of it."""
    if not text:
        return "is empty"
    if "://" in text:
        return "has a scheme (such as http://)"
    if "@" in text:
        return "holds a user or password"
    if "*" in text:
        return "holds a *, but entries are compared whole, never as patterns"
    if "/" in text:
        return "has a path"
    if ":" in text:
        return "has a port (or is an IPv6 address, which needs no listing)"
    return "has a character or a label a host name cannot have"


def known_intents(where: str, keys: Iterable[str]) -> None:
    """Keys that must be intents: a typo (`codign: 0.1`) was accepted and did nothing."""
    for key in keys:
        if key not in INTENTS:
            raise ValueError(f"{where}.{key}: not an intent ({', '.join(INTENTS)})")


def chat_problem(where: str, backend: Backend) -> str | None:
    """Why the shadow cannot ask `backend` (named at `where`) in chat, or None when it can."""
    if native("chat", backend):
        return None
    return (
        f"{where}: backend {backend.name!r} does not speak chat (apis: "
        f"{', '.join(backend.apis)}), and the shadow asks in chat; name one that does"
    )


def speaks_chat(where: str, backend: Backend) -> None:
    """The shadow asks its targets and its judge in chat: one that speaks only Responses or
    Messages got POST /chat/completions on every replay, and answered with errors. Checked
    only while a shadow rate is above 0 (else `router.config_warnings` warns)."""
    if (problem := chat_problem(where, backend)) is not None:
        raise ValueError(problem)


def shadow_named(config: Config) -> list[tuple[str, str]]:
    """(where, backend) of every backend the shadow names: its targets, then its judge."""
    named = [(f"shadow.targets.{i}", t) for i, t in config.shadow.targets.items()]
    if config.shadow.judge_backend is not None:
        named.append(("shadow.judge_backend", config.shadow.judge_backend))
    return named


def shadow_backends(config: Config) -> None:
    """The backends `shadow.targets` and `shadow.judge_backend` name exist and, while a
    shadow rate is above 0, speak chat: with none the shadow asks nobody, and a leftover
    (from before an upgrade) stopped `serve` and a reload; it is only warned of then
    (`router.config_warnings`)."""
    names = {b.name for b in config.backends}
    for where, name in shadow_named(config):
        if name not in names:
            raise ValueError(f"{where}: unknown backend {name!r}")
        if config.shadow.samples:
            speaks_chat(where, config.backend(name))
