"""What a hot reload reports, in its log line and its reply: the backends it added, removed
or changed, the other sections whose change applied, the caller keys it added, removed or
changed (by name: never a hash), and the settings that wait for a restart.

A reload that changed only routes, or rotated a key, said "added [], removed [], changed
[]", as one that changed nothing (found in review): the operator could not tell from the
log or the reply that the edit had taken.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import BaseModel

from router import canary, resilience, shadow
from router.backends.base import Backend
from router.config import Config
from router.config_sections import Auth

RESTART_SECTIONS = ("ledger", "server")
# What of the server is read per request, and so applies at a reload: the rest waits.
PER_REQUEST = {"max_body_bytes": 0, "allowed_origins": [], "allowed_hosts": []}
# Settings each feature reads once at start (it owns the list); a change is reported.
READ_AT_START = {
    "resilience": resilience.READ_AT_START,
    "canary": canary.READ_AT_START,
}
# The top-level sections a reload reports beside the backends, in the file's order.
SECTIONS = tuple(name for name in Config.model_fields if name not in ("backends", "demo"))


@dataclass(frozen=True, slots=True)
class KeyChanges:
    """Caller keys by their name: each name once per key (two keys of one caller while it
    rotates share it). A key is told apart from another by its hash, which is never said."""

    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()  # the same key with another name or other rights

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed)

    def as_dict(self) -> dict[str, list[str]]:
        return {
            "added": list(self.added),
            "removed": list(self.removed),
            "changed": list(self.changed),
        }

    def said(self) -> str:
        """E.g. `keys: 1 added (ci), 1 removed (ci)`."""
        parts = [
            f"{len(names)} {what} ({', '.join(names)})"
            for what, names in self.as_dict().items()
            if names
        ]
        return f"keys: {', '.join(parts)}"


@dataclass(frozen=True, slots=True)
class Outcome:
    ok: bool
    message: str
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    restart_needed: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()  # as logged: names of backends and variables, no values
    sections: tuple[str, ...] = ()  # other sections whose change applied (`SECTIONS`)
    keys: KeyChanges = KeyChanges()

    def as_dict(self) -> dict[str, Any]:
        return {
            "status": "reloaded" if self.ok else "rejected",
            "message": self.message,
            "backends": {
                "added": list(self.added),
                "removed": list(self.removed),
                "changed": list(self.changed),
            },
            "changed_sections": list(self.sections),
            "auth_keys": self.keys.as_dict(),
            "restart_needed": list(self.restart_needed),
            "warnings": list(self.warnings),
        }

    def as_last(self, at: datetime) -> dict[str, Any]:
        """The status section's `last`: whether it applied, not why it did not. Status
        answers any caller's key, and a refusal's reason, like the warnings, names the
        variables that hold backends' keys, the operator's business (`Backend.key_hint`):
        it is in the log and in the admin's reply (POST the reload to read it again)."""
        return {
            "at": at.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "ok": self.ok,
            "restart_needed": list(self.restart_needed),
        }


def describe(
    started: Config,
    running: Config,
    after: Config,
    old: dict[str, Backend],
    new: dict[str, Backend],
    shadowing: bool,
) -> Outcome:
    """`started`: the config restart-only settings still run with. Comparing with the last
    reloaded file instead said "restart needed" for a change already reverted, and nothing
    for one still pending. `running`: the one the reload replaces, which what applied now
    differs from."""
    added = tuple(n for n in new if n not in old)
    removed = tuple(n for n in old if n not in new)
    changed = tuple(n for n in new if n in old and new[n] is not old[n])
    restart = _restart_needed(started, after, shadowing)
    waiting = ("shadow",) if "shadow.rates" in restart else ()  # no shadow runs to apply it
    sections = tuple(
        s for s in SECTIONS if s not in waiting and _applied(running, s) != _applied(after, s)
    )
    keys = key_changes(running.auth, after.auth)
    message = (
        f"{len(new)} backend(s); added {list(added)}, removed {list(removed)}, "
        f"changed {list(changed)}"
    )
    if sections:
        said = [f"auth ({keys.said()})" if s == "auth" and keys else s for s in sections]
        message += f"; changed sections: {', '.join(said)}"
    if restart:
        message += f"; needs a restart to apply: {', '.join(restart)}"
    return Outcome(True, message, added, removed, changed, restart, (), sections, keys)


def key_changes(before: Auth, after: Auth) -> KeyChanges:
    """The caller keys `after` adds, removes and changes against `before`, by name."""
    old = {k.sha256: k for k in before.keys}
    new = {k.sha256: k for k in after.keys}
    return KeyChanges(
        added=tuple(k.name for d, k in new.items() if d not in old),
        removed=tuple(k.name for d, k in old.items() if d not in new),
        changed=tuple(k.name for d, k in new.items() if d in old and old[d] != k),
    )


def _restart_needed(started: Config, after: Config, shadowing: bool) -> tuple[str, ...]:
    restart = tuple(s for s in RESTART_SECTIONS if _at_start(started, s) != _at_start(after, s))
    restart += tuple(
        f"{section}.{key}"
        for section, keys in READ_AT_START.items()
        for key in keys
        if getattr(getattr(started, section), key) != getattr(getattr(after, section), key)
    )
    if not shadowing and shadow.wanted(after):
        restart += ("shadow.rates",)  # installed at start only when some rate was set
    return restart


def _at_start(config: Config, section: str) -> Any:
    """A restart-only section as read at start: the body limit and the browser origins and
    hosts are read per request."""
    value = getattr(config, section)
    return value.model_copy(update=PER_REQUEST) if section == "server" else value


def _applied(config: Config, section: str) -> Any:
    """A section as a reload applies it: without what only a restart applies (`ledger`, the
    server but for what it reads per request, what a feature reads once at start). A change
    there is said as needing a restart, not as changed; one put back, as nothing."""
    value = getattr(config, section)
    if section == "ledger":
        return None
    if section == "server":
        return value.model_dump(include=set(PER_REQUEST))
    if isinstance(value, BaseModel):
        return value.model_dump(exclude=set(READ_AT_START.get(section, ())))
    return value
