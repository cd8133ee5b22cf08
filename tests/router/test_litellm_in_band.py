"""An error event that ends an OpenAI-style stream, through a litellm backend.

litellm raises such an event as an APIConnectionError of its own (a 500) for anything but a
429, which read as a reply it could not parse: `malformed`, the upstream's message lost, and
the circuit moved even for an overloaded, working backend. It must be typed as the event
says, as for a `kind: openai` backend. Real sockets: the router, litellm speaking OpenAI's
chat (`openai/...`) to vLLM and OpenAI-like simulators, the official SDK.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import openai
import pytest

from router.config import parse
from tests.harness import (
    INTENTS,
    Running,
    RunningRouter,
    collected,
    openai_via_litellm,
    router,
    scrape,
    sdk,
    simulator,
)


@pytest.fixture(scope="module")
def guarded(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Running, Running, RunningRouter]]:
    """vLLM and OpenAI-like simulators through litellm, behind breakers that one failure
    opens for a minute: a request wrongly counted against a backend shows in its circuit."""
    with (
        simulator(profile="vllm", model="engine-model") as engine,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        config = parse(
            {
                "backends": [
                    openai_via_litellm("engine", engine.url, "engine-model"),
                    openai_via_litellm("cloud", cloud.url, "cloud-model"),
                ],
                "routes": {i: ["engine"] for i in INTENTS},
                "ledger": {"path": str(tmp_path_factory.mktemp("in_band") / "ledger")},
                "resilience": {"failure_threshold": 1, "open_s": 60, "max_open_s": 60},
            }
        )
        with router(config) as proxy:
            yield engine, cloud, proxy


def circuit(proxy: Running, backend: str) -> str:
    status = httpx.get(f"{proxy.url}/router/status", timeout=5, trust_env=False).json()
    return str(status["extra"]["resilience"]["backends"][backend]["circuit"])


def failed_stream(proxy: Running, model: str) -> tuple[openai.APIError, str]:
    """The error that ends a stream through the router, and the text before it."""
    stream = sdk(proxy).chat.completions.create(
        model=model,
        messages=[{"role": "user", "content": "Write a Python function."}],
        max_tokens=40,
        stream=True,
    )
    text = []
    with pytest.raises(openai.APIError) as info:
        for chunk in stream:
            text.extend(c.delta.content or "" for c in chunk.choices)
    return info.value, "".join(text)


@pytest.mark.parametrize(
    ("status", "kind", "code", "said"),
    [
        ("503", "overloaded", "upstream_overloaded", "The engine is currently busy"),
        ("429", "rate_limited", "rate_limit_exceeded", "Rate limit reached"),
    ],
)
def test_a_busy_engine_mid_stream_is_not_a_failure(
    guarded: tuple[Running, Running, RunningRouter], status: str, kind: str, code: str, said: str
) -> None:
    """vLLM's in-band 503 (`code: 503`) through litellm was `malformed`, "the reply could not
    be read": the upstream's message lost, and the circuit opened on an overloaded, working
    backend (found in review). Its 429 already behaved: it must stay so."""
    engine, _, proxy = guarded
    records = collected(proxy)
    engine.control("faults", {"fault": f"error_event:2:{status}"})
    try:
        error, text = failed_stream(proxy, "engine")
    finally:
        engine.control("faults", {"fault": None})
    assert text  # the stream had begun: the error event ended it
    assert error.code == code and error.message.startswith(said)
    record = records.wait(30)
    assert (record.outcome, record.error_kind) == ("upstream_error", kind)
    attempts = scrape(proxy.root).get(
        "smf_router_attempts_total",
        backend="engine",
        tier="cloud",
        outcome="error",
        error_kind=kind,
    )
    assert attempts is not None and attempts >= 1
    assert circuit(proxy, "engine") == "closed"
    raw = sdk(proxy).chat.completions.with_raw_response.create(
        model="engine", messages=[{"role": "user", "content": "Say hello."}], max_tokens=10
    )
    assert raw.headers["x-smf-backend"] == "engine"


def test_an_openai_style_error_event_keeps_its_names(
    guarded: tuple[Running, Running, RunningRouter],
) -> None:
    """OpenAI's in-band error names no status: `type: server_error`, read as a `kind: openai`
    backend's is, with its message and type; it was litellm's `malformed`. Named only by
    that generic type (`code: null`), its words tell: "Overloaded" is an overload, as the
    same over HTTP (a 503) is, and no failure for the breaker (it was a `server_error`,
    which opened the circuit of a working backend; found in review). Last on `cloud`."""
    _, cloud, proxy = guarded
    records = collected(proxy)
    cloud.control("faults", {"fault": "error_event:2:503"})
    try:
        error, _ = failed_stream(proxy, "cloud")
    finally:
        cloud.control("faults", {"fault": None})
    assert (error.type, error.message) == ("server_error", "Overloaded")
    assert records.wait(30).error_kind == "overloaded"
    assert circuit(proxy, "cloud") == "closed"
