"""The status a litellm backend's failed attempt records: the one its provider answered.

A client is told a 502 for a backend's 500 and a 503 for Anthropic's 529 (`router.attempt_errors`);
the record's and ledger's attempts say what the backend itself said, as a `kind: openai`
backend's do (`router.upstream_errors.classify_error`). litellm's exception carries it.
Real sockets: the router, litellm, and a simulator speaking Anthropic's Messages API, a
vLLM-like one behind it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from router.record import Record
from tests.harness import (
    Running,
    RunningRouter,
    claude_then_local,
    collected,
    router,
    sdk,
    simulator,
)

HELLO = [{"role": "user", "content": "Say hello."}]


def attempts_under(stack: tuple[Running, RunningRouter], fault: str, stream: bool) -> Record:
    """The record of one request with claude's `fault` set for it alone."""
    claude, proxy = stack
    records = collected(proxy)
    claude.control("faults", {"fault": fault})
    try:
        reply = sdk(proxy).chat.completions.create(
            model="coding", messages=HELLO, max_tokens=20, stream=stream
        )
        if stream:
            for _ in reply:
                pass
        return records.wait(30)
    finally:
        claude.control("faults", {"fault": None})


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Running, RunningRouter]]:
    """claude (litellm) first, local behind it; no breaker, so each request reaches claude."""
    with (
        simulator(profile="anthropic", model="claude-sonnet-4-5") as claude,
        simulator(profile="vllm", model="local-model") as local,
    ):
        ledger_dir = tmp_path_factory.mktemp("status")
        config = claude_then_local(claude, local, ledger_dir, {"enabled": False})
        with router(config) as proxy:
            yield claude, proxy


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("status", [500, 504, 529])
def test_a_failed_attempt_records_the_status_its_provider_said(
    stack: tuple[Running, RunningRouter], status: int, stream: bool
) -> None:
    """claude answers a 500, a 504 or Anthropic's 529, local serves: claude's attempt says
    so. It said 502 for the 500, none for the 504 (litellm raises its Timeout) and 503 for
    the 529, where a `kind: openai` backend's attempt said the backend's own (found in
    review)."""
    record = attempts_under(stack, f"server_error:{status}", stream)
    assert [(a.backend, a.status) for a in record.attempts] == [("claude", status), ("local", 200)]


@pytest.mark.parametrize("status", [500, 529])
def test_an_error_event_first_in_its_stream_records_the_200(
    stack: tuple[Running, RunningRouter], status: int
) -> None:
    """Anthropic's stream opens with a 200 and then an `event: error` (an `api_error`, an
    `overloaded_error`), before any text: the backend said 200, what failed is the error
    kind. It was recorded with the client's 502 or 503, which litellm's 500 for the event
    would have become (found in review)."""
    record = attempts_under(stack, f"error_event:0:{status}", True)
    kind = "overloaded" if status == 529 else "server_error"
    seen = [(a.backend, a.error_kind, a.status) for a in record.attempts]
    assert seen == [("claude", kind, 200), ("local", None, 200)]
