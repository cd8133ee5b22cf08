"""An upstream whose event never ends (the simulator's `endless_event`): the router holds at
most `sse.MAX_EVENT_BYTES` of it, then calls the reply malformed. Before the commit the next
backend answers; after it the client's stream ends with an in-band error. Both are in the
ledger as `malformed`. The timeouts are long: only the bound may end the event."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import orjson
import pytest

from router.ledger import Ledger
from tests.harness import Running, RunningRouter, collected, config_for, router, simulator
from tests.router.faulty_pair import ask

PATIENT = {"first_token_s": 60, "idle_s": 60, "total_s": 120}
TOO_LONG = "a streamed event longer than 16 MiB (16777216 bytes)"


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Running, RunningRouter]]:
    """`local` (to carry the fault) then `cloud` on every route, and the router."""
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        tmp = tmp_path_factory.mktemp("endless")
        config = config_for({"local": local, "cloud": cloud}, tmp, timeouts=PATIENT)
        with router(config) as proxy:
            yield local, proxy


def _row(proxy: RunningRouter, request_id: str) -> dict[str, Any]:
    """The request's ledger row, read from the ledger's files."""
    assert proxy.components.ledger is not None
    proxy.components.ledger.flush()
    columns = ("outcome", "error_kind", "status", "backend", "fallback_reason", "attempts")
    with Ledger(Path(proxy.components.config.ledger.path)) as ledger:
        found = ledger.sql(
            f"SELECT {', '.join(columns)} FROM records WHERE request_id = ?", [request_id]
        )
    assert len(found) == 1
    row = dict(zip(columns, found[0], strict=True))
    row["attempts"] = [(a["backend"], a["outcome"], a["error_kind"]) for a in row["attempts"]]
    return row


def _with_fault(local: Running, fault: str, proxy: RunningRouter, send: Any) -> tuple[Any, str]:
    """What `send()` gave while `local` carried `fault`, and the request's id once it was
    recorded."""
    records = collected(proxy)
    local.control("faults", {"fault": fault})
    try:
        outcome = send()
        request_id = records.wait(30).request_id
    finally:
        local.control("faults", {"fault": None})
        proxy.components.gateway.sinks.remove(records)
    return outcome, request_id


def test_an_event_that_never_ends_before_the_first_token_falls_back(
    setup: tuple[Running, RunningRouter],
) -> None:
    local, proxy = setup
    client = openai.OpenAI(base_url=proxy.url, api_key="none", max_retries=0, timeout=60)
    served, request_id = _with_fault(
        local, "endless_event:0", proxy, lambda: ask(client, "coding", stream=True)
    )
    assert served == ("cloud", None)
    row = _row(proxy, request_id)
    assert (row["outcome"], row["backend"], row["fallback_reason"]) == ("ok", "cloud", "malformed")
    assert row["attempts"] == [("local", "error", "malformed"), ("cloud", "ok", None)]


def test_an_event_that_never_ends_after_the_commit_ends_the_stream_in_band(
    setup: tuple[Running, RunningRouter],
) -> None:
    local, proxy = setup
    client = openai.OpenAI(base_url=proxy.url, api_key="none", max_retries=0, timeout=60)
    (served, error), request_id = _with_fault(
        local, "endless_event", proxy, lambda: ask(client, "coding", stream=True)
    )
    assert served == "local" and error[0] == "mid"
    assert error[1].message == f"local: {TOO_LONG}"
    row = _row(proxy, request_id)
    assert (row["outcome"], row["error_kind"], row["status"]) == (
        "upstream_error",
        "malformed",
        502,
    )
    assert row["attempts"] == [("local", "error", "malformed")]


def test_a_translated_stream_whose_event_never_ends_fails_in_the_clients_api(
    setup: tuple[Running, RunningRouter],
) -> None:
    """Responses from a chat backend: the translator's own buffer holds the event."""
    local, proxy = setup

    def send() -> list[dict[str, Any]]:
        body = {"model": "local", "input": "Tell me a story", "stream": True}
        with httpx.stream("POST", f"{proxy.url}/responses", json=body, timeout=60) as reply:
            assert reply.status_code == 200
            lines = [line[6:] for line in reply.iter_lines() if line.startswith("data: ")]
        return [orjson.loads(line) for line in lines]

    events, request_id = _with_fault(local, "endless_event", proxy, send)
    assert any(e["type"] == "response.output_text.delta" for e in events)
    failed = events[-1]
    assert failed["type"] == "response.failed"
    assert failed["response"]["error"]["message"] == f"local: {TOO_LONG}"
    row = _row(proxy, request_id)
    assert (row["outcome"], row["error_kind"]) == ("upstream_error", "malformed")
