"""A ledger writer's flush made to raise (a bug, not a failed write), and what the flush
tests wait for and read of the writer: shared by the raising-flush tests (errors, drops,
exits), through the real writer, its flush thread and files. Their `writer` fixture is in
`conftest.py`."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from router.ledger import LedgerWriter
from router.ledger.appender import Appender
from tests.waiting import wait_until


class Fault:
    """`Appender.<name>` raising on `times` calls in a row, after `after` others."""

    def __init__(
        self, monkeypatch: pytest.MonkeyPatch, name: str, after: int = 0, times: int = 1
    ) -> None:
        self.calls = 0
        self.raised = 0
        real = getattr(Appender, name)

        def method(appender: Appender, *args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            if after < self.calls <= after + times:
                self.raised += 1
                raise RuntimeError(f"injected into {name}")
            return real(appender, *args, **kwargs)

        monkeypatch.setattr(Appender, name, method)


def settled(writer: LedgerWriter, records: int) -> dict[str, Any]:
    """The status once `records` records are written and nothing is held or failing (a
    hang guard, not a timed assertion)."""

    def done() -> bool:
        status = writer.status()
        return (
            status["written_records"] >= records
            and status["pending_rows"] == 0
            and status["last_write_failed"] is False
        )

    ok = wait_until(done)
    status = writer.status()
    assert ok, f"{status}"  # whole, not cut short
    return status


def errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
