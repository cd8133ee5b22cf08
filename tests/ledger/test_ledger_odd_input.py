"""A ledger directory holding what the ledger never wrote: a stray `day=…` directory, and
token counts no request can have. Reports and compaction read past them and say so."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from router.ledger import segments
from router.ledger.cli import app
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
    assert result.exit_code == 0, result.output
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
