"""A router that pins each conversation to the backend that served it (`resilience`), and
what the tests of an agent framework's runs read of it: a request's headers once its record
has finished (its conversation pinned by then), and the ledger's rows of the requests sent."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import openai

from router.config import Config, hash_key
from router.ledger import Ledger
from tests.harness import Collect, Running, RunningRouter, collected, config_for, router
from tests.resilience.conftest import until


@contextmanager
def sticky_router(config: Config) -> Iterator[tuple[RunningRouter, Collect]]:
    """The router on `config` (resilience on) and a sink of its records added after the
    sticky table's: a record it holds, the table has seen, so a test waiting for it knows
    the conversation is pinned."""
    with router(config) as running:
        yield running, collected(running)


def keyed_config(servers: dict[str, Running], tmp: Path, keys: dict[str, str]) -> Config:
    """The default routes, resilience on, and a caller for each key of `keys`: a conversation
    is scoped by its caller's key, so a test sending as a caller of its own pins nothing
    another test sends."""
    callers = [{"name": name, "sha256": hash_key(key)} for name, key in keys.items()]
    return config_for(servers, tmp, auth={"keys": callers}, resilience={"enabled": True})


def pinned_headers(
    proxy: tuple[RunningRouter, Collect], key: str, body: dict[str, Any]
) -> httpx.Headers:
    """The router's headers for the chat `body`, sent by the caller of `key` as the official
    SDK sends it (not streamed), once its record has finished: its conversation is pinned
    then."""
    running, records = proxy
    finished = len(records.records)
    client = openai.OpenAI(base_url=running.url, api_key=key, max_retries=0)
    raw = client.chat.completions.with_raw_response.create(**copy.deepcopy(body))
    assert raw.http_response.status_code == 200
    raw.parse()
    until(lambda: len(records.records) > finished, what="the record finished")
    return raw.headers


def ledger_rows(running: RunningRouter, ids: list[str]) -> list[tuple[Any, ...]]:
    """(request_id, conversation, intent, backend) of the records `ids`, in that order, from
    the ledger's files."""
    assert running.components.ledger is not None
    running.components.ledger.flush()
    marks = ", ".join("?" for _ in ids)
    columns = "request_id, conversation, intent, backend"
    query = f"SELECT {columns} FROM records WHERE request_id IN ({marks})"
    with Ledger(Path(running.components.config.ledger.path)) as ledger:
        rows = ledger.sql(query, ids)
    return sorted(rows, key=lambda row: ids.index(row[0]))


def sent_rows(
    proxy: tuple[RunningRouter, Collect], key: str, bodies: list[dict[str, Any]]
) -> list[tuple[Any, ...]]:
    """The ledger's row (`ledger_rows`) of each of `bodies`, sent in order by the caller of
    `key` (`pinned_headers`); each request has one, with a conversation."""
    headers = [pinned_headers(proxy, key, body) for body in bodies]
    rows = ledger_rows(proxy[0], [h["x-request-id"] for h in headers])
    assert len(rows) == len(bodies) and all(row[1] is not None for row in rows)
    return rows


def conversations(
    proxy: tuple[RunningRouter, Collect], key: str, bodies: list[dict[str, Any]]
) -> list[Any]:
    """The ledger's conversation of each of `bodies`, sent in order by the caller of `key`
    (`sent_rows`)."""
    return [row[1] for row in sent_rows(proxy, key, bodies)]


def first_choice(
    running: RunningRouter, body: dict[str, Any], headers: dict[str, str]
) -> dict[str, Any]:
    """The backend `POST /v1/router/explain` puts first for `body` sent with `headers` (a
    chat body, or one naming its `api`), and why: `sticky` when its conversation is pinned,
    seen before the request is sent."""
    reply = httpx.post(f"{running.root}/v1/router/explain", json=body, headers=headers, timeout=30)
    assert reply.status_code == 200, reply.text
    first: dict[str, Any] = reply.json()["backends"][0]
    return {"backend": first["backend"], "reason": first["reason"]}
