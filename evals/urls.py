"""Endpoint base URLs: a path joined to one, and one as it may be shown or stored.

A base URL can carry a query every request needs (Azure's `?api-version=...`, a gateway's
`?api-key=...`): a path goes before it, never after (`...?api-version=x/models`). It can
carry credentials too (`http://user:pass@host/v1`, that `api-key`), so where it is shown
or stored it is masked. Both the router (its backends, `config check`) and the evals (their
requests, the `run` block of a results file) need these; evals may not import the router
(the import-linter contract), so they live here.
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit


def joined(base_url: str, path: str) -> str:
    """`path` (which may hold a query of its own) under `base_url`, with the base's query
    kept and put first: `joined("https://h/v1?api-version=x", "/models")` is
    `https://h/v1/models?api-version=x`."""
    parts = urlsplit(base_url)
    return urlunsplit((parts.scheme, parts.netloc, "", "", "")) + target(
        parts.path, parts.query, path
    )


def target(base_path: str, base_query: str, path: str) -> str:
    """The request target (path and query) for `path` under a base URL's path and query."""
    own_path, _, own_query = path.partition("?")
    query = "&".join(q for q in (base_query, own_query) if q)
    return base_path.rstrip("/") + own_path + (f"?{query}" if query else "")


def masked_url(url: str) -> str:
    """`url` without its user info, with its query values as `***` (a key too, if it holds
    an `@`) and its fragment as `***`; all of it as `***` when it no longer parses: a `***`
    put in for a variable can break its syntax (`http://[${HOST}]:8000` is
    `http://[***]:8000`, not an IPv6 address).

    Only its scheme (`http://***`) when user info may have been cut short: an unencoded
    `/ # ?` in a password ends the host part early (`http://user:1234#TopSecret@host/v1`
    has host `user`, port 1234), and what follows is a path, a query or a fragment holding
    an `@`. Such a URL has an `@` in its path, or no path and an `@` after the host part;
    nothing after the host part can then be told apart from the password. Taking the last
    `@` for the end of user info showed a query's secret instead
    (`?api-key=SEC@RETTAIL` as `https://***@RETTAIL`, found in re-review)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "***"
    if "@" in parts.path or (not parts.path and "@" in parts.query + parts.fragment):
        return f"{parts.scheme}://***" if parts.scheme and "://" in url else "***"
    netloc = parts.netloc
    if "@" in netloc:
        netloc = "***@" + netloc.rsplit("@", 1)[1]
    keys = (pair.split("=", 1)[0] for pair in parts.query.split("&") if pair)
    query = "&".join(f"{'***' if '@' in key else key}=***" for key in keys)
    fragment = "***" if parts.fragment else ""
    return urlunsplit((parts.scheme, netloc, parts.path, query, fragment))


def openai_hosted(base_url: str) -> bool:
    """OpenAI's own API (and Azure's): its reasoning models refuse chat's deprecated
    `max_tokens` ("use 'max_completion_tokens'"), a name every model there accepts. Servers
    that speak the API elsewhere (vLLM, Ollama, LM Studio, llama.cpp) all read `max_tokens`,
    and Ollama ignores the newer name: a client's limit would be lost there."""
    host = urlsplit(base_url).hostname or ""
    return host == "api.openai.com" or host.endswith(".openai.azure.com")


def check_url(url: str) -> str:
    """An `http(s)://host[:port]/path` URL (a backend's `base_url`, `eval run --endpoint`).
    Anything else passed `config check`, then either went to localhost:80 (`spark:8888/v1`
    has no host for a URL parser) or stopped `serve` or `eval run` with a traceback
    (`http://[::1/v1`, port 99999), or showed part of a password as the host and port and
    the rest after them (`http://user:1234#TopSecret@host/v1`). The message never repeats
    the URL: it may hold a password."""
    if any(c.isspace() or not c.isprintable() for c in url):
        raise ValueError("a URL may not hold spaces or control characters")
    try:
        parts = urlsplit(url)
        port = parts.port  # a port that is not a number from 0 to 65535 raises here
    except ValueError:  # never the parser's message: it can quote part of a password
        raise ValueError(
            "not a URL: the port is not a number from 0 to 65535, a [host] is not an IPv6"
            " address, or a password holds an unencoded / # ?"
        ) from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("must be an http:// or https:// URL with a host (http://host:port/v1)")
    if "@" in parts.path + parts.query + parts.fragment:  # user info cut short: see masked_url
        raise ValueError(
            "an @ after the host part: a password holds an unencoded / # ? (write %2F %23"
            " %3F), or the path, query or fragment an @ (write %40)"
        )
    if port == 0:
        raise ValueError("port 0 is not a port to connect to")
    return url
