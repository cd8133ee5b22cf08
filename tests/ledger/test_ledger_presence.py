"""`--ledger` naming a directory that holds no ledger (its parent, its `records/`, an empty
directory) is refused by every command that reads one; a ledger with no rows yet is not."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import yaml

from router.ledger import LedgerWriter
from router.record import Record
from tests.harness import config_for, router, simulator
from tests.ledger.file_modes import modes_bind
from tests.processes import smf_router


def _ledger_under(parent: Path) -> Path:
    """`parent/ledger` with one record of now, as the router writes it."""
    writer = LedgerWriter(parent / "ledger")
    writer.submit(Record("r1", time.time(), route="coding", backend="local", tier="local"))
    writer.close()
    return parent / "ledger"


def test_a_directory_beside_the_ledger_is_no_ledger_for_any_command(tmp_path: Path) -> None:
    """The ledger's parent (`/var/lib/smf-router` for `/var/lib/smf-router/ledger`), its own
    `records/` and an empty directory each printed a report of zeros, "no shadow
    comparisons yet" or "compacted 0 day(s) … dropped 0" (a cron job that never applies
    retention), all with status 0 (found in a new user's review)."""
    ledger = _ledger_under(tmp_path / "lib")
    records = ledger / "records"
    empty = tmp_path / "empty"
    empty.mkdir()
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    for wrong, meant in ((ledger.parent, ledger), (records, ledger), (empty, None)):
        for command in (
            ["report"],
            ["ledger", "report"],
            ["ledger", "compact", "--retention-days", "1"],
            ["shadow", "report"],
        ):
            done = smf_router(*command, "--ledger", str(wrong))
            said = f"{command} --ledger {wrong}: {done.stdout[-300:]} {done.stderr[-300:]}"
            assert done.returncode == 2, said
            assert done.stdout == "", said  # no table of zeros, no "compacted 0 day(s)"
            assert done.stderr.startswith(f"error: no ledger at {wrong} "), said
            hint = f"there is one at {meant}: --ledger {meant}"
            assert (hint in done.stderr) == (meant is not None), said
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before
    right = smf_router("report", "--ledger", str(ledger), "--format", "json")
    assert right.returncode == 0, right.stderr
    assert '"requests": 1' in right.stdout


def test_a_ledger_that_has_no_rows_yet_reads_as_an_empty_one(tmp_path: Path) -> None:
    """A router that has served nothing yet, and a writer that has written no row (`canary
    run`'s, before its first flush), leave a ledger all the same: its report is one of
    zeros, not "no ledger"."""
    fresh = tmp_path / "fresh"
    LedgerWriter(fresh).close()
    with simulator(profile="vllm", model="local-model") as local:
        config = config_for({"local": local}, tmp_path / "served")
        with router(config):
            served = Path(config.ledger.path)
            ledgers = [fresh, served]
            runs = [
                (ledger, smf_router(*command, "--ledger", str(ledger)))
                for ledger in ledgers
                for command in (["report"], ["ledger", "compact"], ["shadow", "report"])
            ]
    for ledger, done in runs:
        assert done.returncode == 0, f"{ledger}: {done.stderr[-500:]}"
        assert "no ledger" not in done.stderr
    reports, compactions, shadows = (runs[i::3] for i in range(3))
    assert all("TOTAL" in done.stdout for _, done in reports)
    assert all(done.stdout.startswith("compacted 0 day(s)") for _, done in compactions)
    assert all("no shadow comparisons in the ledger yet" in done.stdout for _, done in shadows)


@pytest.mark.parametrize(
    ("closed", "mode"),
    [("ledger", 0o000), ("ledger", 0o444), ("parent", 0o000), ("parent", 0o640)],
)
def test_a_ledger_this_user_may_not_read_is_said_in_one_line(
    tmp_path: Path, closed: str, mode: int
) -> None:
    """A ledger this user may not look in (0444: read, not searched) was "no ledger at …"
    (mode 000: click's "not readable" usage box); under a parent it may not search
    (systemd's 0750 state directory, to a user outside its group), a PermissionError
    traceback (found in review). Now one line that says what to do, and status 2, for
    every command that reads one, named by --ledger or by the config."""
    ledger = _ledger_under(tmp_path / "lib")
    config = tmp_path / "router.yaml"
    local = {"name": "local", "tier": "local", "base_url": "http://127.0.0.1:9/v1", "model": "m"}
    backends = [local, {**local, "name": "cloud", "tier": "cloud", "model": "gpt-4o"}]
    config.write_text(yaml.safe_dump({"backends": backends, "ledger": {"path": str(ledger)}}))
    folder = ledger if closed == "ledger" else ledger.parent
    said = f"error: cannot read {ledger}: Permission denied (run as the ledger's user or group)\n"
    prefix = modes_bind()
    folder.chmod(mode)
    try:
        runs = [
            (where, command, smf_router(*command, *where, prefix=prefix))
            for where in (["--ledger", str(ledger)], ["--config", str(config)])
            for command in (["report"], ["ledger", "compact"], ["shadow", "report"])
        ]
    finally:
        folder.chmod(0o755)
    for where, command, done in runs:
        assert (done.returncode, done.stdout, done.stderr) == (2, "", said), (where, command)
