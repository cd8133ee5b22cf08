"""What a client span says of a call comes from the call itself: the settings it is made
with (not the config a reload swapped in since), the traffic it is, and, for a canary case,
whether the case's own timeout ended it."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from classifier.intent import INTENTS
from evals.endpoint import Endpoint
from evals.grading import Grader
from evals.runner import run_case
from evals.suite import SHIPPED, load
from router.canary_spans import traced
from router.config import Backend, Config, parse
from router.record import Record
from tests.observability.kept_spans import tracing_on


def config(base_url: str, tier: str) -> Config:
    backend = {"name": "b", "tier": tier, "base_url": base_url, "model": "m"}
    return parse({"backends": [backend], "routes": {i: ["b"] for i in INTENTS}})


def test_a_call_begun_before_a_reload_names_the_server_it_calls() -> None:
    """The spans took server and provider from per-name tables a reload's swap replaces: a
    fallback attempt of a request begun before the reload (made with the old config's
    adapter), or a canary round's later cases, named the new config's server."""
    old = config("http://10.0.0.1:8000/v1", "local")
    new = config("https://api.openai.com/v1", "cloud")
    tracing, _ = tracing_on()
    tracing.configure(old)
    root = tracing.start_request("chat", "auto")
    tracing.configure(new)  # the swap, while the request runs on the old adapters

    for span in (
        tracing.start_attempt(root, old.backend("b")),
        tracing.start_call("canary", old.backend("b")),
    ):
        a = span.attributes
        assert (a["server.address"], a["server.port"]) == ("10.0.0.1", 8000)
        assert (a["gen_ai.provider.name"], a["smf.tier"]) == ("vllm", "local")
    a = tracing.start_attempt(root, new.backend("b")).attributes
    assert (a["server.address"], a["server.port"]) == ("api.openai.com", 443)
    assert (a["gen_ai.provider.name"], a["smf.tier"]) == ("openai", "cloud")


def test_the_request_span_names_the_provider_its_backend_was_called_as() -> None:
    """The request span took its provider from the name table a reload replaced: a request
    served across a reload that removed or re-tiered its backend said `local` (the name)
    while its own attempt span said `vllm`."""
    old = config("http://10.0.0.1:8000/v1", "local")
    tracing, kept = tracing_on()
    tracing.configure(old)
    root = tracing.start_request("chat", "auto")
    tracing.end(tracing.start_attempt(root, old.backend("b")))
    tracing.configure(config("https://api.openai.com/v1", "cloud"))
    tracing.finish_request(root, Record(request_id="r", started_at=0.0, backend="b"))
    assert kept.spans[-1].attributes["gen_ai.provider.name"] == "vllm"

    failed = tracing.start_request("chat", "auto")  # its only attempt failed: no provider
    tracing.end(tracing.start_attempt(failed, old.backend("b")), error="server_error")
    tracing.finish_request(failed, Record(request_id="f", started_at=0.0))
    assert "gen_ai.provider.name" not in kept.spans[-1].attributes


def test_attempt_spans_say_they_are_live_traffic() -> None:
    """Only the request span said `smf.traffic` "live": a query on client spans alone found
    the shadow's and the canary's calls, and live attempts not at all."""
    tracing, _ = tracing_on()
    root = tracing.start_request("chat", "auto")
    backend = Backend(name="b", tier="local", base_url="http://h/v1", model="m")
    assert tracing.start_attempt(root, backend).attributes["smf.traffic"] == "live"
    assert tracing.start_call("shadow", backend).attributes["smf.traffic"] == "shadow"


@pytest.mark.parametrize(("timeout_s", "error"), [(0.1, "timeout"), (30.0, "cancelled")])
async def test_a_canary_case_its_timeout_ends_is_traced_as_a_timeout(
    timeout_s: float, error: str
) -> None:
    """The case's own timeout cancels the send, which the span reported as "cancelled" (as a
    stop), while the case's ledger row said `timeout`. A cancellation from elsewhere (the
    round's end, a stop) is still "cancelled"."""
    tracing, kept = tracing_on()
    backend = Backend(name="b", tier="local", base_url="http://h/v1", model="m")
    asked = asyncio.Event()

    async def slow(body: dict[str, Any]) -> Any:
        asked.set()
        await asyncio.sleep(60)

    case = load(SHIPPED / "math")[0]
    endpoint = Endpoint(base_url="http://h/v1", model="m")
    grader = Grader()  # not started: the case ends before its answer
    ask = traced(tracing, backend, slow)
    task = asyncio.create_task(run_case(ask, case, endpoint, timeout_s, grader))
    await asked.wait()
    if error == "cancelled":
        task.cancel()
    try:
        result = await task
    except asyncio.CancelledError:
        assert error == "cancelled"
    else:
        assert (result.status, result.failure_kind) == ("error", "timeout")
    (span,) = kept.spans
    assert span.attributes["error.type"] == span.error == error
    assert span.attributes["smf.canary.case_id"] == case.id
