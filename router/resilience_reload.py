"""What a hot reload keeps of each backend's resilience state, and what it forgets.

A backend removed or pointed at another server (`router.server_identity.same_server`)
starts over: its breaker, the waits its 429 and 503 asked for, its load, window, sticky
conversations and gauges were the old server's. One with other changes (timeouts,
`max_concurrency`, tier) is the same server, as busy and as well: it keeps them, its
attempts still counting (`router.retirement.Retirement.elsewhere`); started over, a cap
lowered from 6 to 3 under six streams read 0 in flight and took three more (found in
review). But a wait a 429 asked for is its key's quota (or its organization's): one given
other credentials (`same_credentials`: another `api_key_env`, key, header or URL password)
has its waits forgotten, its load and circuit kept; kept, a reload that switched to a key
with quota, the operator's way out, still passed the backend by for the old key's hour
(found in review). Either's probe timing and gauges start anew (a health path or tier may be
new); the sticky table takes its new size and TTL. Kept, a removed backend's `up=0` fired
alerts.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from router.config import Config
from router.server_identity import same_credentials, same_server

if TYPE_CHECKING:
    from router.resilience import Resilience

log = logging.getLogger("smf_router.resilience")


def reloaded(res: Resilience, config: Config) -> Callable[[], None]:
    """A reload hook: worked out before the swap, applied by the returned call."""
    old = {b.name: b for b in res.components.config.backends}
    new = {b.name: b for b in config.backends}
    stale = [name for name, settings in old.items() if new.get(name) != settings]
    moved = [name for name in stale if name not in new or not same_server(old[name], new[name])]
    rekeyed = [n for n in stale if n not in moved and not same_credentials(old[n], new[n])]
    added = [name for name in new if name not in old]
    rs = config.resilience

    def apply() -> None:
        metrics = res.components.metrics
        for name in stale:
            res.forget_probing(name)
            metrics.forget_backend(name, removed=name not in new)
            if name not in moved:
                res.show_state(name)  # its own circuit, under its new tier
        for name in moved:
            res.health.forget(name)
            res.capacity.forget(name)
            res.table.forget_backend(name)
            res.served_models.forget(name, removed=name not in new)
        for name in rekeyed:
            if any(res.health.limited_for(name, kind) for kind in ("rate_limited", "overloaded")):
                log.info("backend %s: other credentials; the waits it asked for end", name)
            res.health.forget_waits(name)
        # A new breaker starts closed, and says so at once, as at start: an added backend
        # had no `backend_up` series until its circuit first moved.
        for name in [*moved, *added]:
            if name in new:
                metrics.backend_state(name, new[name].tier, True, "closed")
        res.table.resize(rs.sticky_ttl_s, rs.sticky_max_entries)
        res.forget_windows()

    return apply
