"""Writing a segment file: atomically, in row groups of bounded size, private where its rows
are callers' words.

Every file is written under a hidden temporary name (`TEMPORARY`) and renamed into place, so
a reader never sees half a file from a live writer; its checksum is written beside it first
(`router.ledger.checksum`). What a reader may trust of the files written is
`router.ledger.segments`'.

The texts table holds what callers wrote and were answered: its directories are made 0700
and its files 0600, as `conversation.key` is. Left to the umask they were 0755 and 0644, so
every local user could read every prompt of a plain `smf-router serve` (found in review).
Only a directory itself is closed, never what a symlink in its place names: whoever may
write the ledger directory could point `texts` at `/etc`, and `smf-router ledger compact`
run as root made that 0700 (found in review).
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import re
import uuid
from collections.abc import Iterable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from router.ledger import checksum, durable
from router.ledger.segments import PRICE_MAP_KEY, SOURCES_KEY

ROW_GROUP_ROWS = 262_144  # rows per row group written: a merge holds these + one input
# The hidden name a file is written under before its rename (`write_tables`): a process
# killed mid-write leaves it behind, and `router.ledger.leftovers` deletes it once it is old.
TEMPORARY = re.compile(r"\..+\.[0-9a-f]{8}\.tmp")
# Tables whose rows are callers' words: the router's user's alone (the other tables stay as
# the umask makes them, for an operator's account to report on).
PRIVATE_TABLES = frozenset({"texts"})

log = logging.getLogger("smf_router.ledger")
_SAID: set[Path] = set()  # the paths a writer said it left open (once each: it writes often)


def write_segment(
    path: Path,
    table: pa.Table,
    sources: frozenset[str] = frozenset(),
    price_map_version: str | None = None,
) -> None:
    """Write `table` to `path` atomically: a hidden temp file in the same dir, then rename."""
    write_tables(path, table.schema, [table], sources, price_map_version)


def write_tables(
    path: Path,
    schema: pa.Schema,
    tables: Iterable[pa.Table],
    sources: frozenset[str] = frozenset(),
    price_map_version: str | None = None,
) -> None:
    """Write `tables` (each of `schema`) as one file, atomically, holding at most about
    `ROW_GROUP_ROWS` rows in memory besides the table being read: a merge of a busy day's
    files must not need the whole day in memory (a 24-file merge of 3.5M rows held ~0.9 GB).
    An exception from `tables` leaves no file behind. A private table's file (`PRIVATE_TABLES`)
    is created 0600, before a byte is written, in directories made (or kept) 0700."""
    private = path.parent.parent.name in PRIVATE_TABLES  # DIR/<table>/day=…/<name>
    if private:
        _private_directories(path.parent)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
    meta = dict(schema.metadata or {})
    if sources:
        meta[SOURCES_KEY] = json.dumps(sorted(sources)).encode()
    if price_map_version:
        meta[PRICE_MAP_KEY] = price_map_version.encode()
    schema = schema.with_metadata(meta)
    tmp = path.parent / f".{path.name}.{uuid.uuid4().hex[:8]}.tmp"  # see TEMPORARY
    try:
        if private:  # the writer then opens it as it is: truncated, its mode kept
            os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        with pq.ParquetWriter(tmp, schema, compression="zstd") as writer:
            pending: list[pa.Table] = []
            rows = 0
            for table in tables:
                pending.append(table)
                rows += table.num_rows
                if rows >= ROW_GROUP_ROWS:
                    writer.write_table(pa.concat_tables(pending), ROW_GROUP_ROWS)
                    pending, rows = [], 0
            if pending:
                writer.write_table(pa.concat_tables(pending), ROW_GROUP_ROWS)
        # On disk before it is visible, and its name on disk before anyone deletes the files
        # it replaces: after a power cut a merged day must not be an empty file.
        durable.fsync(tmp)
        checksum.write(path, tmp, 0o600 if private else 0o644)
        os.replace(tmp, path)
        durable.sync_directory(path.parent)
    finally:
        tmp.unlink(missing_ok=True)


def close_private_tables(directory: Path) -> list[str]:
    """Take group and other bits off each private table's directory that exists, whether or
    not this process writes to it: texts an older version left 0755 (files 0644) stayed
    readable by every account until a new text was written, and with `store_text` off never
    (found in review). Closing the table's directory closes every file under it.
    Returns a warning for each left as it was because it is not a directory itself, the
    first time this process meets it (`_said_once`, which a writer shares): the router asks
    at start and at each hourly compaction, which logged it every hour (found in review)."""
    warnings = []
    for table in sorted(PRIVATE_TABLES):
        if (said := _close(directory / table)) is not None and _said_once(directory / table):
            warnings.append(said)
    return warnings


def _private_directories(day: Path) -> None:
    """Make a private table's directory and `day` 0700. Ones made before (by an older
    version, under its umask) lose their group and other bits: the files already in them,
    0644, are then out of others' reach too. One this user may not change (root's) stays
    as it is, and so does a symlink (said once)."""
    day.parent.parent.mkdir(parents=True, exist_ok=True)
    for folder in (day.parent, day):
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:
            said = _close(folder)
            if said is not None and _said_once(folder):
                log.warning("%s", said)


def _said_once(folder: Path) -> bool:
    """Whether a warning about `folder` is news in this process (then it is no longer)."""
    if folder in _SAID or len(_SAID) >= 1024:  # bounded: one per symlink someone made
        return False
    _SAID.add(folder)
    return True


def _close(folder: Path) -> str | None:
    """Make `folder` 0700 if it has group or other bits, through a descriptor opened without
    following a symlink: `is_dir`, `stat` and `chmod` all follow one. None when done, when
    there is nothing there, or when this user may not change it; else why it was left."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
            return None  # not there, or not ours to open
        return (
            f"left {folder} as it is: it is a symlink or a file, not a directory, so its "
            "mode was not changed (what it names may hold callers' texts: make that 0700)"
        )
    try:
        with contextlib.suppress(OSError):  # another user's: left as it is
            if os.fstat(fd).st_mode & 0o077:
                os.fchmod(fd, 0o700)
    finally:
        os.close(fd)
    return None
