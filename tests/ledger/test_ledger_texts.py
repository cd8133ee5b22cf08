"""`ledger.store_text`: the texts table keeps each request's prompt and answer (and nothing
when the switch is off), readable by the router's user only."""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import openai
import pytest

from router.config import parse
from router.ledger import Ledger, checksum, compaction, segments
from router.maintenance import housekeep
from tests.harness import VENV_BIN, config_for, router, simulator
from tests.ledger.ledger_days import count, write_day
from tests.router.offline import OFFLINE

ASKS = ["Name a colour.", "Name a fruit."]


def serve_two_requests(tmp_path: Path, store_text: bool) -> list[str]:
    """One plain and one streamed request; returns their answers."""
    ledger = {"path": str(tmp_path / "ledger"), "flush_interval_s": 0.2, "store_text": store_text}
    answers = []
    with (
        simulator(profile="vllm", model="local-model") as local,
        router(config_for({"local": local}, tmp_path, ledger=ledger)) as proxy,
    ):
        client = openai.OpenAI(base_url=proxy.url, api_key="none", max_retries=0)
        system = {"role": "system", "content": "Be brief."}
        plain = client.chat.completions.create(
            model="local", messages=[system, {"role": "user", "content": ASKS[0]}]
        )
        answers.append(plain.choices[0].message.content or "")
        stream = client.chat.completions.create(
            model="local", stream=True, messages=[system, {"role": "user", "content": ASKS[1]}]
        )
        answers.append("".join(c.choices[0].delta.content or "" for c in stream if c.choices))
    return answers  # the router has stopped: its ledger is flushed


@pytest.mark.parametrize("store_text", [True, False])
def test_store_text_keeps_each_prompt_and_answer(tmp_path: Path, store_text: bool) -> None:
    answers = serve_two_requests(tmp_path, store_text)
    ledger = Ledger(tmp_path / "ledger")
    assert ledger.sql("select count(*) from records")[0][0] == 2
    if not store_text:
        assert not (tmp_path / "ledger" / "texts").exists()
        return
    rows = ledger.sql("select prompt_text, completion_text from texts order by started_at")
    assert rows == list(zip(ASKS, answers, strict=True))
    assert all(answers)


@pytest.fixture
def umask_022() -> Iterator[None]:
    """The usual umask, under which a file is made 0644 unless asked otherwise."""
    before = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(before)


def modes(root: Path) -> dict[str, int]:
    """The permission bits of `root` and of every directory and file under it."""
    return {
        str(p.relative_to(root.parent)): p.stat().st_mode & 0o777 for p in [root, *root.rglob("*")]
    }


@pytest.mark.usefixtures("umask_022")
def test_stored_texts_are_readable_by_the_routers_user_only(tmp_path: Path) -> None:
    """Prompts and answers were 0644 in 0755 directories: every local user could read them
    (found in review). The other tables keep the umask's modes, for an operator's reports."""
    serve_two_requests(tmp_path, store_text=True)
    texts = modes(tmp_path / "ledger" / "texts")
    assert len(texts) >= 4  # texts/, a day, a file and its checksum
    for name, mode in texts.items():
        assert mode == (0o700 if (tmp_path / "ledger" / name).is_dir() else 0o600), name
    records = modes(tmp_path / "ledger" / "records")
    assert set(records.values()) == {0o755, 0o644}


@pytest.mark.usefixtures("umask_022")
def test_compaction_keeps_texts_private_and_closes_an_older_ledgers_directories(
    tmp_path: Path,
) -> None:
    """A merge rewrites a day's texts (and the router merges its own files as it runs); a
    ledger written before stays 0755 until the next write takes its directories back."""
    day = datetime(2026, 3, 1, 12, tzinfo=UTC)
    write_day(tmp_path, day, 3, "old", text=True)
    texts = tmp_path / "texts"
    for path in [texts, *texts.rglob("*")]:  # as an older version left them
        path.chmod(0o755 if path.is_dir() else 0o644)
    result = compaction.compact(tmp_path, now=day + timedelta(days=2), tables=["texts"])
    assert result.files_out == 1
    (merged,) = (texts / "day=2026-03-01").glob("compacted-*.parquet")
    assert merged.stat().st_mode & 0o777 == 0o600
    assert checksum.sidecar(merged).stat().st_mode & 0o777 == 0o600
    assert modes(texts)["texts"] == 0o700 and modes(texts)["texts/day=2026-03-01"] == 0o700


@pytest.mark.usefixtures("umask_022")
def test_an_older_ledgers_texts_close_at_start_even_with_store_text_off(tmp_path: Path) -> None:
    """Texts an older version left 0755/0644 stayed readable until a new text was written,
    and with `store_text` off never (found in review): a writer's start and any compaction
    close the table's directory, which closes every file under it."""
    day = datetime(2026, 3, 1, 12, tzinfo=UTC)
    write_day(tmp_path, day, 1, "old", text=True)
    texts = tmp_path / "texts"
    texts.chmod(0o755)  # as an older version left it
    write_day(tmp_path, day, 1, "new", text=False)  # a writer that keeps no text starts
    assert modes(texts)["texts"] == 0o700
    texts.chmod(0o755)
    compaction.compact(tmp_path, now=day + timedelta(hours=1), tables=["records"])
    assert modes(texts)["texts"] == 0o700  # a day still open: nothing merged, still closed


def test_a_table_another_account_may_not_list_is_skipped_with_its_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`texts/` is 0700: `smf-router ledger compact` as another account (a group-shared
    ledger) crashed on it with a traceback and compacted nothing, where it used to warn per
    day (found in review). The OS refuses root nothing, so the refusal is simulated."""
    day = datetime(2026, 3, 1, 12, tzinfo=UTC)
    write_day(tmp_path, day, 2, "old", text=True)
    texts = tmp_path / "texts"
    listing = Path.iterdir

    def refused(self: Path) -> Iterator[Path]:
        if self == texts:
            raise PermissionError(13, "Permission denied", str(self))
        return listing(self)

    monkeypatch.setattr(Path, "iterdir", refused)
    result = compaction.compact(tmp_path, now=day + timedelta(days=2))
    assert f"skipped unreadable {texts}: Permission denied" in result.warnings
    assert result.files_out >= 1  # the records day was still merged
    # retention of that table says it was not applied (it dropped nothing, silently)
    warnings: list[str] = []
    later = day + timedelta(days=60)
    assert compaction.apply_retention(tmp_path, "texts", 30, later, warnings) == []
    assert warnings == [f"retention not applied to {texts}: Permission denied"]


@pytest.mark.usefixtures("umask_022")
def test_compact_leaves_what_a_symlink_in_the_texts_place_names_as_it_was(
    tmp_path: Path,
) -> None:
    """`ln -s $PWD/victim ledger/texts; smf-router ledger compact` made victim 0700:
    `is_dir`, `stat` and `chmod` follow a symlink, and as root it could have been /etc
    (found in review). The real command on a real symlink: the target keeps its mode, the
    command says why, and the rest of the ledger is compacted as before."""
    ledger = tmp_path / "ledger"
    day = datetime(2026, 3, 1, 12, tzinfo=UTC)
    write_day(ledger, day, 2, "old")  # two files of records to merge, no texts
    victim = tmp_path / "victim"
    victim.mkdir()
    (ledger / "texts").symlink_to(victim)
    done = subprocess.run(
        [VENV_BIN / "smf-router", "ledger", "compact", "--ledger", ledger],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert victim.stat().st_mode & 0o777 == 0o755
    assert f"warning: left {ledger / 'texts'} as it is: it is a symlink" in done.stderr
    assert len(list((ledger / "records" / "day=2026-03-01").glob("*.parquet"))) == 1
    assert count(ledger) == 2


@pytest.mark.usefixtures("umask_022")
def test_a_writer_leaves_what_a_symlinked_day_names_as_it_was(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A day's directory under texts/ is closed as each text is written: through a symlink
    in its place too, until now. Its target keeps its mode; said once, not per write."""
    day = datetime(2026, 3, 1, 12, tzinfo=UTC)
    write_day(tmp_path, day, 1, "first", text=True)
    folder = segments.day_dir(tmp_path, "texts", "2026-03-01")
    shutil.rmtree(folder)
    victim = tmp_path / "victim"
    victim.mkdir()
    folder.symlink_to(victim)
    with caplog.at_level(logging.WARNING, logger="smf_router.ledger"):
        write_day(tmp_path, day, 3, "second", text=True)  # three writes through it
    assert victim.stat().st_mode & 0o777 == 0o755
    (said,) = [r.getMessage() for r in caplog.records if str(folder) in r.getMessage()]
    assert said.startswith(f"left {folder} as it is: it is a symlink")
    assert modes(tmp_path / "texts")["texts"] == 0o700  # the table's own directory still closed


def test_the_router_says_a_symlink_in_the_texts_place_once_not_at_each_pass(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """docs/ledger.md: the router logs it once. Each compaction returned it again, and the
    hourly housekeeping logged it at every pass (found in review)."""
    ledger = tmp_path / "ledger"
    ledger.mkdir()
    victim = tmp_path / "victim"
    victim.mkdir()
    (ledger / "texts").symlink_to(victim)
    config = parse({**OFFLINE, "ledger": {"path": str(ledger)}})
    with caplog.at_level(logging.WARNING, logger="smf_router"):
        for _ in range(3):  # the first pass after start, then hourly
            housekeep(config)
    said = [r.getMessage() for r in caplog.records if "it is a symlink" in r.getMessage()]
    assert said == [
        f"ledger housekeeping: left {ledger / 'texts'} as it is: it is a symlink or a file, not "
        "a directory, so its mode was not changed (what it names may hold callers' texts: "
        "make that 0700)"
    ]
