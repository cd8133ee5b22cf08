"""A client's retry of the request a backend just cut goes to the fallback, while another
request takes the backend's trial (`router.failed_requests`).

A stream cut after its first tokens cannot fall back: gpt-researcher retried the same
request with a backoff (1, 2, 4, 8 s) that matched the breaker's open wait, and each retry
arrived as the trial came due, went to the cut backend again and was cut again: 10 retries
over 66 s, all failed, while other requests went to the healthy fallback (found in a live
review). Through the real app: a router over two simulators, the official openai SDK, the
ledger's own files; and, for a backend whose trial is a live request (no probe), the plan
over `Resilience`'s states with a stand-in clock."""

from __future__ import annotations

import hashlib
import uuid
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from unittest.mock import MagicMock

import httpx
import openai
import pytest

from classifier.intent import Intent
from router import failed_requests
from router.config import parse
from router.failed_requests import FAILED_HERE, Fingerprint
from router.health import FAILURE_KINDS
from router.policy import Demand, Plan, plan
from router.record import Attempt, Record
from router.resilience import Resilience
from router.target import Target
from tests.harness import INTENTS, Running, RunningRouter, router, sdk
from tests.resilience.conftest import circuit, cloud_first, ledger_row, until

ESSAY: Any = [{"role": "user", "content": "Write a 1500-word essay on the Roman Empire."}]
OTHER: Any = [{"role": "user", "content": "Write a short poem about the sea."}]
THIRD: Any = [{"role": "user", "content": "Write a haiku about autumn leaves."}]
COLUMNS = ("status", "backend", "attempts")


def chat_body(messages: Any) -> dict[str, Any]:
    """The body `streamed` sends, as `POST /v1/router/explain` reads it."""
    return {"model": "auto", "messages": messages, "stream": True}


def streamed(client: openai.OpenAI, messages: Any, request_id: str) -> str:
    """A streamed chat request, its text; raises `openai.APIError` when the stream is cut."""
    stream = client.chat.completions.create(
        model="auto",
        messages=messages,
        stream=True,
        extra_headers={"x-request-id": request_id},
    )
    return "".join(c.choices[0].delta.content or "" for c in stream if c.choices)


def attempts(proxy: RunningRouter, request_id: str) -> list[tuple[str, str, str | None]]:
    until(lambda: ledger_row(proxy, request_id, COLUMNS) is not None, what="the ledger row")
    row = ledger_row(proxy, request_id, COLUMNS)
    assert row is not None
    found: list[tuple[str, str, str | None]] = row["attempts"]
    return found


def cut(proxy: RunningRouter, messages: Any) -> list[tuple[str, str, str | None]]:
    """Send `messages`, see the stream cut; the request's attempts."""
    request_id = uuid.uuid4().hex
    with pytest.raises(openai.APIError):
        streamed(sdk(proxy), messages, request_id)
    return attempts(proxy, request_id)


def served(proxy: RunningRouter, messages: Any) -> list[tuple[str, str, str | None]]:
    """Send `messages`, read the whole answer; the request's attempts."""
    request_id = uuid.uuid4().hex
    assert streamed(sdk(proxy), messages, request_id)
    return attempts(proxy, request_id)


def test_the_retry_of_a_cut_stream_goes_to_the_fallback(
    pair: dict[str, Running], tmp_path: Path
) -> None:
    with router(cloud_first(pair, tmp_path)) as proxy:
        pair["cloud"].control("faults", {"fault": "cut_stream"})
        for _ in range(3):  # the client's tries: the third opens the circuit
            assert cut(proxy, ESSAY) == [("cloud", "error", "cut")]
        # the open wait is over: the trial is a live request's (a probe cannot see a cut)
        until(lambda: circuit(proxy.root, "cloud") == "half_open", what="the trial due")
        # explain, reading the same body, shows the skip; the same request again: not to
        # cloud, where it was cut three times
        explained = httpx.post(f"{proxy.url}/router/explain", json=chat_body(ESSAY)).json()
        assert {"backend": "cloud", "reason": FAILED_HERE} in explained["skipped"]
        assert served(proxy, ESSAY) == [("cloud", "skipped", FAILED_HERE), ("local", "ok", None)]
        # another request takes the trial, and is cut: the backend still fails
        assert cut(proxy, OTHER) == [("cloud", "error", "cut")]
        pair["cloud"].control("faults", {"fault": None})  # cloud works again
        until(lambda: circuit(proxy.root, "cloud") == "half_open", what="the next trial")
        assert served(proxy, THIRD) == [("cloud", "ok", None)]  # the trial: closed again
        # and the request cut before goes to cloud again: its failure is history
        assert served(proxy, ESSAY) == [("cloud", "ok", None)]


def test_a_request_where_nothing_failed_hashes_nothing(
    pair: dict[str, Running], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fingerprint is worked out only when a failure makes it matter: a ~1 MB body (a
    long conversation) cost ~20 ms a turn to hash, on every turn. Counted at the hash itself
    (the router runs in this process, in a thread)."""
    hashed: list[int] = []

    def blake2b(data: bytes, **options: Any) -> Any:
        hashed.append(len(data))
        return hashlib.blake2b(data, **options)

    monkeypatch.setattr(failed_requests, "hashlib", SimpleNamespace(blake2b=blake2b))
    with router(cloud_first(pair, tmp_path)) as proxy:
        assert served(proxy, ESSAY) == [("cloud", "ok", None)]
        client = sdk(proxy)
        assert client.chat.completions.create(model="auto", messages=OTHER).choices
        explained = httpx.post(f"{proxy.url}/router/explain", json=chat_body(ESSAY)).json()
        assert explained["skipped"] == []
        assert hashed == []  # nothing failed: no body hashed
        pair["cloud"].control("faults", {"fault": "cut_stream"})
        assert cut(proxy, ESSAY) == [("cloud", "error", "cut")]
        until(lambda: bool(hashed), what="the failure remembered")
        assert len(hashed) == 1  # a failure the breaker counts: remembered, hashed once


OPEN_S = 8.0


def resilience(clock: list[float]) -> Resilience:
    backends = [
        {"name": "local", "tier": "local", "base_url": "http://l/v1", "model": "m"},
        {"name": "cloud", "tier": "cloud", "base_url": "http://c/v1", "model": "g"},
    ]
    data = {
        "backends": backends,
        "routes": {intent: ["cloud", "local"] for intent in INTENTS},
        "resilience": {"open_s": OPEN_S, "max_open_s": OPEN_S},
    }
    components = SimpleNamespace(config=parse(data), metrics=MagicMock())
    return Resilience(components, clock=lambda: clock[0])  # type: ignore[arg-type]


def planned(source: Resilience, fingerprint: str, target: Target | None = None) -> Plan:
    return plan(
        Intent("writing", 0.9, "model"),
        target or Target("auto"),
        Demand(fingerprint=Fingerprint.known(fingerprint)),
        source.states(),
        source.components.config,
    )


def test_a_live_trial_is_left_to_another_request() -> None:
    """The rule on `Resilience`'s states: only a due trial is left to another request, and
    only while another backend can take the retry."""
    clock = [0.0]
    source = resilience(clock)
    for _ in range(3):  # three tries of one request, each cut after its first tokens
        source.health.failed("cloud", "cut")
        tried = [Attempt("cloud", "cloud", "error", "cut")]
        source.record_finished(
            Record("r", 0.0, attempts=tried, fingerprint=Fingerprint.known("essay"))
        )
    assert planned(source, "essay").backends == ("local",)  # open: skipped as before
    assert planned(source, "essay").skipped[0].reason == "circuit_open"
    clock[0] = OPEN_S  # the trial is due
    assert source.states()["cloud"].circuit == "half_open"
    retry = planned(source, "essay")
    assert retry.backends == ("local",)
    assert [(s.backend, s.reason) for s in retry.skipped] == [("cloud", FAILED_HERE)]
    # with no other backend to try it goes there still, the trial its own
    assert planned(source, "essay", Target("backend", "cloud")).backends == ("cloud",)
    other = planned(source, "poem")
    assert other.backends == ("cloud", "local") and other.skipped == ()
    source.health.attempt_started("cloud", "cloud")  # the other request takes the trial
    source.health.attempt_finished("cloud", "cloud", "ok", None)  # and cloud serves it
    assert planned(source, "essay").backends == ("cloud", "local")  # the cut is history


def test_a_closed_or_open_circuits_remembered_requests_skip_nothing() -> None:
    """A closed circuit is not concerned (docs/resilience.md): one failure is no reason to
    send the retry elsewhere, and a client sending the same body again and again stayed on
    the fallback. An open circuit is skipped as open, not for the request."""
    clock = [0.0]
    source = resilience(clock)
    source.health.failed("cloud", "cut")  # one failure: the circuit stays closed
    tried = [Attempt("cloud", "cloud", "error", "cut")]
    source.record_finished(Record("r", 0.0, attempts=tried, fingerprint=Fingerprint.known("e")))
    assert source.health.failed_requests.of("cloud") == {"e"}  # remembered
    assert source.states()["cloud"].circuit == "closed"
    assert source.states()["cloud"].failed_requests == frozenset()
    closed = planned(source, "e")
    assert closed.backends == ("cloud", "local") and closed.skipped == ()
    for _ in range(2):  # the circuit opens
        source.health.failed("cloud", "cut")
    assert source.states()["cloud"].circuit == "open"
    assert source.states()["cloud"].failed_requests == frozenset()
    opened = planned(source, "e")
    assert [(s.backend, s.reason) for s in opened.skipped] == [("cloud", "circuit_open")]


def test_a_429_or_a_hang_up_is_not_remembered_and_the_oldest_is_forgotten() -> None:
    """Remembered are the failures the breaker counts (`FAILURE_KINDS`): a 429 says wait,
    not broken, and a client's hang-up is the client's. A few per backend, the latest."""
    memory = failed_requests.FailedRequests()
    for kind, name in (("rate_limited", "a"), ("cancelled", "b"), ("cut", "c")):
        tried = [Attempt("cloud", "cloud", "error", kind)]  # type: ignore[arg-type]
        record = Record("r", 0.0, attempts=tried, fingerprint=Fingerprint.known(name))
        memory.remember(record, FAILURE_KINDS, lambda _: True)
    assert memory.of("cloud") == {"c"}
    kept = failed_requests.FailedRequests(kept=2)
    for name in ("first", "second", "third"):
        kept.failed("cloud", name)
    assert kept.of("cloud") == {"second", "third"}
