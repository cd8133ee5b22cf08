"""Refuse what a web page makes a browser send to the router.

A router on a desk is reachable from every page its user opens. A cross-site page can POST
to `http://127.0.0.1:4000/v1/...` without a CORS preflight (a "simple request" with a
`text/plain` body), the router reads any body as JSON, and with no keys configured (the
loopback default) it would spend the user's cloud credit or reload the config for the
page. Browsers mark such requests: a cross-origin one carries an `Origin` that is not the
router's own, and a DNS-rebinding page (its name resolved to 127.0.0.1) sends its own name
as `Host`. API clients (SDKs, curl, agents) send neither, so refusing both costs them
nothing; the router sends no CORS headers, so no browser page could read its answers anyway.

A page's plain GET carries no `Origin` (`<img src="http://127.0.0.1:4000/v1/router/report">`,
a link, a frame), and its `Host` is the IP address it named: on a keyless router it started
report children until the user's own reports got 429 `reports_busy` (found in review). Its
browser says whose page sent it, in `Sec-Fetch-Site`, which no page can set or leave out and
no API client sends: `cross-site` and `same-site` (another port of this host) are refused
unless their `Origin` is listed in `server.allowed_origins` (a listed web app calls with
`fetch`, which sends it); `none` (a URL the user typed) and `same-origin` pass. The probes
(`/metrics`, `/healthz`, `/readyz`) are refused to such a page too, as to a page whose
`Origin` is not allowed: their Host exemption below is for scrapers, which send neither.

The Host check applies on a loopback address, and on any address while no router keys are
configured: in a container uvicorn accepts on the container's own address while the port
is published on 127.0.0.1, and a rebound page is same-origin, so only its Host gives it
away. A name that cannot be rebound passes: an IP literal, `localhost` (and `*.localhost`),
this machine's name, and the names in `server.allowed_hosts` (how a LAN or a compose
network addresses a keyless router). With keys, a rebound page gets only a 401 off
loopback, so any Host is answered there; and off loopback `GET /metrics`, `/healthz` and
`/readyz` are answered whatever the Host (they read, and spend nothing).
A web app that calls the router from the browser through a CORS-adding proxy names its
origin in `server.allowed_origins`.

Behind a reverse proxy (`server.proxy_headers`) `Host` is the proxy's public name. With keys
it is not checked (a rebound page has no key). Without keys it is, as without a proxy: the
check was skipped behind a proxy, and a keyless router on 127.0.0.1 served a rebound page
its cloud backend and its reload (found in review). Nothing else tells a proxy from a page:
a local proxy connects from 127.0.0.1 as the user's browser does, uvicorn rewrites only the
scope's client and scheme from `X-Forwarded-*` (never `Host`), and a rebound page is
same-origin with itself, so its script may send `X-Forwarded-For` or `-Host` as it likes,
with no preflight (only `Host`, `Origin`, `Via`, `Sec-*` and the like are the browser's
own). So the proxy's public name goes in `server.allowed_hosts`, as a service name does.
"""

from __future__ import annotations

import functools
import ipaddress
import logging
import socket
import time
from collections.abc import Collection
from typing import Any
from urllib.parse import urlsplit

from router.api.headers import request_headers
from router.log_sparing import Sparing

LOCAL_NAMES = frozenset({"localhost", socket.gethostname().lower()})
# A refused page's request leaves no record (`router.api.front.refuse`) and, past the first,
# no line of its own: any page the user opens can send them at will, and a line each grew
# the log at the flood's rate. One line per reason this often, saying how many it stands
# for; each is counted in `rejected_requests_total` all the same. The line names neither the
# Origin nor the Host: the page chose them.
LOG_INTERVAL_S = 300.0
_LINES: dict[str, Sparing] = {}  # by reason: the few fixed texts `refusal` returns

log = logging.getLogger("smf_router.api")


def refusal(
    scope: dict[str, Any],
    allowed_origins: Collection[str] = (),
    behind_proxy: bool = False,
    allowed_hosts: Collection[str] = (),
    keyless: bool = False,
) -> str | None:
    """Why this request looks sent by a web page that may not call the router (None for API
    clients, the router's own origin, a URL the user typed and `allowed_origins`).
    `keyless`: no router keys are configured, so whoever gets an answer is admin."""
    headers = request_headers(scope)  # as every endpoint reads them: repeats joined
    origin, host = headers.get("origin"), headers.get("host")
    if origin is not None and not _origin_allowed(origin, host, allowed_origins):
        return (
            "cross-origin requests from web pages are refused (API clients send no Origin "
            "header); list the page's origin in server.allowed_origins to allow it"
        )
    if _from_another_site(headers.get("sec-fetch-site")) and not _listed(origin, allowed_origins):
        return (
            "requests a browser sends for another site's page (Sec-Fetch-Site: cross-site or "
            "same-site) are refused unless their Origin is in server.allowed_origins (API "
            "clients send no Sec-Fetch-Site header; a link, an image or a frame sends no Origin)"
        )
    if host is None or (behind_proxy and not keyless):
        return None  # behind a proxy with keys, the proxy's public name: a rebound page has no key
    name = _hostname(host)
    if _local_name(name) or name in allowed_hosts:
        return None
    if _on_loopback(scope):
        why = (
            "on a loopback address the router answers only a Host that is an IP address, "
            "localhost, this machine's name or a name in server.allowed_hosts (a page that "
            "renamed itself to 127.0.0.1 would send its own name)"
        )
    elif keyless and not _read_only_probe(scope):
        why = (
            "with no router keys (auth.keys) the router answers only a Host that is an IP "
            "address, localhost, this machine's name or a name in server.allowed_hosts (a "
            "page that renamed itself to this address would send its own name); list the "
            "name clients use in server.allowed_hosts, or configure auth.keys"
        )
    else:
        return None
    return why + _BEHIND_PROXY if behind_proxy else why


_BEHIND_PROXY = (
    "; so it does behind a proxy (server.proxy_headers) while auth.keys is empty, as such a "
    "page may send X-Forwarded-* headers as a proxy does: list the name the proxy forwards "
    "as Host in server.allowed_hosts, or configure auth.keys"
)


def refused(why: str) -> None:
    """Say, sparingly, that a request was refused for `why` (what `refusal` returned)."""
    lines = _LINES.get(why)
    if lines is None:  # made once per reason, not on each request of a flood
        lines = _LINES[why] = Sparing(LOG_INTERVAL_S)
    held = lines.passes(time.monotonic())
    if held is not None:
        log.warning(
            "refused a request from a web page (403): %s (%d such lines held back since the "
            "last; at most one every %.0f s, all counted in rejected_requests_total)",
            why,
            held,
            lines.interval_s,
        )


# Read-only and spending nothing: Prometheus scrapes a keyless router in compose or
# Kubernetes by its service name (`router:4000`), and after an upgrade that added the Host
# check, a config without `allowed_hosts` lost its metrics to a 403 (found in review).
PROBES = frozenset({"/metrics", "/healthz", "/readyz"})


def _read_only_probe(scope: dict[str, Any]) -> bool:
    return scope.get("method") == "GET" and scope.get("path") in PROBES


@functools.lru_cache(maxsize=256)  # per request otherwise: ipaddress parses in Python
def _local_name(name: str) -> bool:
    """An IP literal cannot be a rebound name; `*.localhost` never leaves the machine."""
    if name in LOCAL_NAMES or name.endswith(".localhost"):
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _origin_allowed(origin: str, host: str | None, allowed: Collection[str]) -> bool:
    """The router's own origin (`Origin: http://127.0.0.1:4000`, Host `127.0.0.1:4000`) and
    the listed ones; `null` (sandboxed frames, files) never."""
    netloc = urlsplit(_origin(origin)).netloc
    return _listed(origin, allowed) or (bool(netloc) and netloc == (host or "").strip().lower())


def _listed(origin: str | None, allowed: Collection[str]) -> bool:
    """Whether `origin` is one of `server.allowed_origins`, as they are kept."""
    return origin is not None and _origin(origin) in allowed


def _origin(origin: str) -> str:
    return origin.strip().rstrip("/").lower()


# What a browser says of the page that made it send a request; `same-site` is another port
# of the same host (another local server) or another name under the same domain. Values of
# their own no API client sends, and no page may set or leave out (`Sec-` headers are the
# browser's). `none` (a URL the user typed, a bookmark) and `same-origin` pass.
ANOTHER_SITE = frozenset({"cross-site", "same-site"})


def _from_another_site(sec_fetch_site: str | None) -> bool:
    """Whether the browser says another site's page made this request: a page's `<img>`,
    link or frame sends no `Origin`, and its `Host` may be the IP address it named."""
    if sec_fetch_site is None:
        return False
    return any(value.strip().lower() in ANOTHER_SITE for value in sec_fetch_site.split(","))


def _on_loopback(scope: dict[str, Any]) -> bool:
    """Whether this connection arrived on a loopback address of ours."""
    server = scope.get("server")
    return server is not None and _loopback_address(str(server[0]))


@functools.lru_cache(maxsize=64)  # the router's own addresses: a handful
def _loopback_address(text: str) -> bool:
    try:
        address = ipaddress.ip_address(text.split("%")[0])
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)  # ::ffff:127.0.0.1 on a dual-stack socket
    return address.is_loopback or (mapped is not None and mapped.is_loopback)


def _hostname(host: str) -> str:
    """`Host` without its port and trailing dots, as `server.allowed_hosts` holds names:
    `[::1]:4000` -> `::1`, `Localhost.:4000` -> `localhost`."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].partition("]")[0]
    return (host.rpartition(":")[0] if host.count(":") == 1 else host).rstrip(".")
