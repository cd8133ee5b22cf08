"""The router alone on the chat-only `cloud` simulator, a simulator fault for the length of a
block, and a request's row in the ledger: what the tests of Messages and Responses
translated over chat share."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb

from router.config import parse
from tests.agent_apis.agent_stack import stack_config
from tests.harness import Running, RunningRouter, router, wait_until


@contextmanager
def fault(server: Running, name: str) -> Iterator[None]:
    server.control("faults", {"fault": name})
    try:
        yield
    finally:
        server.control("faults", {"fault": None})


@contextmanager
def alone(servers: dict[str, Running], tmp: Path, idle_s: float) -> Iterator[RunningRouter]:
    """The router on `cloud` without a breaker, so that failures leave no open circuit."""
    config = stack_config(servers, tmp, ["cloud"]).model_dump()
    config["resilience"]["enabled"] = False
    for backend in config["backends"]:
        backend["timeouts"]["idle_s"] = idle_s
    with router(parse(config)) as running:
        yield running


def ledger_columns(ledger: Path, request_id: str, columns: str) -> tuple[Any, ...]:
    """`columns` (SQL, comma-separated) of the request's row, once the ledger has written it."""
    query = f"SELECT {columns} FROM read_parquet(?, union_by_name = true) WHERE request_id = ?"
    rows: list[tuple[Any, ...]] = []

    def written() -> bool:
        with duckdb.connect() as con:
            try:
                rows[:] = con.execute(query, [f"{ledger}/**/*.parquet", request_id]).fetchall()
            except duckdb.Error:  # no file yet
                return False
        return bool(rows)

    assert wait_until(written), f"no ledger row for {request_id}"
    return rows[0]


def ledger_row(ledger: Path, request_id: str) -> tuple[Any, ...]:
    """(outcome, prompt_tokens, completion_tokens, tokens_estimated) of the request's row."""
    return ledger_columns(
        ledger, request_id, "outcome, prompt_tokens, completion_tokens, tokens_estimated"
    )
