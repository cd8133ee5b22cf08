"""The NO AUTH warning: a router with no keys that others reach is open to all.

`serve` says so at start. A config reload that removed the last key said nothing, and the
router went on open to anyone without a word (found in review): after a reload it is said
again, for the address `serve` listens on, remembered here when it starts (a process runs
one `serve`; a router built in-process without it, as tests do, listens nowhere here).
"""

from __future__ import annotations

import ipaddress
import logging

from router.config import Config

log = logging.getLogger("smf_router")

_HOSTS: set[str] = set()  # the addresses `serve` listens on in this process


def warn_if_open(config: Config, host: str, behind_proxy: bool) -> None:
    """With no router keys anyone who reaches the router may use it: fine on loopback (the
    default), not on an address others reach, where they would spend the cloud keys (the
    compose file once published such a router on every interface; found in review), nor
    behind a proxy (`server.proxy_headers`), which makes it reachable wherever the proxy is.
    Called by `serve` at start, which also remembers `host` for `warn_after_reload`.

    `behind_proxy` is whether uvicorn trusts a proxy's headers (`app.state.behind_proxy`):
    fixed when `serve` starts, as the Host check's is, so a reload passes it too, not its
    config's `proxy_headers` (a reload that turned that on dropped the allowed_hosts advice
    while Hosts were still checked; found in re-review)."""
    _HOSTS.add(host)
    _warn(config, host, behind_proxy)


def warn_after_reload(config: Config, behind_proxy: bool) -> list[str]:
    """The start's warning again, for a reloaded config that leaves no keys; returned too,
    for the reload's reply (a deploy script reads that, not the log)."""
    return [
        said for host in sorted(_HOSTS) if (said := _warn(config, host, behind_proxy)) is not None
    ]


def _warn(config: Config, host: str, behind_proxy: bool) -> str | None:
    if config.auth.keys:
        return None
    if not _loopback(host):
        said = (
            f"NO AUTH: listening on {host} with no router keys (auth.keys is empty): anyone "
            "who can reach this address can send requests, spending the cloud backends' "
            "keys, and call the admin endpoints. Add auth.keys, or listen on 127.0.0.1 (in a "
            "container, publish the port on 127.0.0.1 only)."
        )
    elif behind_proxy:  # reachable through the proxy, loopback or not (found in review)
        said = (
            f"NO AUTH: listening on {host} behind a proxy (server.proxy_headers) with no "
            "router keys (auth.keys is empty): anyone who can reach the proxy can send "
            "requests, spending the cloud backends' keys, and call the admin endpoints, "
            "unless the proxy authenticates them. Add auth.keys."
        )
    else:
        return None
    if not config.server.allowed_hosts:  # a service name, a proxy's public name: a 403
        said += _PROXY_HOSTS if behind_proxy else _SERVICE_HOSTS
    log.warning("%s", said)
    return said


_SERVICE_HOSTS = (
    " Without keys it answers requests only to a Host that is an IP address, localhost or "
    "this machine's name: list the names clients use (a compose or Kubernetes service name) "
    "in server.allowed_hosts."
)
_PROXY_HOSTS = (  # router.api.browsers: nothing else tells the proxy from a rebound page
    " Without keys it answers requests only to a Host that is an IP address, localhost or "
    "this machine's name, behind the proxy too (a DNS-rebinding page may send X-Forwarded-* "
    "headers as a proxy does): list the name the proxy forwards as Host in "
    "server.allowed_hosts."
)


def _loopback(host: str) -> bool:
    """Whether `--host` is a loopback address; a name other than localhost counts as not."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
