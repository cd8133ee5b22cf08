"""A router whose breaker counts `local`'s failures without opening its circuit, and the
count once a client gave up on a stream of one API: for the tests of which hang-ups on a
silent backend count as its failures."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from router.config import parse
from tests.harness import Running, RunningRouter, config_for, sdk
from tests.resilience.conftest import CODING, FAST, backend_state, until

RESILIENCE = {**FAST, "open_s": 60.0, "max_open_s": 60.0}  # an opened circuit stays open
TIMEOUTS = {"first_token_s": 60.0, "idle_s": 60.0, "total_s": 120.0}
PRIVATE = {"x-smf-private": "true"}  # local only: nothing falls back to the cloud


@contextmanager
def streaming_privately(proxy: RunningRouter) -> Iterator[None]:
    """A long private stream through the router, its output flowing, until the block ends
    (its client then leaves mid-stream, and the slot is free again): it fills a backend's
    one sequence slot."""
    streaming, leave = threading.Event(), threading.Event()

    def long_one() -> None:
        with sdk(proxy, timeout=120).chat.completions.create(
            model="coding", messages=CODING, stream=True, max_tokens=400, extra_headers=PRIVATE
        ) as stream:
            for _ in stream:
                streaming.set()
                if leave.is_set():
                    return

    runner = threading.Thread(target=long_one)
    runner.start()
    try:
        assert streaming.wait(30), "the long stream never began"
        yield
    finally:
        leave.set()
        runner.join(60)


def local_backend(proxy: RunningRouter) -> dict[str, Any]:
    return backend_state(proxy.root, "local")


def counting(servers: dict[str, Running], tmp_path: Path, apis: list[str]) -> Any:
    """A config whose `local` speaks `apis` and whose breaker counts failures in a row
    without ever opening a circuit."""
    resilience = {**RESILIENCE, "failure_threshold": 100}
    data = config_for(servers, tmp_path, timeouts=TIMEOUTS, resilience=resilience)
    dumped = data.model_dump(mode="json")
    dumped["backends"][0]["apis"] = apis
    return parse(dumped)


BODIES = {
    "messages": ("/messages", {"max_tokens": 50, "messages": CODING}),
    "responses": ("/responses", {"input": "Write a Python function that adds two numbers."}),
    "chat": ("/chat/completions", {"messages": CODING}),
}


def failures_after_giving_up(proxy: RunningRouter, api: str, records: Any, n: int) -> int:
    """`local`'s consecutive failures once a stream of `api` its client left is recorded
    (the `n`th record): the breaker was told before the record was made."""
    path, body = BODIES[api]
    with pytest.raises(httpx.TimeoutException):
        httpx.post(
            proxy.url + path,
            json={"model": "coding", "stream": True, **body},
            headers={"anthropic-version": "2023-06-01"},
            timeout=1.5,
        )
    until(lambda: len(records.records) >= n, what=f"the {api} hang-up recorded")
    failures: int = local_backend(proxy)["consecutive_failures"]
    return failures
