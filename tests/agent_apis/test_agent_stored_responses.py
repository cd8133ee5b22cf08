"""A Responses turn that continues a stored one (`previous_response_id`) goes back to the
backend that stored it, whatever its new input's intent or the route: both simulators
store what they answer and refuse an id they never made, as vLLM (404) and OpenAI (400) do.
Routed by its new input alone, turn 2 reached the backend that never saw turn 1 and the
client got its refusal (found in review). The official `openai` SDK against a real router.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
import yaml

from router import reload
from router.config import Config, parse
from tests.harness import Running, RunningRouter, router, simulator

MATH = "Compute the integral of x^2 from 0 to 3 and show each step."  # the cloud's intent
CODE = "Write a Python function that reverses a linked list and add unit tests for it."
FOLLOW_CODE = "Now write a Python function that computes that integral numerically."
FOLLOW_MATH = "Now compute the derivative of x^3 + 2x and prove the product rule."
TIMEOUTS = {"connect_s": 2, "first_token_s": 5, "idle_s": 5, "total_s": 20}


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, Running]]:
    with (  # seeds of their own: one seed gives both the same ids, in the same order
        simulator(profile="vllm", model="local-model", seed=1) as local,
        simulator(profile="cloud", model="cloud-model", seed=2) as cloud,
    ):
        yield {"local": local, "cloud": cloud}


def stack_config(servers: dict[str, Running], tmp: Path) -> Config:
    """Both backends speak Responses natively; coding goes local first, math cloud first."""
    apis = {"local": ["chat", "responses"], "cloud": ["chat", "responses"]}
    backends: list[dict[str, Any]] = [
        {
            "name": name,
            "tier": name,
            "base_url": server.url,
            "model": f"{name}-model",
            "apis": apis[name],
            "timeouts": TIMEOUTS,
        }
        for name, server in servers.items()
    ]
    local_first, cloud_first = ["local", "cloud"], ["cloud", "local"]
    return parse(
        {
            "backends": backends,
            "routes": {
                "coding": local_first,
                "tool_calling": local_first,
                "instruction": local_first,
                "math": cloud_first,
                "reasoning": cloud_first,
                "prose": cloud_first,
                "writing": cloud_first,
            },
            "ledger": {"path": str(tmp / "ledger")},
            "resilience": {"enabled": False},
        }
    )


@pytest.fixture(scope="module")
def proxy(
    servers: dict[str, Running], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningRouter]:
    with router(stack_config(servers, tmp_path_factory.mktemp("stored"))) as running:
        yield running


def client(proxy: RunningRouter) -> openai.OpenAI:
    return openai.OpenAI(base_url=proxy.url, api_key="none", max_retries=0)


def test_a_coding_follow_up_of_a_cloud_answer_stays_on_the_cloud(proxy: RunningRouter) -> None:
    sdk = client(proxy)
    first = sdk.responses.with_raw_response.create(model="auto", input=MATH)
    assert first.headers["x-smf-backend"] == "cloud"
    second = sdk.responses.with_raw_response.create(
        model="auto", input=FOLLOW_CODE, previous_response_id=first.parse().id
    )
    assert second.headers["x-smf-backend"] == "cloud"  # was local, and its 404
    assert second.headers["x-smf-attempts"] == "1"
    assert second.parse().output_text


def test_a_math_follow_up_of_a_streamed_local_answer_stays_local(proxy: RunningRouter) -> None:
    sdk = client(proxy)
    events = list(sdk.responses.create(model="auto", input=CODE, stream=True))
    assert events[-1].type == "response.completed"
    turn1 = events[-1].response.id  # type: ignore[union-attr]
    ask = {"model": "auto", "input": FOLLOW_MATH, "previous_response_id": turn1}
    explained = httpx.post(f"{proxy.url}/router/explain", json={"api": "responses", **ask})
    assert explained.status_code == 200, explained.text
    assert explained.json()["intent"]["label"] == "math"
    assert [b["backend"] for b in explained.json()["backends"]] == ["local"]
    assert explained.json()["skipped"] == [{"backend": "cloud", "reason": "response_elsewhere"}]
    second = sdk.responses.with_raw_response.create(
        model="auto", input=FOLLOW_MATH, previous_response_id=turn1
    )
    assert second.headers["x-smf-backend"] == "local"  # was the cloud, and its 400
    third = sdk.responses.with_raw_response.create(
        model="auto", input=FOLLOW_MATH, previous_response_id=second.parse().id
    )
    assert third.headers["x-smf-backend"] == "local"


@pytest.mark.parametrize(
    ("ask", "backend", "error"),
    [(CODE, "local", openai.NotFoundError), (MATH, "cloud", openai.BadRequestError)],
)
def test_an_unknown_id_is_routed_as_before_and_its_refusal_names_the_backend(
    proxy: RunningRouter, ask: str, backend: str, error: type[openai.APIStatusError]
) -> None:
    """The backend's own 4xx passes through, and `x-smf-backend` says whose it is (it was
    empty: the record names a backend only once one served)."""
    with pytest.raises(error) as refused:
        client(proxy).responses.create(model="auto", input=ask, previous_response_id="resp_gone")
    assert "resp_gone" in refused.value.message
    assert refused.value.response.headers["x-smf-backend"] == backend
    assert refused.value.response.headers["x-smf-attempts"] == "1"  # no fallback


def test_a_private_turn_continuing_a_cloud_response_is_refused_never_sent(
    proxy: RunningRouter, servers: dict[str, Running]
) -> None:
    sdk = client(proxy)
    turn1 = sdk.responses.create(model="auto", input=MATH).id
    before = {name: s.stats()["by_path"].get("/v1/responses", 0) for name, s in servers.items()}
    with pytest.raises(openai.BadRequestError) as refused:
        sdk.responses.create(
            model="auto",
            input=FOLLOW_CODE,
            previous_response_id=turn1,
            extra_headers={"x-smf-private": "1"},
        )
    assert refused.value.param == "previous_response_id"
    assert "'cloud', a cloud backend" in refused.value.message
    assert refused.value.response.headers["x-smf-backend"] == ""  # none was tried
    after = {name: s.stats()["by_path"].get("/v1/responses", 0) for name, s in servers.items()}
    assert after == before


def test_a_response_not_stored_pins_nothing(proxy: RunningRouter) -> None:
    """`store: false`: nothing to continue, and nothing to remember."""
    sdk = client(proxy)
    turn1 = sdk.responses.create(model="auto", input=MATH, store=False).id
    with pytest.raises(openai.NotFoundError):  # routed as before: local, which refuses it
        sdk.responses.create(model="auto", input=FOLLOW_CODE, previous_response_id=turn1)
    assert len(proxy.components.gateway.stored) >= 1  # the other tests' turns, not this one
    assert proxy.components.gateway.stored.table.get(turn1) is None


def test_a_reload_keeps_where_the_responses_live(
    servers: dict[str, Running], tmp_path: Path
) -> None:
    """A reload builds a new gateway: it takes the table over, resized, not a new one."""
    config = stack_config(servers, tmp_path)
    reloaded = config.model_dump(mode="json")
    reloaded["resilience"]["sticky_max_entries"] = 10
    path = tmp_path / "router.yaml"
    path.write_text(yaml.safe_dump(reloaded))
    with router(config) as proxy:
        reload.reloader_of(proxy.components).source = path
        sdk = client(proxy)
        turn1 = sdk.responses.create(model="auto", input=MATH).id
        assert httpx.post(f"{proxy.url}/router/reload", timeout=60).status_code == 200
        assert proxy.components.gateway.stored.table.max_entries == 10
        second = sdk.responses.with_raw_response.create(
            model="auto", input=FOLLOW_CODE, previous_response_id=turn1
        )
        assert second.headers["x-smf-backend"] == "cloud"
