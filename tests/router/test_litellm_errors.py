"""How a litellm backend's failures reach the client, the ledger and the circuit breaker.

litellm raises its own exception classes for everything: an upstream's answer, a broken
connection, and its own trouble converting a request. The adapter tells them apart, so that
only a backend that is not working counts against its circuit. Real sockets: the router,
litellm, and simulators speaking Anthropic's Messages API and vLLM's chat.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import openai
import pytest

from router.backends import litellm as adapter
from router.config import parse
from tests.harness import (
    Collect,
    Running,
    RunningRouter,
    breaks_on_call,
    claude_backend,
    router,
    simulator,
)

INTENTS = ("coding", "tool_calling", "instruction", "math", "reasoning", "prose", "writing")
HELLO: list[Any] = [{"role": "user", "content": "Say hello."}]


def local_backend(server: Running) -> dict[str, Any]:
    return {"name": "local", "tier": "local", "base_url": server.url, "model": "local-model"}


def client(proxy: RunningRouter) -> openai.OpenAI:
    return openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)


@pytest.fixture(scope="module")
def stack(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Running, Running, RunningRouter]]:
    """claude (litellm) first, local behind it; one failure opens a circuit for a minute, so
    a request that wrongly counted as the backend's failure shows in the next one."""
    with (
        simulator(profile="anthropic", model="claude-sonnet-4-5") as claude,
        simulator(profile="vllm", model="local-model") as local,
    ):
        config = parse(
            {
                "backends": [claude_backend(claude), local_backend(local)],
                "routes": {i: ["claude", "local"] for i in INTENTS},
                "ledger": {"path": str(tmp_path_factory.mktemp("errors") / "ledger")},
                "resilience": {"failure_threshold": 1, "open_s": 60, "max_open_s": 60},
            }
        )
        with router(config) as proxy:
            yield claude, local, proxy


def still_serves(proxy: RunningRouter) -> None:
    """claude's circuit is closed: a plain request is answered by claude itself."""
    raw = client(proxy).chat.completions.with_raw_response.create(
        model="claude", messages=HELLO, max_tokens=20
    )
    assert raw.headers["x-smf-backend"] == "claude"


def test_a_bug_in_the_adapter_is_the_routers_500_not_the_backends_failure(
    stack: tuple[Running, Running, RunningRouter], monkeypatch: pytest.MonkeyPatch
) -> None:
    """It was a 502 `malformed` that opened claude's circuit: a bug of ours, met with one
    client's request, took the backend down for everyone."""
    _, _, proxy = stack
    records = Collect()
    proxy.components.gateway.sinks.append(records)
    monkeypatch.setattr(adapter, "_plain", breaks_on_call(1, adapter._plain))
    with pytest.raises(openai.InternalServerError) as info:
        client(proxy).chat.completions.create(model="claude", messages=HELLO, max_tokens=20)
    assert info.value.status_code == 500
    assert "internal router error" in info.value.message
    record = records.wait(5)
    assert (record.outcome, record.error_kind) == ("router_error", "router_error")
    still_serves(proxy)
