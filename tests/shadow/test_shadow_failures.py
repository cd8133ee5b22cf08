"""A shadow that fails is counted by what failed, and a malformed reply is no exception.

Found in review: the target's own deadline (`first_token_timeout`) was counted as `error`,
not `timeout`; a 200 whose `message` is null raised AttributeError out of the replay (no
row, no drop counted), and a judge answering so threw the finished comparison away.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import orjson

from router.backends.base import Reply as BackendReply
from router.comparison import Reply
from router.config import Config
from router.ledger import Ledger
from router.record import Record, Usage
from router.shadow import Shadow
from tests.harness import Running, config_for, router, simulator
from tests.shadow.shadow_status import shadow_counts, until

MATH = {"model": "auto", "messages": [{"role": "user", "content": "What is 1234 + 4321?"}]}
NULL_MESSAGE = b'{"choices":[{"index":0,"message":null,"finish_reason":"content_filter"}]}'


def test_the_targets_own_deadline_counts_as_a_timeout(tmp_path: Path) -> None:
    """Math is live on the cloud, shadowed on a local backend whose `total_s` (1 s) ends
    the replay before its first byte: a `timeout` drop, its row saying which deadline."""
    with (
        simulator(profile="cloud", model="cloud-model") as cloud,
        simulator(profile="vllm", model="local-model", fault="slow_first_token:3") as local,
    ):
        data = config_for(
            {"local": local, "cloud": cloud}, tmp_path, shadow={"rates": {"math": 1.0}}
        ).model_dump(mode="json")
        for backend in data["backends"]:
            if backend["name"] == "local":
                backend["timeouts"]["total_s"] = 1
        with router(Config.model_validate(data)) as r:
            response = httpx.post(f"{r.url}/chat/completions", json=MATH, timeout=10)
            assert response.headers["x-smf-backend"] == "cloud"
            until(lambda: shadow_counts(r).get("dropped_timeout", 0) == 1)
            counts = shadow_counts(r)
            metrics = httpx.get(f"{r.root}/metrics", timeout=5).text
    assert counts.get("dropped_error", 0) == 0
    assert 'smf_router_shadow_dropped_total{reason="timeout"} 1' in metrics
    assert 'smf_router_shadow_dropped_total{reason="error"} 0' in metrics
    (help_line,) = [x for x in metrics.splitlines() if x.startswith("# HELP smf_router_shadow_d")]
    assert "not sent." not in help_line and "sent with no answer to compare" in help_line
    with Ledger(tmp_path / "ledger") as ledger:
        rows = ledger.sql("SELECT shadow_error, agreed FROM shadow_comparisons")
    assert rows == [("first_token_timeout", None)]  # sent, and written to the ledger


class Canned:
    """A backend that answers every call with one fixed 200 body."""

    def __init__(self, body: bytes) -> None:
        self.body = body
        self.asked = 0

    async def send(self, *_: Any) -> BackendReply:
        self.asked += 1
        return BackendReply(200, {}, body=self.body)


class Rows:
    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []

    def submit_row(self, table: str, row: dict[str, Any]) -> None:
        self.rows.append(row)


def _replay(backends: dict[str, Canned], tmp: Path, **shadow: Any) -> tuple[Shadow, Rows]:
    """One math request, live on the cloud, replayed on `local` (no server is called)."""
    nowhere = Running("http://127.0.0.1:9/v1", "http://127.0.0.1:9")
    servers = {"local": nowhere, "cloud": nowhere, "localjudge": nowhere}
    config = config_for(servers, tmp, shadow={"rates": {"math": 1.0}, **shadow})
    rows = Rows()
    sink = Shadow(config, backends, rows=rows)
    record = Record(
        "r1", 0.0, intent="math", route="math", backend="cloud", tier="cloud", usage=Usage(1, 1)
    )
    sink.offer(record, orjson.dumps(MATH), Reply("\\boxed{5555}"))

    async def go() -> None:
        assert sink.queue.qsize() == 1  # taken at once, as the replay loop takes it
        await sink.replay(await sink.queue.get())

    asyncio.run(go())
    return sink, rows


def test_a_null_message_is_a_malformed_shadow_not_an_exception(tmp_path: Path) -> None:
    for body in (NULL_MESSAGE, NULL_MESSAGE.replace(b"null", b'"text"')):
        target = Canned(body)
        sink, rows = _replay({"local": target}, tmp_path)
        assert target.asked == 1
        assert [(r["shadow_error"], r["agreed"]) for r in rows.rows] == [("malformed", None)]
        assert sink.counts["dropped_error"] == 1


def test_a_judge_answering_a_null_message_leaves_the_comparison_its_row(
    tmp_path: Path,
) -> None:
    answer = b'{"choices":[{"index":0,"message":{"role":"assistant","content":"\\\\boxed{5555}"}}]}'
    judge = Canned(NULL_MESSAGE)
    backends = {"local": Canned(answer), "localjudge": judge}
    sink, rows = _replay(backends, tmp_path, judge_backend="localjudge")
    assert judge.asked == 1
    (row,) = rows.rows
    assert (row["agreed"], row["shadow_error"], row["judge"]) == (True, None, None)
    assert row["judge_backend"] == "localjudge" and sink.counts["compared"] == 1
