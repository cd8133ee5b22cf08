"""Bounded client load for reliability tests: count what was sent and what came back."""

from __future__ import annotations

import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from router.ledger.query import Ledger

MESSAGES = [{"role": "user", "content": "Write a Python function that adds two numbers."}]


@dataclass
class Tally:
    sent: list[str] = field(default_factory=list)  # request ids
    answered: list[tuple[float, str]] = field(default_factory=list)  # (monotonic time, id)
    backends: Counter[str] = field(default_factory=Counter)
    statuses: Counter[int] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)


def one(url: str, tally: Tally, stream: bool = False, model: str = "coding") -> None:
    rid = uuid.uuid4().hex
    with tally.lock:
        tally.sent.append(rid)
    body = {"model": model, "messages": MESSAGES, "stream": stream}
    try:
        with httpx.stream(
            "POST", f"{url}/chat/completions", json=body, headers={"x-request-id": rid}, timeout=30
        ) as response:
            response.read()
    except httpx.HTTPError:
        return
    with tally.lock:
        tally.answered.append((time.monotonic(), rid))
        tally.statuses[response.status_code] += 1
        tally.backends[response.headers.get("x-smf-backend", "")] += 1


def run_load(
    url: str,
    tally: Tally,
    threads: int,
    per_thread: int,
    stop: threading.Event | None = None,
    pause_s: float = 0.0,
    stream_every: int = 0,
) -> None:
    """`threads` clients, each sending up to `per_thread` requests (bounded), until `stop`."""

    def client(index: int) -> None:
        for i in range(per_thread):
            if stop is not None and stop.is_set():
                return
            one(url, tally, stream=bool(stream_every) and (i + index) % stream_every == 0)
            if pause_s:
                time.sleep(pause_s)

    workers = [threading.Thread(target=client, args=(n,)) for n in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=600)


def wait_answered(tally: Tally, count: int, limit_s: float = 120.0) -> None:
    """Until `count` requests were answered; fails after `limit_s` (a router that stopped
    answering must end the test, not hang it)."""
    deadline = time.monotonic() + limit_s
    while len(tally.answered) < count:
        assert time.monotonic() < deadline, f"{len(tally.answered)} of {count} answered"
        time.sleep(0.05)


def ledger_ids(directory: Path) -> list[str]:
    with Ledger(directory) as ledger:
        return [str(r[0]) for r in ledger.sql("SELECT request_id FROM records")]
