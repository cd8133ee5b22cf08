"""The ledger's conversation column is keyed with a secret kept beside the ledger: it groups
a conversation across restarts, and a guess at a `user` cannot be checked against it."""

from __future__ import annotations

import errno
import hashlib
import io
import shutil
import stat
import threading
import time
from pathlib import Path
from typing import Any

import openai
import pytest

from router.ledger import Ledger, LedgerWriter, conversation_key
from router.ledger.conversation_key import KEY_FILE, conversation_secret
from router.record import Record
from tests.harness import config_for, router, simulator

USER = "alice@example.com"


def conversation_of_one_request(tmp_path: Path, ledger_dir: Path) -> str:
    """Serve one request with `user` set through a fresh router; its ledger row's key."""
    ledger = {"path": str(ledger_dir), "flush_interval_s": 0.2}
    with (
        simulator(profile="vllm", model="local-model") as local,
        router(config_for({"local": local}, tmp_path, ledger=ledger)) as proxy,
    ):
        client = openai.OpenAI(base_url=proxy.url, api_key="none", max_retries=0)
        client.chat.completions.create(
            model="local", user=USER, messages=[{"role": "user", "content": "Name a colour."}]
        )
    rows = Ledger(ledger_dir).sql("select distinct conversation from records")
    assert len(rows) == 1  # after a restart too: the earlier run's row has the same key
    return str(rows[0][0])


def test_the_conversation_column_cannot_be_checked_against_a_guess(tmp_path: Path) -> None:
    first = conversation_of_one_request(tmp_path, tmp_path / "ledger")
    again = conversation_of_one_request(tmp_path, tmp_path / "ledger")  # a restart
    elsewhere = conversation_of_one_request(tmp_path, tmp_path / "other")
    guess = hashlib.blake2b(USER.encode(), digest_size=8).hexdigest()
    assert first == again  # groups across restarts of one ledger
    assert first not in (guess, elsewhere)
    key = tmp_path / "ledger" / KEY_FILE
    assert stat.S_IMODE(key.stat().st_mode) == 0o600


def test_an_unusable_key_file_leaves_the_router_a_secret_of_its_own(tmp_path: Path) -> None:
    """A truncated key (a full disk) is not used as a weak key, and does not stop the
    router: it gets a random secret for this run."""
    (tmp_path / KEY_FILE).write_bytes(b"short")
    secret = conversation_secret(tmp_path)
    assert len(secret) == 32 and secret != conversation_secret(tmp_path)
    assert (tmp_path / KEY_FILE).read_bytes() == b"short"  # not overwritten: look at it


def test_replicas_starting_at_once_agree_on_one_key_even_with_one_pid(tmp_path: Path) -> None:
    """Containers sharing a ledger volume often all run the router as pid 1: their drafts had
    one name, one replica removed the other's before it was linked, and that one fell back
    to a key of its own (found in review). Threads share a pid, as those replicas do."""
    start = threading.Barrier(8)
    keys: list[bytes] = []

    def replica() -> None:
        start.wait(timeout=10)
        keys.append(conversation_secret(tmp_path))

    threads = [threading.Thread(target=replica) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert len(keys) == 8 and set(keys) == {(tmp_path / KEY_FILE).read_bytes()}
    assert [p.name for p in tmp_path.iterdir()] == [KEY_FILE]  # no drafts left behind


def test_a_full_disk_leaves_no_draft_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The draft's write failing (ENOSPC) left an empty `.conversation.key.*` file at each
    start of a crash-looping router (found in review)."""

    class FullDisk(io.BufferedWriter):
        def write(self, data: Any) -> int:
            raise OSError(errno.ENOSPC, "No space left on device")

    real_fdopen = conversation_key.os.fdopen
    monkeypatch.setattr(
        conversation_key.os, "fdopen", lambda fd, mode: FullDisk(real_fdopen(fd, mode).raw)
    )
    secret = conversation_secret(tmp_path)  # its own, for this run
    assert len(secret) == 32
    assert list(tmp_path.iterdir()) == []


def test_a_key_not_written_back_at_once_is_written_back_once_it_can_be(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The ledger directory removed, and the next flush could not make it again (a full
    disk; here a file in its place, a real refusal): the flush after it found nothing gone,
    the writer's own write made `records/` again, and the key stayed gone for good, a
    restart then grouping no conversation with this run's (found in review)."""
    ledger = tmp_path / "ledger"
    writer = LedgerWriter(ledger)
    writer.root.key = key = conversation_secret(ledger)  # as `router.components` gives it
    try:
        writer.submit(Record("r0", time.time()))
        writer.flush()
        shutil.rmtree(ledger)
        ledger.write_bytes(b"")  # records/ cannot be made: the flush fails to undo it
        writer.flush()
        assert "cannot be made again now" in caplog.text
        ledger.unlink()
        writer.submit(Record("r1", time.time()))  # the write makes records/ itself
        writer.flush()
        assert (ledger / KEY_FILE).read_bytes() == key
        assert "made it again, with this run's conversation key" in caplog.text
    finally:
        writer.close()
    with Ledger(ledger) as read:
        assert read.sql("SELECT request_id FROM records") == [("r1",)]
