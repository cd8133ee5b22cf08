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
# Whether `serve` trusts a proxy's headers: fixed at start, as the Host check's is (a reload
# that turned proxy_headers on dropped the allowed_hosts advice while Hosts were still
# checked; found in re-review). Empty: no `serve` in this process, the config decides.
_BEHIND_PROXY: list[bool] = []


def warn_if_open(config: Config, host: str) -> None:
    """With no router keys anyone who reaches the router may use it: fine on loopback (the
    default), not on an address others reach, where they would spend the cloud keys (the
    compose file once published such a router on every interface; found in review).
    Called by `serve` at start, which also remembers `host` for `warn_after_reload`."""
    _HOSTS.add(host)
    _BEHIND_PROXY[:] = [config.server.proxy_headers]
    _warn(config, host)


def warn_after_reload(config: Config) -> list[str]:
    """The start's warning again, for a reloaded config that leaves no keys; returned too,
    for the reload's reply (a deploy script reads that, not the log)."""
    return [said for host in sorted(_HOSTS) if (said := _warn(config, host)) is not None]


def _warn(config: Config, host: str) -> str | None:
    if config.auth.keys or _loopback(host):
        return None
    said = (
        f"NO AUTH: listening on {host} with no router keys (auth.keys is empty): anyone who "
        "can reach this address can send requests, spending the cloud backends' keys, and "
        "call the admin endpoints. Add auth.keys, or listen on 127.0.0.1 (in a container, "
        "publish the port on 127.0.0.1 only)."
    )
    behind_proxy = _BEHIND_PROXY[0] if _BEHIND_PROXY else config.server.proxy_headers
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
