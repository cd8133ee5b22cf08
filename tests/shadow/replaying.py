"""What the in-process shadow replay tests share: a question, a cloud-served record of it,
a `Shadow` over real backends, and the ledger rows it writes (held, not written)."""

from __future__ import annotations

from typing import Any

import orjson

from router import backends as backend_factory
from router.config import Config
from router.pricing import Pricer
from router.record import Record, Usage
from router.shadow import Shadow

# the bytes a client sent, as the front hands them to the shadow
QUESTION = orjson.dumps(
    {"model": "auto", "messages": [{"role": "user", "content": "What is 1234 + 4321?"}]}
)
PRICE = {"input_per_mtok": 1.0, "output_per_mtok": 4.0}


class Rows:
    """The ledger, as the shadow sees it: the comparison rows it submits, kept in a list."""

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []

    def submit_row(self, table: str, row: dict[str, Any]) -> None:
        assert table == "shadow_comparisons"
        self.rows.append(row)


def cloud_record(usage: Usage | None = None) -> Record:
    """A finished math request, served and priced on `cloud`: what the shadow is offered."""
    return Record(
        "req-1",
        0.0,
        intent="math",
        route="math",
        backend="cloud",
        tier="cloud",
        usage=usage or Usage(10, 20),
        duration_s=0.5,
        cost_usd=0.123,
    )


def shadow_of(config: Config, rows: Rows, **kw: Any) -> tuple[Shadow, dict[str, Any]]:
    """A `Shadow` over real backends for every configured one (close them: `close_all`)."""
    backends = {b.name: backend_factory.create(b) for b in config.backends}
    return Shadow(config, backends, rows=rows, pricing=Pricer(config), **kw), backends


async def taken(shadow: Shadow) -> Any:
    """The next queued job, taken as the replay loop takes it; there must be one (no wait)."""
    assert shadow.queue.qsize() > 0, "nothing was queued"
    return await shadow.queue.get()


async def replayed(shadow: Shadow, job: Any) -> dict[str, Any]:
    """The row `job`'s replay wrote; it must not have been dropped."""
    row = await shadow.replay(job)
    assert row is not None, "the job was dropped, not replayed"
    return row


async def close_all(backends: dict[str, Any]) -> None:
    """Close every backend's client (each holds a connection pool)."""
    for b in backends.values():
        await b.aclose()
