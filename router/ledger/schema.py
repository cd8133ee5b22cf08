"""The ledger's tables: their Arrow schemas and the conversion of records and rows to Arrow.

Conversion is columnar (one list comprehension per column) because it runs on the flush
thread for up to ~100k records a second; attempts become a nested list<struct> column built
from flat arrays and offsets rather than from Python dicts.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pyarrow as pa

from router.ledger import columns
from router.ledger.columns import Columns
from router.ledger.tally import has_text
from router.record import Attempt, Record

ATTEMPT_TYPE = pa.struct(
    [
        ("backend", pa.string()),
        ("tier", pa.string()),
        ("outcome", pa.string()),
        ("error_kind", pa.string()),
        ("status", pa.int32()),
        ("duration_s", pa.float64()),
    ]
)

TS = pa.timestamp("us")  # naive UTC: DuckDB then never applies a session time zone

RECORDS = pa.schema(
    [
        ("request_id", pa.string()),
        ("started_at", TS),
        ("ended_at", TS),
        ("api", pa.string()),
        ("caller", pa.string()),
        ("requested_model", pa.string()),
        ("intent", pa.string()),
        ("confidence", pa.float32()),
        ("intent_source", pa.string()),
        ("route", pa.string()),
        ("backend", pa.string()),
        ("tier", pa.string()),
        ("served_model", pa.string()),
        ("attempts", pa.list_(ATTEMPT_TYPE)),
        ("n_attempts", pa.int16()),
        ("fallbacks", pa.int16()),
        ("fallback_reason", pa.string()),
        ("stream", pa.bool_()),
        ("status", pa.int16()),
        ("outcome", pa.string()),
        ("error_kind", pa.string()),
        ("prompt_tokens", pa.int64()),
        ("completion_tokens", pa.int64()),
        ("cached_tokens", pa.int64()),
        ("cache_write_tokens", pa.int64()),  # Anthropic prompt-cache writes, priced apart
        ("reasoning_tokens", pa.int64()),
        ("tokens_estimated", pa.bool_()),
        ("ttft_s", pa.float64()),
        ("duration_s", pa.float64()),
        ("cost_usd", pa.float64()),
        ("counterfactual_usd", pa.float64()),
        ("conversation", pa.string()),
        ("private", pa.bool_()),
    ]
)

# Text lives in its own table so that its shorter retention can drop whole day partitions.
TEXTS = pa.schema(
    [
        ("request_id", pa.string()),
        ("started_at", TS),
        ("prompt_text", pa.string()),
        ("completion_text", pa.string()),
    ]
)

ROW_TYPES = {
    "string": pa.string(),
    "timestamp": TS,
    "float64": pa.float64(),
    "int32": pa.int32(),
    "int64": pa.int64(),
    "bool": pa.bool_(),
}


def _row_schema(spec: Columns) -> pa.Schema:
    return pa.schema([(name, ROW_TYPES[kind]) for name, kind in spec])


CANARY_RESULTS = _row_schema(columns.CANARY_RESULTS)
CANARY_RUNS = _row_schema(columns.CANARY_RUNS)
CANARY_STARTS = _row_schema(columns.CANARY_STARTS)
SHADOW_COMPARISONS = _row_schema(columns.SHADOW_COMPARISONS)

SCHEMAS: dict[str, pa.Schema] = {
    "records": RECORDS,
    "texts": TEXTS,
    "canary_results": CANARY_RESULTS,
    "canary_runs": CANARY_RUNS,
    "canary_starts": CANARY_STARTS,
    "shadow_comparisons": SHADOW_COMPARISONS,
}

# The column that decides a row's day partition, per table.
TIME_COLUMN: dict[str, str] = {
    "records": "started_at",
    "texts": "started_at",
    "canary_results": "ts",
    "canary_runs": "ts",
    "canary_starts": "ts",
    "shadow_comparisons": "ts",
}


def to_datetime(value: float | datetime | None) -> datetime | None:
    """Unix seconds or an aware datetime → naive UTC datetime (the stored form)."""
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.astimezone(UTC).replace(tzinfo=None) if value.tzinfo else value
    return datetime.fromtimestamp(value, UTC).replace(tzinfo=None)


def _ts(values: list[float]) -> pa.Array:
    micros = np.rint(np.asarray(values, dtype=np.float64) * 1_000_000).astype(np.int64)
    return pa.array(micros, type=TS)  # not `.cast(TS)`: it imports `pyarrow.compute` (~9 MB)


def _ended(records: Sequence[Record]) -> pa.Array:
    """`ended_at`, or start + duration when dispatch left it unset."""
    ended = np.asarray([r.ended_at for r in records], dtype=np.float64)
    started = np.asarray([r.started_at for r in records], dtype=np.float64)
    duration = np.asarray([r.duration_s for r in records], dtype=np.float64)
    return _ts(np.where(ended > 0, ended, started + duration).tolist())


def _attempts(records: Sequence[Record]) -> pa.Array:
    """The attempts list column."""
    flat = [a for r in records for a in r.attempts]
    offsets = np.zeros(len(records) + 1, dtype=np.int32)
    np.cumsum([len(r.attempts) for r in records], out=offsets[1:])
    children = [
        pa.array([a.backend for a in flat], pa.string()),
        pa.array([a.tier for a in flat], pa.string()),
        pa.array([a.outcome for a in flat], pa.string()),
        pa.array([a.error_kind for a in flat], pa.string()),
        pa.array([a.status for a in flat], pa.int32()),
        pa.array([a.duration_s for a in flat], pa.float64()),
    ]
    values = pa.StructArray.from_arrays(children, fields=list(ATTEMPT_TYPE))
    return pa.ListArray.from_arrays(pa.array(offsets), values)


def _ran(attempts: Sequence[Attempt]) -> int:
    """The attempts that ran: a backend the plan passed over (its reason in `error_kind`),
    or skipped after another's context-length refusal, is in `attempts` as `skipped`, and
    counted neither by `x-smf-attempts` nor the metrics."""
    return sum(a.outcome != "skipped" for a in attempts)


def records_table(records: Sequence[Record]) -> pa.Table:
    """Records → one Arrow table with the RECORDS schema (text is not included)."""
    u = [r.usage for r in records]
    cols: list[pa.Array] = [
        pa.array([r.request_id for r in records], pa.string()),
        _ts([r.started_at for r in records]),
        _ended(records),
        pa.array([r.api for r in records], pa.string()),
        pa.array([r.caller for r in records], pa.string()),
        pa.array([r.requested_model for r in records], pa.string()),
        pa.array([r.intent for r in records], pa.string()),
        pa.array([r.confidence for r in records], pa.float32()),
        pa.array([r.intent_source for r in records], pa.string()),
        pa.array([r.route for r in records], pa.string()),
        pa.array([r.backend for r in records], pa.string()),
        pa.array([r.tier for r in records], pa.string()),
        pa.array([r.served_model for r in records], pa.string()),
        _attempts(records),
        pa.array([_ran(r.attempts) for r in records], pa.int16()),  # as x-smf-attempts
        pa.array([r.fallbacks for r in records], pa.int16()),  # moves between backends
        pa.array([r.fallback_reason for r in records], pa.string()),
        pa.array([r.stream for r in records], pa.bool_()),
        pa.array([r.status for r in records], pa.int16()),
        pa.array([r.outcome for r in records], pa.string()),
        pa.array([r.error_kind for r in records], pa.string()),
        pa.array([x.prompt_tokens for x in u], pa.int64()),
        pa.array([x.completion_tokens for x in u], pa.int64()),
        pa.array([x.cached_tokens for x in u], pa.int64()),
        pa.array([x.cache_write_tokens for x in u], pa.int64()),
        pa.array([x.reasoning_tokens for x in u], pa.int64()),
        pa.array([x.estimated for x in u], pa.bool_()),
        pa.array([r.ttft_s for r in records], pa.float64()),
        pa.array([r.duration_s for r in records], pa.float64()),
        pa.array([r.cost_usd for r in records], pa.float64()),
        pa.array([r.counterfactual_usd for r in records], pa.float64()),
        pa.array([r.conversation for r in records], pa.string()),
        pa.array([r.private for r in records], pa.bool_()),
    ]
    return pa.Table.from_arrays(cols, schema=RECORDS)


def texts_table(records: Iterable[Record]) -> pa.Table:
    """The prompt/completion text of records that carry any (store_text on)."""
    rows = [r for r in records if has_text(r)]
    return pa.Table.from_arrays(
        [
            pa.array([r.request_id for r in rows], pa.string()),
            _ts([r.started_at for r in rows]),
            pa.array([r.prompt_text for r in rows], pa.string()),
            pa.array([r.completion_text for r in rows], pa.string()),
        ],
        schema=TEXTS,
    )


def rows_table(table: str, rows: Sequence[dict[str, Any]]) -> pa.Table:
    """Plain dict rows of another table → Arrow; unknown keys are an error, missing are null.

    The time column accepts unix seconds or a datetime.
    """
    schema = SCHEMAS[table]
    names = set(schema.names)
    for row in rows:
        extra = set(row) - names
        if extra:
            raise ValueError(f"{table}: unknown column(s) {sorted(extra)}")
    time_col = TIME_COLUMN[table]
    data: dict[str, list[Any]] = {}
    for name in schema.names:
        values = [row.get(name) for row in rows]
        data[name] = [to_datetime(v) for v in values] if name == time_col else values
    return pa.Table.from_pydict(data, schema=schema)
