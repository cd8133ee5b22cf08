"""The secret that keys the ledger's conversation column, kept beside the ledger.

The column groups a conversation's requests without holding its text: a hash of the
client's session id or `user`, or of its first messages. Unkeyed, anyone who can read the
ledger could test a guess ("is alice@example.com in here?") by hashing it. Keyed with a
secret that only the router's user can read, the column still groups requests across
restarts and across replicas that share the ledger, but testing a guess needs the secret.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import tempfile
from pathlib import Path

from router.ledger import durable

log = logging.getLogger("smf_router.ledger")

KEY_FILE = "conversation.key"
KEY_BYTES = 32


def conversation_secret(directory: Path) -> bytes:
    """The ledger's secret, made on first use. When it can be neither read nor written the
    router still runs, with a secret of its own: conversations then group only until it
    restarts, which the warning says."""
    path = directory / KEY_FILE
    try:
        return _read(path)
    except FileNotFoundError:
        pass
    except (OSError, ValueError) as exc:
        return _own(path, exc)
    try:
        return _create(path)
    except (OSError, ValueError) as exc:
        return _own(path, exc)


def _read(path: Path) -> bytes:
    secret = path.read_bytes()
    if len(secret) != KEY_BYTES:
        raise ValueError(f"it holds {len(secret)} bytes, not {KEY_BYTES}")
    return secret


def restore(directory: Path, secret: bytes) -> bool:
    """Write `secret`, the key this process uses, back as the ledger's key where none is
    (the ledger directory was removed while the router ran: `router.ledger.ledger_root`), so
    a restart groups conversations with this run's; whether it was written. One there
    already (another replica's, written back first) is left as it is. Raises OSError."""
    return _put(directory / KEY_FILE, secret)


def _create(path: Path) -> bytes:
    _put(path, secrets.token_bytes(KEY_BYTES))
    return _read(path)


def _put(path: Path, secret: bytes) -> bool:
    """Written whole under another name, synced, and linked into place, so two replicas
    starting at once agree on one secret and neither reads a half-written file: whether
    this one was linked (False: another replica's secret won). Unsynced, a power cut could
    leave the key empty, and every start after it warned and used a throwaway key (found in
    a durability review)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    # A name of its own (mkstemp: O_EXCL, 0600): replicas in containers are often all pid 1.
    fd, name = tempfile.mkstemp(prefix=f".{KEY_FILE}.", dir=path.parent)
    draft = Path(name)
    try:  # a full disk fails the write: the empty draft went too (one was left per start)
        with os.fdopen(fd, "wb") as file:
            file.write(secret)
            file.flush()
            os.fsync(file.fileno())
        os.link(draft, path)
    except FileExistsError:
        return False
    finally:
        with contextlib.suppress(OSError):
            draft.unlink()
    durable.sync_directory(path.parent)  # the key's name on disk too
    return True


def _own(path: Path, why: Exception) -> bytes:
    log.warning(
        "cannot use the conversation key %s (%s): conversations group only until restart",
        path,
        why,
    )
    return secrets.token_bytes(KEY_BYTES)
