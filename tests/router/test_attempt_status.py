"""The status a failed attempt records: the HTTP status its backend answered with.

A backend's error reply is recorded with its own status (a 500, not the client's 502:
test_context_outcome.py; a litellm backend's: test_litellm_attempt_status.py). A backend
that answered 200 and then failed before the router committed to its reply (an error
event first in its stream, the engine's abort, a whole body cut short) said 200: the
attempt's error kind says what went wrong, as it does for a failure after the commit. Such
attempts were recorded with the client's 502 or the error event's status, which the
backend never sent (found in review).

Through the real app on a socket: `local` (vLLM-like, chat only, so a Messages request is
translated) carries the fault, `cloud` serves.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from router.config import parse
from tests.harness import Running, RunningRouter, collected, config_for, router, simulator

ASK = [{"role": "user", "content": "Write a Python function that reverses a list."}]
PATHS = {"chat": "/chat/completions", "messages": "/messages"}


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Running, RunningRouter]]:
    """`coding` is local, then cloud."""
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        config = config_for({"local": local, "cloud": cloud}, tmp_path_factory.mktemp("status"))
        data = config.model_dump()
        data["backends"][0]["apis"] = ["chat"]
        assert data["routes"]["coding"] == ["local", "cloud"]
        with router(parse(data)) as proxy:
            yield local, proxy


@pytest.mark.parametrize(
    ("fault", "api", "stream", "kind"),
    [
        ("error_event:0", "chat", True, "server_error"),
        ("error_event:0:529", "chat", True, "overloaded"),
        ("error_event:0", "messages", True, "server_error"),
        ("abort:0", "chat", True, "cut"),
        ("abort:0", "chat", False, "cut"),
        ("abort:0", "messages", False, "cut"),
        ("cut_stream", "chat", False, "cut"),
    ],
)
def test_an_attempt_that_failed_after_its_200_records_the_200(
    stack: tuple[Running, RunningRouter], fault: str, api: str, stream: bool, kind: str
) -> None:
    local, proxy = stack
    records = collected(proxy)
    local.control("faults", {"fault": fault})
    try:
        body = {"model": "coding", "messages": ASK, "max_tokens": 50, "stream": stream}
        reply = httpx.post(f"{proxy.url}{PATHS[api]}", json=body, timeout=30)
        record = records.wait(30)
    finally:
        local.control("faults", {"fault": None})
    assert (reply.status_code, reply.headers["x-smf-backend"]) == (200, "cloud")
    seen = [(a.backend, a.error_kind, a.status) for a in record.attempts]
    assert seen == [("local", kind, 200), ("cloud", None, 200)]
