"""A ledger directory holding what the ledger never wrote: a stray `day=…` directory, and
token counts no request can have. Reports and compaction read past them and say so. And a
value the writer cannot store: dropped with its row, and never logged."""

from __future__ import annotations

import json
import logging
import shutil
import subprocess
import time
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from router.ledger import LedgerWriter, conversion, normalize_usage, segments
from router.ledger.cli import app
from router.ledger.schema import records_table
from router.record import Record, Usage
from tests.harness import VENV_BIN, config_for, router, simulator
from tests.ledger.known_ledger import write_known_ledger


def test_a_day_directory_that_is_not_a_date_is_ignored_with_one_warning(tmp_path: Path) -> None:
    """A backup copy `day=2026-03-01.bak` made `report` fail with a traceback, and retention
    would have deleted it as an old day (found in review)."""
    ledger = write_known_ledger(tmp_path / "ledger")
    day = segments.day_dir(ledger, "records", "2026-03-01")
    backup = day.with_name("day=2026-03-01.bak")
    shutil.copytree(day, backup)  # counted, it would double the day's requests
    result = CliRunner().invoke(
        app, ["report", "--ledger", str(ledger), "--format", "json", "--since", "2026-01-01"]
    )
    assert result.exit_code == 3, result.output  # written, with a warning: partial
    data = json.loads(result.stdout)
    assert data["totals"]["requests"] == 4
    assert data["warnings"] == [f"ignored {backup}: not a day partition (day=YYYY-MM-DD)"]

    compacted = CliRunner().invoke(
        app, ["compact", "--ledger", str(ledger), "--retention-days", "30"]
    )
    assert compacted.exit_code == 0, compacted.output
    assert "dropped 2 day partition(s)" in compacted.output  # the two real days
    assert compacted.output.count(f"warning: ignored {backup}") == 1
    assert backup.is_dir() and list(backup.iterdir())


@pytest.mark.parametrize(
    "command",
    [
        ["report", "--format", "json", "--since", "2026-01-01"],
        ["report", "--format", "csv", "--since", "2026-01-01"],
        ["report", "--format", "table", "--since", "2026-01-01"],
        ["ledger", "compact"],
        ["shadow", "report"],
    ],
    ids=["report json", "report csv", "report table", "compact", "shadow report"],
)
def test_a_warning_is_printed_once(tmp_path: Path, command: list[str]) -> None:
    """The ledger logged each warning and the command echoed it too: with no logging set
    up, Python's last-resort handler printed a bare copy before the `warning:` line (found
    in re-review). Counted as bare text, so that any second copy fails."""
    ledger = write_known_ledger(tmp_path / "ledger")
    table = "shadow_comparisons" if command[0] == "shadow" else "records"  # the one it lists
    backup = segments.day_dir(ledger, table, "2026-03-01").with_name("day=2026-03-01.bak")
    shutil.copytree(segments.day_dir(ledger, "records", "2026-03-01"), backup)
    done = subprocess.run(
        [str(VENV_BIN / "smf-router"), *command, "--ledger", str(ledger)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == (3 if command[0] == "report" else 0), done.stderr  # 3: partial
    message = f"ignored {backup}: not a day partition"
    if "table" in command:  # the table shows it; stderr then stays quiet
        shown = done.stdout
        assert (shown.count(message), done.stderr.count(message)) == (1, 0)
    else:  # (the JSON holds it as data too)
        assert done.stderr.count(message) == 1
        assert f"warning: {message}" in done.stderr


def test_counts_too_large_to_add_up_are_recorded_as_zero(tmp_path: Path) -> None:
    """Counts up to 2^53 passed as real, and 1,100 of them overflowed the report's int64
    sums: the report failed with a traceback (found in review)."""
    writer = LedgerWriter(tmp_path, process_tag="h")
    usage = normalize_usage("chat", {"prompt_tokens": 2**53, "completion_tokens": 10})
    for i in range(1100):
        writer.submit(Record(f"r{i}", time.time() - 3600, backend="cloud", usage=usage))
    writer.close()
    result = CliRunner().invoke(app, ["report", "--ledger", str(tmp_path), "--format", "json"])
    assert result.exit_code == 0, result.output
    totals = json.loads(result.stdout)["totals"]
    assert (totals["requests"], totals["prompt_tokens"]) == (1100, 0)
    assert totals["completion_tokens"] == 11_000


def test_a_sum_beyond_int64_fails_the_report_at_once_in_one_line(
    tmp_path: Path, monkeypatch
) -> None:
    """A ledger written before the 2^40 bound can still hold such counts. Their overflow was
    taken for damaged files: every file was decoded again, twice, before the same error came
    out as a traceback (found in review)."""
    writer = LedgerWriter(tmp_path, process_tag="old")
    for i in range(2):
        writer.submit(Record(f"r{i}", time.time() - 3600, usage=Usage(2**62)))
    writer.close()
    decoded: list[Path] = []
    monkeypatch.setattr(segments, "validate_fully", decoded.append)
    result = CliRunner().invoke(app, ["report", "--ledger", str(tmp_path)])
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit), "not an exit: a traceback"
    assert decoded == [], "re-decoded every file for an error in the values"
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"error: cannot add up the ledger at {tmp_path}: Conversion Error")


def test_the_report_endpoint_says_why_it_cannot_add_up_the_ledger(tmp_path: Path) -> None:
    """The same ledger over HTTP went to the generic 500 ("internal error") with a traceback
    in the log; now the message says what `smf-router report` says (found in review)."""
    with simulator(profile="vllm", model="local-model") as local:
        config = config_for({"local": local}, tmp_path)
        writer = LedgerWriter(Path(config.ledger.path), process_tag="old")
        for i in range(2):
            writer.submit(Record(f"r{i}", time.time() - 3600, usage=Usage(2**62)))
        writer.close()
        with router(config) as proxy:
            response = httpx.get(f"{proxy.root}/v1/router/report?since=1d", timeout=60)
    assert response.status_code == 500
    message = response.json()["error"]["message"]
    assert message.startswith(f"cannot add up the ledger at {config.ledger.path}: Conversion")


def test_a_value_that_cannot_be_stored_is_dropped_with_its_row_and_never_logged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A key where a token count goes, in a record and in a canary row: each row is
    dropped alone, and the log says what could not be converted to what, never the value.
    Then the same record while converting nothing at all fails too (no memory): its
    traceback, which shows the conversion error it was raised in the handling of, is left
    out. Before: PyArrow's message, logged, quoted the value in full."""
    key = "sk-proj-do-not-log-7f3a"
    writer = LedgerWriter(tmp_path, flush_interval_s=3600)
    now = time.time()
    writer.submit(Record("good", now))
    writer.submit(Record("odd", now, usage=Usage(key)))  # type: ignore[arg-type]
    writer.submit_row("canary_runs", {"run_id": "x", "ts": now, "backend": "local", "cases": key})
    with caplog.at_level(logging.ERROR, logger="smf_router.ledger"):
        assert writer.flush() == 1
        real = records_table

        def broken_when_empty(records: list[Record]) -> object:
            if not records:
                raise MemoryError("injected into records_table")
            return real(records)

        monkeypatch.setattr(conversion, "records_table", broken_when_empty)
        writer.submit(Record("odd-again", now, usage=Usage(key)))  # type: ignore[arg-type]
        assert writer.flush() == 0
    writer.close()
    assert writer.dropped_rows["records"] == 2 and writer.dropped_rows["canary_runs"] == 1
    assert key not in caplog.text
    said = "Could not convert a value with type str: tried to convert to"
    assert [r.getMessage() for r in caplog.records] == [
        f"ledger dropped 1 records rows it could not convert: ArrowInvalid: {said} int64",
        f"ledger dropped 1 canary_runs rows it could not convert: ArrowInvalid: {said} int32",
        "ledger dropped 1 records rows it could not convert: MemoryError: injected into "
        "records_table",
    ]
