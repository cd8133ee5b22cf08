"""The NO AUTH warning: a router with no keys on an address others reach is open to all.

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
    compose file once published such a router on every interface; found in review).
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
    if config.auth.keys or _loopback(host):
        return None
    said = (
        f"NO AUTH: listening on {host} with no router keys (auth.keys is empty): anyone who "
        "can reach this address can send requests, spending the cloud backends' keys, and "
        "call the admin endpoints. Add auth.keys, or listen on 127.0.0.1 (in a container, "
        "publish the port on 127.0.0.1 only)."
    )
    if not (config.server.allowed_hosts or behind_proxy):  # a service name gets a 403
        said += (
            " Without keys it answers requests only to a Host that is an IP address, "
            "localhost or this machine's name: list the names clients use (a compose or "
            "Kubernetes service name) in server.allowed_hosts."
        )
    log.warning("%s", said)
    return said


def _loopback(host: str) -> bool:
    """Whether `--host` is a loopback address; a name other than localhost counts as not."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
