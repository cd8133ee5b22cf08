"""The address `serve` and `simulate` listen on (`--host`): what is refused before trying it,
why one that was tried could not be listened on, in words, and how it is written with a port.

One rule for both commands, and for `python -m router.simulator`: `--host ""` is refused, and
a name the IDNA codec cannot encode is a failed bind, as a name that does not resolve is.
"""

from __future__ import annotations

EMPTY_HOST = (
    "an empty address listens on every interface without saying so; give 0.0.0.0 (every"
    " IPv4 interface) or :: (every IPv6 one) to mean that"
)


def checked_host(text: str) -> str:
    """`--host` as given, unless empty. Raises ValueError for "", which the loop's
    `create_server` reads as every interface: `--host ""` listened on all of them without a
    word, where nothing on the command line said so (found in review)."""
    if text == "":
        raise ValueError(EMPTY_HOST)
    return text


def authority(host: str, port: int) -> str:
    """`host:port` as a URL writes it: an IPv6 literal in brackets (RFC 3986), for no host
    name has a colon. `simulate --host ::1` printed `http://::1:8888`, which no client
    parses as that address (found in review)."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def cannot_listen(host: str, port: int, exc: OSError | UnicodeError) -> str:
    """Why `host:port` could not be listened on, in one line: the OS's own words, or, for a
    name the IDNA codec cannot encode (`not..a..host`, a label over 63 characters), that it
    is no host name. That UnicodeError, not an OSError, passed every handler as a traceback
    of 82 lines (found in review)."""
    why = f"not a host name: {exc.__cause__ or exc}" if isinstance(exc, UnicodeError) else exc
    return f"cannot listen on {authority(host, port)}: {why}"
