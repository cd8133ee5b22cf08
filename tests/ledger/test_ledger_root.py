"""`LedgerRoot` making a removed ledger directory again: the conversation key goes back
before `records/` does, so whoever sees `records/` again finds the key beside it. The other
order left a gap that a reader fell into (CI: the key read right after `records/` came back
was not there yet)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from router.ledger import conversation_key
from router.ledger.conversation_key import KEY_FILE
from router.ledger.ledger_root import LedgerRoot


def test_the_key_is_back_before_records_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ledger = tmp_path / "ledger"
    (ledger / "records").mkdir(parents=True)
    root = LedgerRoot(ledger)
    root.key = b"k" * conversation_key.KEY_BYTES
    shutil.rmtree(ledger)
    seen: list[bool] = []
    restore = conversation_key.restore

    def watched(directory: Path, secret: bytes) -> bool:
        wrote = restore(directory, secret)
        seen.append((directory / "records").exists())
        return wrote

    monkeypatch.setattr(conversation_key, "restore", watched)
    root.check()
    assert seen == [False]  # records/ was not there while the key went back
    assert (ledger / "records").is_dir()
    assert (ledger / KEY_FILE).read_bytes() == root.key
