"""A router whose breaker counts `local`'s failures without opening its circuit, and the
count once a client gave up on a stream of one API: for the tests of which hang-ups on a
silent backend count as its failures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from router.config import parse
from tests.harness import Running, RunningRouter, config_for
from tests.resilience.conftest import CODING, FAST, backend_state, until

RESILIENCE = {**FAST, "open_s": 60.0, "max_open_s": 60.0}  # an opened circuit stays open
TIMEOUTS = {"first_token_s": 60.0, "idle_s": 60.0, "total_s": 120.0}


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
