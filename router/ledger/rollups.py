"""Per-day rollups: what the report needs from a closed day, computed once by compaction.

A year of raw records is millions of rows; the report only needs sums per day × route ×
intent × backend × tier × caller, and latency percentiles per backend. `compact` writes both
for every closed day into `<ledger>/rollups/day=D/<digest>.{latency,sums}.parquet`:

- `sums`: the exact counts and sums of `SUMS_SQL` (the report's aggregate, with callers);
- `latency`: counts of successful requests per backend, metric (`ttft`, `total`) and
  log-spaced bucket (`BUCKETS_PER_E` per factor e, so a bucket is ~1 % wide).

`<digest>` hashes the names of the record segments the rollup was built from. A reader
uses a day's rollup only while that day's trusted segments still hash to the same digest,
so a late record, a new merge or a lost file makes it fall back to the raw segments of that
day instead of reporting stale numbers. The latency file is renamed into place before the
sums file, and readers look for the sums file, so a crash between the two is harmless.

Each sums file also holds its `VERSION` in its Parquet metadata (`VERSION_KEY`): a
compaction leaves alone a day whose rollup a newer router wrote. It rewrote any rollup not
its own, so an older compaction CronJob and a newer router undid each other every pass.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Literal

import pyarrow.parquet as pq

from router.ledger import checksum, segment_write, segments
from router.ledger.segments import Segment
from router.money import exact_sum, oversized, summable
from router.record import CREDITED_OUTCOMES

TABLE = "rollups"
# Part of the digest: a change of rollup format invalidates old files. 2: `seconds` is the
# serving attempt's time, as pricing charges it, not the whole request's. 3: `unpriced`
# and `saved_usd` (an older rollup lacks them: its day is read raw until compacted again).
# 4: `estimated` and `estimated_tokens`, the same way. 5: a local request's counterfactual
# counts only when credited (`COUNTERFACTUAL`), so a day rolled up before is read raw.
# 6: `uncredited`, the local requests that counterfactual leaves out, the same way.
# 7: dollars and seconds summed exactly (`money.exact_sum`): a day rolled up before, its
# DOUBLE sums in the order they were added, is read raw until compacted again.
# 8: `oversized`, the rows whose dollars or seconds the sums leave out (`money.summable`):
# format 7 failed to roll up a day holding one, so no such day has a rollup to upgrade.
# tests/fixtures/ledger-rollup-v5 is a day format 5 rolled up, which a report reads raw: a
# test that only sets VERSION back writes this format's columns under the old number.
VERSION = "8"
VERSION_KEY = b"smf.rollup_version"  # in each sums file's metadata (files before it: ≤ 4)
BUCKETS_PER_E = 100
ZERO_BUCKET = -1_000_000  # values ≤ 0 (reported as 0)

# Seconds on the backend that served, as `router.pricing.served_duration` counts them for
# a local request's cost: the serving attempt is the last one (dispatch stops at the first
# that commits), if it is on that backend, ended ok and was timed; else the whole request.
SERVED_SECONDS = """CASE WHEN attempts[-1].backend = backend AND attempts[-1].outcome = 'ok'
    AND attempts[-1].duration_s > 0 THEN attempts[-1].duration_s ELSE duration_s END"""

# A row's counterfactual as the report credits it: a local request's only when it ended
# with one of `CREDITED_OUTCOMES` (its answer delivered, or cancelled by no backend's
# fault), else 0. `router.pricing` stores 0 for the others; rows written before 2026-12-05
# hold the route's cloud price whatever the outcome, and are read by the same rule here.
_CREDITED = ", ".join(f"'{outcome}'" for outcome in CREDITED_OUTCOMES)
COUNTERFACTUAL = f"""(CASE WHEN tier = 'local' AND outcome NOT IN ({_CREDITED}) THEN 0.0
    ELSE counterfactual_usd END)"""

# A local request `COUNTERFACTUAL` credits nothing for: it failed (the client got an error).
# The report counts them beside the offload, which leaves their cloud price out.
UNCREDITED = f"tier = 'local' AND outcome NOT IN ({_CREDITED})"

# A served request whose cost or counterfactual cost is NULL: a cloud price was unknown
# (router.pricing). Rows written before NULL was stored say 0 and cannot be told apart.
# `Record.unpriced` is this test on the record, which the live metrics count by.
UNPRICED = f"backend IS NOT NULL AND (cost_usd IS NULL OR {COUNTERFACTUAL} IS NULL)"

# A row's cost, counterfactual and served seconds as the sums take them (`money.summable`).
_COST, _COUNTERFACTUAL = summable("cost_usd"), summable(COUNTERFACTUAL)
# A row one of whose values those leave out: in no sum (of that value), counted and warned of.
OVERSIZED = oversized("cost_usd", COUNTERFACTUAL, SERVED_SECONDS)

# The report's per-group sums; {source} is a records view or file list, {caller} an expression.
# `sum` leaves NULL (unknown) costs out; `saved_usd` is summed per row, so a request whose
# counterfactual is unknown adds neither its cost nor its counterfactual to the offload
# (nor one whose cost or counterfactual is `oversized`).
SUMS_SQL = f"""
SELECT CAST(started_at AS DATE) AS day, route, intent, backend, tier, {{caller}} AS caller,
       count(*)::BIGINT AS requests,
       sum(prompt_tokens)::BIGINT AS prompt_tokens,
       sum(completion_tokens)::BIGINT AS completion_tokens,
       sum(cached_tokens)::BIGINT AS cached_tokens,
       sum(reasoning_tokens)::BIGINT AS reasoning_tokens,
       {exact_sum(_COST)} AS cost_usd,
       {exact_sum(_COUNTERFACTUAL)} AS counterfactual_usd,
       {exact_sum(f"{_COUNTERFACTUAL} - {_COST}")} AS saved_usd,
       count(*) FILTER (WHERE {OVERSIZED}) AS oversized,
       count(*) FILTER (WHERE {UNCREDITED}) AS uncredited,
       count(*) FILTER (WHERE {UNPRICED}) AS unpriced,
       count(*) FILTER (WHERE tokens_estimated) AS estimated,
       coalesce(sum(prompt_tokens + completion_tokens) FILTER (WHERE tokens_estimated), 0)::BIGINT
           AS estimated_tokens,
       {exact_sum(summable(SERVED_SECONDS))} AS seconds,
       count(*) FILTER (WHERE outcome <> 'ok') AS errors,
       count(*) FILTER (WHERE fallbacks > 0) AS fallbacks,
       min(started_at) AS first_at, max(started_at) AS last_at
FROM {{source}} WHERE started_at >= ? AND started_at < ?
GROUP BY ALL
"""


def bucket(column: str) -> str:
    """SQL for the log bucket of a latency column (NULL stays NULL)."""
    return (
        f"CASE WHEN {column} > 0 THEN CAST(floor(ln({column}) * {BUCKETS_PER_E}) AS INTEGER)"
        f" WHEN {column} IS NOT NULL THEN {ZERO_BUCKET} END"
    )


# Histogram rows (backend, metric, bucket, n) of successful requests.
LATENCY_SQL = f"""
SELECT backend, metric, bucket, count(*)::BIGINT AS n FROM (
    SELECT backend, 'ttft' AS metric, {bucket("ttft_s")} AS bucket
    FROM {{source}} WHERE started_at >= ? AND started_at < ?
        AND backend IS NOT NULL AND outcome = 'ok'
    UNION ALL
    SELECT backend, 'total' AS metric, {bucket("duration_s")} AS bucket
    FROM {{source}} WHERE started_at >= ? AND started_at < ?
        AND backend IS NOT NULL AND outcome = 'ok'
) WHERE bucket IS NOT NULL
GROUP BY ALL
"""


def bucket_value(b: int) -> float:
    """The value a bucket stands for: its geometric middle (error ≤ 0.5 %)."""
    return 0.0 if b == ZERO_BUCKET else math.exp((b + 0.5) / BUCKETS_PER_E)


def percentiles(hist: Iterable[tuple[int, float]], qs: Sequence[float]) -> list[float | None]:
    """Percentiles from (bucket, count) pairs, interpolated at rank q × (n − 1) like
    DuckDB's quantile_cont, with each value taken as its bucket's middle."""
    pairs = sorted(hist)
    total = sum(n for _, n in pairs)
    if not total:
        return [None] * len(qs)

    def at(index: float) -> float:
        seen = 0.0
        for b, n in pairs:
            seen += n
            if seen > index:
                return bucket_value(b)
        return bucket_value(pairs[-1][0])

    out: list[float | None] = []
    for q in qs:
        rank = q * (total - 1)
        low = math.floor(rank)
        value = at(low) + (rank - low) * (at(low + 1) - at(low)) if rank > low else at(low)
        out.append(round(value, 6))
    return out


def digest(names: Iterable[str], version: str | None = None) -> str:
    """Which segment files a rollup covers, as a short hash of their names (and of the
    rollup format: `version`, this `VERSION` unless given)."""
    text = "\n".join([version or VERSION, *sorted(names)])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def paths(directory: Path, day: str, key: str) -> tuple[Path, Path]:
    """(sums, latency) files of a day's rollup for the segments hashing to `key`."""
    folder = segments.day_dir(directory, TABLE, day)
    return folder / f"{key}.sums{segments.SUFFIX}", folder / f"{key}.latency{segments.SUFFIX}"


def current(
    directory: Path,
    day: str,
    day_segments: Sequence[Segment],
    warnings: list[str] | None = None,
    full: bool = False,
) -> tuple[Path, Path] | None:
    """The day's rollup files if they match its segments exactly and can be read, else None.

    A torn, empty, damaged or unreadable rollup (or its directory) is named in `warnings`;
    the day is then read from its segments until compaction writes the rollup again. The
    rollup's checksums are checked (its rows are what a report reads, and they are small),
    the segments' are not: their rows are not read. `full` decodes every page, not only footers.
    """
    if not day_segments:
        return None
    found = paths(directory, day, digest(s.path.name for s in day_segments))
    try:
        if not all(path.is_file() for path in found):
            return None
    except OSError as exc:  # a rollup directory this process may not search: read raw
        if warnings is not None:
            warnings.append(f"skipped unreadable rollup {found[0].parent}: {exc.strerror or exc}")
        return None
    for path in found:
        try:
            checksum.verify(path)
            if full:
                segments.validate_fully(path)
            else:
                segments.read_segment(path)
        except Exception as exc:  # any decode failure: read the day raw, say which file
            if warnings is not None:
                warnings.append(f"skipped unreadable rollup {path}: {exc}")
            return None
    return found


class Damaged(checksum.Mismatch):
    """A segment of the day fails its checksum: `path`, and why."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path


def _newer(folder: Path) -> bool:
    """Whether a sums file in `folder` holds a rollup format newer than this `VERSION`.
    A file that cannot be read, or says no version, is not: it is rewritten as before."""
    try:
        found = list(folder.glob(f"*.sums{segments.SUFFIX}"))
    except OSError:
        return False
    for path in found:
        try:
            said = (pq.read_metadata(path).metadata or {}).get(VERSION_KEY, b"")
            if said.decode().isdigit() and int(said) > int(VERSION):
                return True
        except Exception:  # torn or unreadable: not a newer rollup to keep
            continue
    return False


def _upgrades(folder: Path, day_segments: Sequence[Segment]) -> bool:
    """Whether `folder` holds a rollup of these very segments in an older format: writing
    this one is an upgrade's rebuild, not a new day's rollup nor one of changed files."""
    names = [seg.path.name for seg in day_segments]
    older = {digest(names, str(version)) for version in range(1, int(VERSION))}
    try:
        return any(path.name.partition(".")[0] in older for path in folder.iterdir())
    except OSError:  # no rollup yet (or none this process may list): not a rebuild
        return False


def write_day(
    directory: Path, day: str, day_segments: Sequence[Segment]
) -> Literal["written", "upgraded"] | None:
    """Write the rollup of a closed day (unless current); remove stale ones. Says whether it
    wrote one, and whether that one replaced an older format's of the same segments (a
    compaction after an upgrade rebuilds every day's: it said it did nothing, found in
    review), or None.

    A day holding a newer router's rollup (`_newer`) is left alone: that router keeps it
    current, and this one reads the day raw meanwhile (its rollup is not found).

    Raises `Damaged` if a segment is damaged: a rollup of its values would outlive it, and
    hide it from every report that reads the day from the rollup."""
    if not day_segments or current(directory, day, day_segments):
        return None
    folder = segments.day_dir(directory, TABLE, day)
    if _newer(folder):
        return None
    upgraded = _upgrades(folder, day_segments)
    for seg in day_segments:
        try:
            checksum.verify(seg.path)
        except checksum.Mismatch as exc:
            raise Damaged(seg.path, str(exc)) from None
    import duckdb  # only compaction and reports need DuckDB; a router that only writes doesn't

    sums_path, latency_path = paths(directory, day, digest(s.path.name for s in day_segments))
    files = "[" + ", ".join("'" + str(s.path).replace("'", "''") + "'" for s in day_segments)
    source = f"read_parquet({files}], union_by_name = true)"
    window = ["1970-01-01", "9999-01-01"]
    with duckdb.connect(":memory:") as con:
        con.execute("SET TimeZone = 'UTC'")
        con.execute("SET enable_progress_bar = false")
        latency = con.sql(LATENCY_SQL.format(source=source), params=window * 2).to_arrow_table()
        sums = con.sql(
            SUMS_SQL.format(source=source, caller="caller"), params=window
        ).to_arrow_table()
    segment_write.write_segment(latency_path, latency)
    meta = {**(sums.schema.metadata or {}), VERSION_KEY: VERSION.encode()}
    segment_write.write_segment(sums_path, sums.replace_schema_metadata(meta))
    keep = {sums_path, latency_path, checksum.sidecar(sums_path), checksum.sidecar(latency_path)}
    for stale in sums_path.parent.iterdir():
        if stale not in keep:
            stale.unlink(missing_ok=True)
    return "upgraded" if upgraded else "written"


def drop_before(directory: Path, cutoff: str, warnings: list[str]) -> None:
    """Retention: rollups go with their days. One that cannot be deleted is named in
    `warnings` (it used to stay silently, for good)."""
    days, refused = segments.unlisted(directory, TABLE)
    warnings.extend(refused)
    for path in days:
        if path.name.removeprefix("day=") < cutoff:
            reason = segments.remove_tree(path)
            if reason:
                warnings.append(f"not dropping {path} past retention: {reason}")
