"""A router that refuses requests (one key, a 64 KiB body limit, a ledger that stores texts)
and the ledger rows of its refusals: test_refused_records.py and test_refused_report.py."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from router.config import hash_key
from router.ledger import Ledger
from tests.harness import RunningRouter, config_for, router, simulator

KEY, WRONG = "sk-team-alice-3f9a", "sk-wrong-key-7c1e"
PROMPT = "the launch codes are 0000"  # never in a refusal's row, store_text or not
ASK = [{"role": "user", "content": PROMPT}]
CHAT, MESSAGES, RESPONSES = "/v1/chat/completions", "/v1/messages", "/v1/responses"
COLUMNS = (
    "request_id, api, caller, requested_model, intent, route, backend, tier, status, outcome,"
    " error_kind, n_attempts, prompt_tokens, completion_tokens, cost_usd, private, conversation"
)


@contextmanager
def refusing_router(tmp: Path) -> Iterator[RunningRouter]:
    """The router, its ledger under `tmp`, once it served one request (a served row, and a
    texts table, beside the refused ones)."""
    with simulator(profile="vllm", model="local-model") as local:
        config = config_for(
            {"local": local},
            tmp,
            auth={"keys": [{"name": "alice", "sha256": hash_key(KEY)}]},
            server={"max_body_bytes": 64 * 1024},
            ledger={"path": str(tmp / "ledger"), "flush_interval_s": 0.2, "store_text": True},
        )
        with router(config) as running:
            served = httpx.post(
                running.root + CHAT, json={"model": "local", "messages": ASK}, headers=auth(KEY)
            )
            assert served.status_code == 200  # a served row (and a texts table) beside them
            yield running


def auth(key: str | None, **more: str) -> dict[str, str]:
    return {"authorization": f"Bearer {key}", **more} if key else dict(more)


def rows(proxy: RunningRouter, request_id: str, refused: bool = True) -> list[dict[str, Any]]:
    """The records rows with this id, read from the ledger's files; a refused one's with no
    text, nor a key or the prompt in any column."""
    assert proxy.components.ledger is not None
    proxy.components.ledger.flush()
    with Ledger(Path(proxy.components.config.ledger.path)) as ledger:
        found = ledger.sql(f"SELECT {COLUMNS} FROM records WHERE request_id = ?", [request_id])
        whole = ledger.sql("SELECT * FROM records WHERE request_id = ?", [request_id])
        texts = ledger.sql("SELECT count(*) FROM texts WHERE request_id = ?", [request_id])
    if refused:
        assert texts == [(0,)]  # no prompt text, though store_text is on
    for row in whole:
        assert KEY not in str(row) and WRONG not in str(row) and PROMPT not in str(row)
    names = [c.strip() for c in COLUMNS.split(",")]
    return [dict(zip(names, row, strict=True)) for row in found]


def the_row(proxy: RunningRouter, reply: httpx.Response, sent: str | None) -> dict[str, Any]:
    """The one row the reply's `x-request-id` names: the client's own id when it sent one."""
    request_id = reply.headers.get("x-request-id")
    assert request_id, "the error reply carries no x-request-id"
    if sent is not None:
        assert request_id == sent
    else:
        assert re.fullmatch(r"[0-9a-f]{32}", request_id)
    (row,) = rows(proxy, request_id)
    return row
