"""Reading a ledger that is not as fresh as the code: files from before a column was added,
and a file damaged inside a page. A report answers from what it can read, and says so."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from router import report
from router.ledger import (
    Ledger,
    LedgerWriter,
    checksum,
    compaction,
    query,
    rollups,
    segment_write,
    segments,
)
from router.ledger.recent import RecentRows
from router.ledger.schema import SHADOW_COMPARISONS, rows_table
from router.record import Record, Usage
from tests.ledger_races import merge_a_day_after_each_listing

DAY = datetime(2026, 3, 1, 10, tzinfo=UTC)
ADDED_LATER = ("route", "live_cost_usd", "judge", "shadow_error")


def test_files_from_before_a_column_was_added_read_it_as_null(tmp_path: Path) -> None:
    """A ledger holding only older shadow files made `shadow report` fail (Binder error)."""
    row = {
        "ts": DAY.timestamp(),
        "request_id": "x",
        "intent": "coding",
        "live_backend": "local",
        "shadow_backend": "cloud",
        "agreed": True,
        "method": "exact",
        "shadow_cost_usd": 0.1,
    }
    old_names = [f.name for f in SHADOW_COMPARISONS if f.name not in ADDED_LATER]
    table = rows_table("shadow_comparisons", [row]).select(old_names)
    day = segments.day_dir(tmp_path, "shadow_comparisons", "2026-03-01")
    segment_write.write_segment(day / "old-00000001.parquet", table)
    with Ledger(tmp_path) as ledger:
        rows = ledger.sql("select request_id, live_cost_usd, judge from shadow_comparisons")
    assert rows == [("x", None, None)]


def test_a_page_damaged_inside_a_file_skips_that_file_with_a_warning(tmp_path: Path) -> None:
    """Some damage makes DuckDB raise its bare `Error` (not an IO error): the report failed
    outright instead of re-validating the files and skipping the damaged one."""
    writer = LedgerWriter(tmp_path, process_tag="w")
    for part in range(2):
        for i in range(2000):
            started = DAY.timestamp() + part * 2000 + i
            record = Record(f"r{part}-{i}", started, backend="cloud", tier="cloud")
            record.route, record.usage, record.cost_usd = "coding", Usage(100, 10), 1.0
            writer.submit(record)
        writer.flush()
    writer.close()
    damaged = sorted(segments.day_dir(tmp_path, "records", "2026-03-01").glob("*.parquet"))[1]
    raw = bytearray(damaged.read_bytes())
    request_ids = pq.ParquetFile(damaged).metadata.row_group(0).column(0)
    at = request_ids.data_page_offset  # a page header: "Variable-length int over 10 bytes"
    raw[at : at + 64] = b"\xa5" * 64
    damaged.write_bytes(bytes(raw))
    with Ledger(tmp_path) as ledger:
        query = "select count(*), count(distinct request_id), sum(cost_usd) from records"
        assert ledger.sql(query) == [(2000, 2000, 2000.0)]
        assert any(damaged.name in w for w in ledger.warnings)


def test_a_report_whose_files_were_merged_after_listing_lists_again(tmp_path: Path) -> None:
    """The rollup split built its view outside the retry: a day merged between the listing
    and the report's split failed the report with an IO error (found in review)."""
    writer = LedgerWriter(tmp_path, process_tag="w")
    for i in range(6):
        writer.submit(Record(f"r{i}", DAY.timestamp() + i, usage=Usage(10, 1), cost_usd=1.0))
        writer.flush()
    writer.close()
    day = segments.day_dir(tmp_path, "records", "2026-03-01")
    with Ledger(tmp_path) as ledger:
        listed = segments.list_day(day).segments
        compaction.merge(listed, day / "compacted-late.parquet")  # after the ledger listed
        ledger.use_rollups(datetime(2026, 3, 1), datetime(2026, 3, 3))
        assert ledger.sql("select count(*) from records_open") == [(6,)]


def test_a_day_compacted_while_a_report_runs_is_counted_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Housekeeping merges and rolls up a day just after the report chose its SQL: the
    retry re-lists the files and now reads that day from its rollup, which the SQL written
    before the retry left out (the day vanished from the report, found in review)."""
    writer = LedgerWriter(tmp_path, process_tag="w")
    for i in range(5):
        writer.submit(Record(f"r{i}", DAY.timestamp() + i, usage=Usage(10, 1), cost_usd=1.0))
        writer.flush()
    writer.close()
    use_rollups = Ledger.use_rollups

    def then_housekeeping(self: Ledger, since: datetime, until: datetime) -> int:
        found = use_rollups(self, since, until)
        compaction.compact(tmp_path, now=DAY + timedelta(days=2))  # merges, rolls up, deletes
        return found

    monkeypatch.setattr(Ledger, "use_rollups", then_housekeeping)
    built = report.build(tmp_path, since=datetime(2026, 3, 1), until=datetime(2026, 3, 2))
    assert built["totals"]["requests"] == 5


def _write_costs(directory: Path, parts: int) -> None:
    """`parts` segments of 500 records each on DAY, every record with a cost of its own (so
    the cost column is stored value by value, not as a dictionary of a few values)."""
    writer = LedgerWriter(directory, process_tag="w")
    for part in range(parts):
        for i in range(500):
            record = Record(f"r{part}-{i}", DAY.timestamp() + part * 500 + i, backend="cloud")
            record.tier, record.usage, record.cost_usd = "cloud", Usage(100, 10), i / 1000
            writer.submit(record)
        writer.flush()
    writer.close()


def _flip_a_bit_of_the_costs(path: Path) -> None:
    """Disk damage that still decodes: one bit inside the cost column's first page. The
    offset was found by trying each one (pyarrow 26, zstd): the 500 costs, 124.75, then add
    up to 125.9225 without an error, from DuckDB and pyarrow alike."""
    meta = pq.ParquetFile(path).metadata
    names = [meta.schema.column(i).name for i in range(meta.num_columns)]
    chunk = meta.row_group(0).column(names.index("cost_usd"))
    raw = bytearray(path.read_bytes())
    raw[(chunk.dictionary_page_offset or chunk.data_page_offset) + 127] ^= 0x04
    path.write_bytes(bytes(raw))


def _flip_a_bit_that_still_decodes(path: Path, column: str, read: Callable[[Path], object]) -> None:
    """Disk damage that still decodes: the first bit (0x40) inside `column`'s first pages
    whose flip `read` decodes, without an error, to something else. Searched for rather
    than fixed like `_flip_a_bit_of_the_costs`: these files' bytes depend on their content."""
    meta = pq.ParquetFile(path).metadata
    names = [meta.schema.column(i).name for i in range(meta.num_columns)]
    chunk = meta.row_group(0).column(names.index(column))
    start = chunk.dictionary_page_offset or chunk.data_page_offset
    intact = path.read_bytes()
    want = read(path)
    for at in range(start, start + chunk.total_compressed_size):
        raw = bytearray(intact)
        raw[at] ^= 0x40
        path.write_bytes(bytes(raw))
        try:
            if read(path) != want:
                return
        except Exception:  # damage that fails to decode: not what is sought
            continue
    raise AssertionError(f"no bit of {column} in {path} decodes to another value")


def _duckdb_sums(path: Path) -> object:
    """What a report shows of a rollup's sums file (USD to 6 places), read by a DuckDB of its
    own (no cache of the file from before the flip)."""
    with duckdb.connect(":memory:") as con:
        sql = "select sum(requests), round(sum(cost_usd), 6) from read_parquet(?)"
        return con.execute(sql, [str(path)]).fetchall()


def test_a_segment_damaged_on_disk_is_left_out_and_named_not_added_up(tmp_path: Path) -> None:
    """No checksum was kept: a flipped bit inside a page summed to another total without a
    word (in review, 3 of 40 random flips; cost reports silently wrong)."""
    _write_costs(tmp_path, 2)
    damaged = sorted(segments.day_dir(tmp_path, "records", "2026-03-01").glob("*.parquet"))[1]
    _flip_a_bit_of_the_costs(damaged)
    built = report.build(tmp_path, since=DAY - timedelta(days=1))
    assert (built["totals"]["requests"], built["totals"]["cloud_usd"]) == (500, 124.75)
    assert [w for w in built["warnings"] if damaged.name in w and "checksum" in w]


def test_compaction_does_not_merge_a_damaged_segment_into_the_day(tmp_path: Path) -> None:
    """A merge decoded the damaged file and wrote its wrong costs into a new file with a good
    checksum: the damage would have been blessed for good."""
    _write_costs(tmp_path, 3)
    day = segments.day_dir(tmp_path, "records", "2026-03-01")
    damaged = sorted(day.glob("*.parquet"))[1]
    _flip_a_bit_of_the_costs(damaged)
    result = compaction.compact(tmp_path, now=DAY + timedelta(days=2))
    assert result.files_in == 2 and damaged.exists()
    assert [w for w in result.warnings if damaged.name in w]
    built = report.build(tmp_path, since=DAY - timedelta(days=1), until=DAY + timedelta(days=1))
    assert (built["totals"]["requests"], built["totals"]["cloud_usd"]) == (1000, 249.5)
    assert [w for w in built["warnings"] if damaged.name in w]


def test_a_segment_written_before_checksums_is_read_without_a_warning(tmp_path: Path) -> None:
    """An upgraded router must not lose the reports of the files it wrote before."""
    _write_costs(tmp_path, 2)
    day = segments.day_dir(tmp_path, "records", "2026-03-01")
    for sidecar in day.glob(f".*{checksum.SUFFIX}"):
        sidecar.unlink()
    built = report.build(tmp_path, since=DAY - timedelta(days=1))
    assert (built["totals"]["requests"], built["warnings"]) == (1000, [])


def test_a_rolled_up_day_is_answered_without_reading_its_segments(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every listed segment's checksum was checked, a read of the whole file each: a report
    over a year of rollups, and every hourly `compact`, read the year's bytes (747 MiB
    instead of 50 at 10M records, in review). A rolled-up day's segment is now read only by
    a query of its rows; damage to it goes unseen until then, and its rollup answers."""
    _write_costs(tmp_path, 2)
    assert compaction.compact(tmp_path, now=DAY + timedelta(days=2)).rollups == 1
    (merged,) = segments.day_dir(tmp_path, "records", "2026-03-01").glob("*.parquet")
    _flip_a_bit_of_the_costs(merged)
    monkeypatch.setattr(report, "EXACT_MAX", 0)  # as if big: no exact latency over every record
    built = report.build(tmp_path, since=DAY - timedelta(days=1))
    assert (built["totals"]["requests"], built["totals"]["cloud_usd"]) == (1000, 249.5)
    assert built["warnings"] == []
    again = compaction.compact(tmp_path, now=DAY + timedelta(days=2))
    assert (again.files_in, again.rollups, again.warnings) == (0, 0, [])
    monkeypatch.undo()  # exact latency again: it reads every record
    built = report.build(tmp_path, since=DAY - timedelta(days=1))
    assert (built["totals"]["requests"], built["totals"]["cloud_usd"]) == (1000, 249.5)
    assert [w for w in built["warnings"] if merged.name in w and "checksum" in w]


@pytest.mark.parametrize("content", [b"", b"garbled\n", b"\xff\x00" * 5], ids=repr)
def test_a_damaged_checksum_file_is_named_instead_of_its_segment(
    tmp_path: Path, content: bytes
) -> None:
    """An emptied or garbled `.crc32` was reported as damage to its intact segment
    ("checksum … is not empty: damaged on disk", in review), and non-UTF-8 bytes as a
    decode error."""
    _write_costs(tmp_path, 2)
    segment = sorted(segments.day_dir(tmp_path, "records", "2026-03-01").glob("*.parquet"))[1]
    checksum.sidecar(segment).write_bytes(content)
    since = DAY - timedelta(days=1)
    built = report.build(tmp_path, since=since)
    (warning,) = built["warnings"]
    assert (built["totals"]["requests"], "on disk" in warning) == (500, False)
    assert f"its checksum file {checksum.sidecar(segment).name} is damaged" in warning
    checksum.sidecar(segment).unlink()  # what docs/ledger.md offers: read it unchecked
    assert report.build(tmp_path, since=since)["totals"]["requests"] == 1000


def _merging_a_day_after_each_listing(
    directory: Path, monkeypatch: pytest.MonkeyPatch, days: int
) -> None:
    """`days` days of two segments each, and a compaction that merges (and deletes the
    sources of) one more of them after every listing a reader makes: what `compact` over a
    backlog does to a report that lists while it runs, without the timing."""
    writer = LedgerWriter(directory, process_tag="w")
    for n in range(days * 2):
        start = (DAY + timedelta(days=n // 2)).timestamp() + n
        writer.submit(Record(f"r{n}", start, usage=Usage(10, 1), cost_usd=1.0))
        writer.flush()
    writer.close()
    merge_a_day_after_each_listing(
        monkeypatch,
        [segments.day_dir(directory, "records", f"2026-03-{1 + d:02}") for d in range(days)],
    )


def test_a_report_overlapping_a_compaction_of_many_days_lists_again_until_it_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A report listed again at most twice, and a `compact` merging day after day meanwhile
    failed it with DuckDB's "No files found that match the pattern" traceback (2-3 reports
    in 10 beside a 30-day compaction, in review)."""
    _merging_a_day_after_each_listing(tmp_path, monkeypatch, days=4)
    built = report.build(tmp_path, since=datetime(2026, 2, 1), until=datetime(2026, 4, 1))
    assert (built["totals"]["requests"], built["warnings"]) == (8, [])


def test_a_report_a_compaction_keeps_overtaking_fails_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past a bound, the report gives up with the one-line error the CLI and the endpoint
    show (`report.Unsummable`), not a traceback."""
    monkeypatch.setattr(query, "LISTINGS", 2, raising=False)  # (absent before the bound)
    _merging_a_day_after_each_listing(tmp_path, monkeypatch, days=3)
    with pytest.raises(report.Unsummable) as raised:
        report.build(tmp_path, since=datetime(2026, 2, 1), until=datetime(2026, 4, 1))
    message = str(raised.value)
    assert message.startswith(f"cannot read the ledger at {tmp_path}: its files kept being")
    assert "day=2026-03-02" in message and "\n" not in message


def test_a_damaged_merged_file_hides_none_of_the_intact_files_it_replaced(
    tmp_path: Path,
) -> None:
    """A merge keeps its sources a while (a live writer's grace period, or for good after a
    crash). A damaged merged file still hid them by its list of sources: the report counted
    nothing, and the next compaction deleted the intact sources (found in review)."""
    _write_costs(tmp_path, 2)
    day = segments.day_dir(tmp_path, "records", "2026-03-01")
    sources = segments.list_day(day).segments
    merged = day / "w-00000099.parquet"
    compaction.merge(sources, merged, delete=False)  # as the writer's appender does
    raw = bytearray(merged.read_bytes())
    raw[100] ^= 0x40  # inside the first column's pages; the footer still reads
    merged.write_bytes(bytes(raw))
    since = DAY - timedelta(days=1)
    built = report.build(tmp_path, since=since)
    assert built["totals"]["requests"] == 1000
    assert any(merged.name in warning for warning in built["warnings"])
    compaction.compact(tmp_path, now=DAY + timedelta(days=2))
    assert report.build(tmp_path, since=since)["totals"]["requests"] == 1000


def test_a_rollup_damaged_on_disk_is_named_and_its_day_read_raw(tmp_path: Path) -> None:
    """Nothing failed when the rollup's checksum went unchecked: a flipped bit in its sums
    file that still decodes gave a wrong cost without a word (500 requests at 124.763725
    instead of 124.75, in review)."""
    _write_costs(tmp_path, 1)
    since = DAY - timedelta(days=1)
    raw = report.build(tmp_path, since=since)
    assert compaction.compact(tmp_path, now=DAY + timedelta(days=2)).rollups == 1
    (sums,) = segments.day_dir(tmp_path, rollups.TABLE, "2026-03-01").glob("*.sums.parquet")
    _flip_a_bit_that_still_decodes(sums, "cost_usd", _duckdb_sums)
    built = report.build(tmp_path, since=since)
    assert built["totals"] == raw["totals"]
    assert [w for w in built["warnings"] if sums.name in w and "checksum" in w]


def _write_canary_results(directory: Path, n: int) -> Path:
    """One `canary_results` file of `n` rows on DAY, each with a latency of its own."""
    writer = LedgerWriter(directory, process_tag="w")
    for i in range(n):
        row = {"run_id": "r1", "ts": DAY.timestamp() + i, "backend": "local", "suite": "math"}
        writer.submit_row("canary_results", row | {"case_id": f"m-{i}", "latency_s": i / 7})
    writer.close()
    (written,) = segments.day_dir(directory, "canary_results", "2026-03-01").glob("*.parquet")
    return written


def test_a_canary_file_damaged_on_disk_gives_no_rows(tmp_path: Path) -> None:
    """Nothing failed when a router following the canary CronJob read its results unchecked:
    a flipped bit that still decodes gave it wrong rows to gate routes on (in review)."""
    damaged = _write_canary_results(tmp_path, 300)
    _flip_a_bit_that_still_decodes(damaged, "latency_s", lambda p: pq.read_table(p).to_pylist())
    assert RecentRows(tmp_path, "canary_results").read("2026-03-01") == []


def test_a_damaged_canary_file_is_named_once_and_read_again_once_restored(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A following router skipped a damaged file with no word (in review); then it stopped
    reading it for good after one failure, so a restored file (or a passing error on a
    network volume) stayed unread until a restart (in the next review)."""
    damaged = _write_canary_results(tmp_path, 300)
    good = damaged.read_bytes()
    raw = bytearray(good)
    raw[100] ^= 0x40  # inside the first column's pages; the footer still reads
    damaged.write_bytes(bytes(raw))
    results = RecentRows(tmp_path, "canary_results")
    with caplog.at_level(logging.WARNING, logger="smf_router.ledger.recent"):
        assert results.read("2026-03-01") == results.read("2026-03-01") == []
    (warning,) = [r.getMessage() for r in caplog.records if str(damaged) in r.getMessage()]
    assert "checksum" in warning
    damaged.write_bytes(good)  # restored from a backup, as docs/ledger.md says
    assert len(results.read("2026-03-01")) == 300


def test_a_canary_table_it_may_not_list_is_named_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """`canary_results/` another account's (0700): the following router read nothing every
    minute and said nothing, so the canary gates never moved (found in review)."""
    from tests.ledger.file_modes import unlistable

    _write_canary_results(tmp_path, 3)
    folder = tmp_path / "canary_results"
    results = RecentRows(tmp_path, "canary_results")
    with unlistable(folder), caplog.at_level(logging.WARNING, logger="smf_router.ledger.recent"):
        assert results.read("2026-03-01") == results.read("2026-03-01") == []
    named = [r.getMessage() for r in caplog.records if str(folder) in r.getMessage()]
    assert named == [f"canary_results: skipped unreadable {folder}: Permission denied"]
    assert len(results.read("2026-03-01")) == 3
