"""Endpoint URLs as they may be shown or stored: no password, no query value.

A base URL can carry credentials (`http://user:pass@host/v1`, Azure's or a gateway's
`?api-key=...`). Both the router (`config check`, `router.config_mask`) and the evals
(the `run` block of a results file) write base URLs where others read them; evals may not
import the router (the import-linter contract), so the helper lives here.
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit


def masked_url(url: str) -> str:
    """`url` without its user info and with its query values as `***`; all of it as `***`
    when it no longer parses: a `***` put in for a variable can break its syntax
    (`http://[${HOST}]:8000` is `http://[***]:8000`, not an IPv6 address)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "***"
    netloc = parts.netloc
    if "@" in netloc:
        netloc = "***@" + netloc.rsplit("@", 1)[1]
    query = "&".join(f"{pair.split('=', 1)[0]}=***" for pair in parts.query.split("&") if pair)
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
