"""What a backend's fault is recorded and counted as: each failed attempt's error kind
(`malformed`, `cut`, `stall`, `timeout`) as the attempt observers hear it and the ledger
row keeps it, the request's fallback reason, and a usage that is no object. The primary
(`local`) carries the fault, `cloud` is healthy (`tests.router.faulty_pair`); what the
client sees of each fault: test_fault_matrix.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest

from router import dispatch
from router.ledger.usage import usage_of
from router.record import Usage
from tests.harness import Attempts, Collect, Running, RunningRouter, config_for, router, simulator
from tests.router.faulty_pair import FAST, ask, faulty_pair


@pytest.fixture(scope="module")
def setup(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[dict[str, Running], RunningRouter]]:
    with faulty_pair(tmp_path_factory.mktemp("faults")) as pair:
        yield pair


def test_an_unforeseen_failure_in_an_attempt_falls_back_and_is_counted_finished(
    setup: tuple[dict[str, Running], RunningRouter], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Any exception, not only an upstream error: otherwise the backend's in-flight count
    never comes down (it ends up "saturated" for good) and the client gets a 500."""
    _, proxy = setup
    send = dispatch.exchange.send

    async def broken_on_local(backend: Any, *args: Any) -> Any:
        if backend.settings.name == "local":
            raise AttributeError("'str' object has no attribute 'get'")
        return await send(backend, *args)

    counter = Attempts()
    observers = proxy.components.gateway.dispatcher.observers
    monkeypatch.setattr(dispatch.exchange, "send", broken_on_local)
    observers.append(counter)
    try:
        client = openai.OpenAI(base_url=proxy.url, api_key="none", max_retries=0, timeout=30)
        served, error = ask(client, "coding", stream=False)
    finally:
        observers.remove(counter)
    assert (served, error) == ("cloud", None)
    assert counter.started == ["local", "cloud"]
    assert ("local", "malformed") in counter.finished and len(counter.finished) == 2


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
def test_a_reply_cut_mid_body_is_recorded_as_cut_not_unreachable(
    setup: tuple[dict[str, Running], RunningRouter], stream: bool
) -> None:
    """The backend answered 200 and then its connection closed mid-answer. It was reached,
    so the attempt is `cut`: an operator reading the error kinds must be able to tell that
    from a box that is off (both were `unreachable` before)."""
    backends, proxy = setup
    local = backends["local"]
    counter = Attempts()
    observers = proxy.components.gateway.dispatcher.observers
    local.control("faults", {"fault": "cut_stream"})
    observers.append(counter)
    try:
        client = openai.OpenAI(base_url=proxy.url, api_key="none", max_retries=0, timeout=30)
        ask(client, "coding", stream)
    finally:
        observers.remove(counter)
        local.control("faults", {"fault": None})
    assert counter.finished[0] == ("local", "cut")


@pytest.mark.parametrize(("model", "reason"), [("coding", "server_error"), ("local", None)])
def test_a_fallback_reason_is_recorded_only_when_a_fallback_ran(
    setup: tuple[dict[str, Running], RunningRouter], model: str, reason: str | None
) -> None:
    """A backend failing alone moved nowhere: its row and span said `fallback_reason`
    server_error with one attempt (found in review)."""
    backends, proxy = setup
    records = Collect()
    proxy.components.gateway.sinks.append(records)
    backends["local"].control("faults", {"fault": "server_error"})
    try:
        client = openai.OpenAI(base_url=proxy.url, api_key="none", max_retries=0, timeout=30)
        ask(client, model, stream=False)
        record = records.wait(30)
    finally:
        proxy.components.gateway.sinks.remove(records)
        backends["local"].control("faults", {"fault": None})
    assert (record.fallback_reason, record.fallbacks) == (reason, 1 if reason else 0)


def test_silence_after_the_opening_events_is_a_stall(
    setup: tuple[dict[str, Running], RunningRouter],
) -> None:
    """Once a held stream opened, the wait for its first token is bounded by idle_s between
    pieces (a reasoning model keeps it alive), and silence past it is a stall."""
    backends, proxy = setup
    counter = Attempts()
    observers = proxy.components.gateway.dispatcher.observers
    backends["local"].control("faults", {"fault": "late_first_token:3"})
    observers.append(counter)
    try:
        client = openai.OpenAI(base_url=proxy.url, api_key="none", max_retries=0, timeout=30)
        assert ask(client, "coding", stream=True) == ("cloud", None)
    finally:
        observers.remove(counter)
        backends["local"].control("faults", {"fault": None})
    assert counter.finished[0] == ("local", "stall")


def test_a_steady_stream_past_the_total_deadline_is_a_timeout_not_a_stall(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Tokens keep coming, 4 a second, until the 5 s total limit: the stall timer is what
    fires (its wait was cut to the time left), but a client, the ledger and the circuit
    must hear "timeout". The first token and the gaps get room a loaded machine needs
    (FAST's 1.2 s first token once failed as a 504 under a full test run); only the total
    deadline can end this stream."""
    with simulator(profile="vllm", model="slow-model", tokens_per_s=4) as slow:
        config = config_for({"slow": slow}, tmp_path_factory.mktemp("deadline"))
        data = config.model_dump()
        data["backends"][0]["timeouts"] = {**FAST, "first_token_s": 5, "idle_s": 2, "total_s": 5}
        from router.config import parse

        with router(parse(data)) as proxy:
            records = Collect()
            proxy.components.gateway.sinks.append(records)
            body = {
                "model": "slow",
                "stream": True,
                "max_tokens": 200,
                "messages": [{"role": "user", "content": "Write a long essay about the sea."}],
            }
            reply = httpx.post(f"{proxy.url}/chat/completions", json=body, timeout=30)
            record = records.wait(30)  # finished after the last byte was sent
    assert reply.status_code == 200 and "total time limit" in reply.text
    assert record.error_kind == "timeout"


def test_usage_of_reads_a_usage_that_is_not_an_object_as_none() -> None:
    """What kept a malformed upstream usage ("n/a") from raising in `Gateway.finish` and
    losing the record (the simulator cannot send one, so this is checked where it broke)."""
    assert usage_of("chat", "n/a") is None
    assert usage_of("chat", {"prompt_tokens": "many", "completion_tokens": 3}) == Usage(
        prompt_tokens=0, completion_tokens=3
    )
    named_otherwise = usage_of("chat", {"input_tokens": 5, "output_tokens": 2})
    assert named_otherwise == Usage(prompt_tokens=5, completion_tokens=2)
