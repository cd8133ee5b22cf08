"""vLLM's own output constraint (`structured_outputs`, as outlines' `from_vllm` sends it) is
served by the local tier only, as a private request is: a math ask, the cloud's intent,
carrying it was sent to the cloud, which refuses the field (OpenAI) or ignores it and
answers unconstrained (outlines' `Regex("(yes|no)")` got "Latency to in and the" in demo
mode: found in review). The cloud is passed over as `vllm_fields` (explain, the ledger's
skipped attempts, `backend_skips_total`); with local down the client is told why the cloud
was not tried, never given an unconstrained answer; a target without a local backend is a
400. Through the real app: a router over the vLLM and cloud simulators, the official
openai SDK with `extra_body`, the ledger's files read with DuckDB."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import openai
import pytest

from tests.harness import (
    INSTRUCT,
    Collect,
    Running,
    RunningRouter,
    config_for,
    router,
    scrape,
    sdk,
)
from tests.resilience.conftest import FAST, circuit, ledger_row, until

ASK = "Compute 17 * 23."  # math: the cloud first
MATH = [{"role": "user", "content": ASK}]
CODING = [{"role": "user", "content": "Write a Python function that reverses a list."}]
CHOICES = ["391", "392"]
SCHEMA = {"type": "object", "properties": {"answer": {"type": "number"}}, "required": ["answer"]}
CHOICE = {"structured_outputs": {"choice": CHOICES}}
SKIPS = "smf_router_backend_skips_total"
MODELS = {"cloud": INSTRUCT}


@pytest.fixture(scope="module")
def cloud_model() -> str:
    """`conftest.py`'s stack, but the cloud on OpenAI's completions model, so that it serves
    completions too: the cloud simulator plays OpenAI, whose chat models refuse them."""
    return INSTRUCT


def held(text: str, constraint: dict[str, Any]) -> bool:
    """Whether `text` is what `constraint` (`structured_outputs`) allows."""
    if "choice" in constraint:
        return text in constraint["choice"]
    try:
        jsonschema.validate(json.loads(text), constraint["json"])
    except (ValueError, jsonschema.ValidationError):
        return False
    return True


def explained(proxy: RunningRouter, body: dict[str, Any]) -> dict[str, Any]:
    reply = httpx.post(f"{proxy.url}/router/explain", json=body, timeout=30, trust_env=False)
    assert reply.status_code == 200, reply.text
    result: dict[str, Any] = reply.json()
    return result


@pytest.mark.parametrize("constraint", [{"choice": CHOICES}, {"json": SCHEMA}])
def test_a_math_ask_with_vllms_constraint_is_served_locally_and_held_to_it(
    client: openai.OpenAI,
    proxy: RunningRouter,
    backends: dict[str, Running],
    constraint: dict[str, Any],
) -> None:
    plain = client.chat.completions.with_raw_response.create(model="auto", messages=MATH)  # type: ignore[arg-type]
    assert plain.headers["x-smf-backend"] == "cloud"
    before = backends["cloud"].completions()
    held_to = client.chat.completions.with_raw_response.create(
        model="auto",
        messages=MATH,  # type: ignore[arg-type]
        extra_body={"structured_outputs": constraint},
    )
    assert held_to.headers["x-smf-backend"] == "local"
    assert held_to.headers["x-smf-intent"] == "math"  # read as math, kept off its route's cloud
    assert held(held_to.parse().choices[0].message.content or "", constraint)
    assert backends["cloud"].completions() == before
    assert backends["local"].stats()["last_request"]["structured_outputs"] == constraint
    row = ledger_row(proxy, held_to.headers["x-request-id"], ("backend", "attempts"))
    assert row is not None and row["backend"] == "local"
    assert row["attempts"] == [("cloud", "skipped", "vllm_fields"), ("local", "ok", None)]
    plan = explained(proxy, {"model": "auto", "messages": MATH, "structured_outputs": constraint})
    assert plan["skipped"] == [{"backend": "cloud", "reason": "vllm_fields"}]
    assert plan["backends"] == [{"backend": "local", "reason": "fallback"}]
    skips = scrape(proxy.root)
    assert (skips.get(SKIPS, backend="cloud", tier="cloud", reason="vllm_fields") or 0) >= 1
    assert skips.get(SKIPS, backend="local", tier="local", reason="vllm_fields") is None


def test_completions_and_responses_with_it_are_served_locally_too(
    client: openai.OpenAI, backends: dict[str, Running]
) -> None:
    """vLLM's completions and Responses requests take the field as its chat does. Over the
    local chat backend a Responses request is translated, and the field goes with it:
    dropped there, it was kept local and answered unconstrained all the same."""
    path = "/v1/completions"
    assert (
        client.completions.with_raw_response.create(model="auto", prompt=ASK, max_tokens=5).headers[
            "x-smf-backend"
        ]
        == "cloud"
    )
    completed = client.completions.with_raw_response.create(
        model="auto", prompt=ASK, max_tokens=5, extra_body=CHOICE
    )
    assert completed.headers["x-smf-backend"] == "local"
    assert completed.parse().choices[0].text in CHOICES
    assert (
        backends["local"].stats()["last_request"]["structured_outputs"]
        == CHOICE["structured_outputs"]
    )
    assert (
        client.responses.with_raw_response.create(model="auto", input=ASK).headers["x-smf-backend"]
        == "cloud"
    )
    cloud_before = backends["cloud"].completions() + backends["cloud"].completions(path)
    responded = client.responses.with_raw_response.create(
        model="auto", input=ASK, extra_body=CHOICE
    )
    assert responded.headers["x-smf-backend"] == "local"
    assert responded.parse().output_text in CHOICES
    sent = backends["local"].stats()["last_request"]
    assert "messages" in sent and sent["structured_outputs"] == CHOICE["structured_outputs"]
    assert backends["cloud"].completions() + backends["cloud"].completions(path) == cloud_before


def test_vllms_structural_tag_format_is_kept_local_and_guided_json_is_not(
    proxy: RunningRouter,
) -> None:
    """A `response_format` of type `structural_tag` is vLLM's alone too. The older
    `guided_json` is no constraint for the vLLM served (removed in 0.12, ignored since):
    kept local, it would be unconstrained there too, so it routes as any request."""
    tag = {"type": "structural_tag", "format": {"type": "const_string", "value": "391"}}
    tagged = explained(proxy, {"model": "auto", "messages": MATH, "response_format": tag})
    assert tagged["skipped"] == [{"backend": "cloud", "reason": "vllm_fields"}]
    legacy = explained(proxy, {"model": "auto", "messages": MATH, "guided_json": SCHEMA})
    assert legacy["skipped"] == [] and legacy["backends"][0]["backend"] == "cloud"
    nothing = explained(proxy, {"model": "auto", "messages": MATH, "structured_outputs": None})
    assert nothing["skipped"] == []


@pytest.fixture
def local_down(backends: dict[str, Running]) -> Iterator[Running]:
    """Every request to local has its connection reset (its health checks still pass)."""
    backends["local"].control("faults", {"fault": "down"})
    try:
        yield backends["local"]
    finally:
        backends["local"].control("faults", {"fault": None})


def test_with_local_down_the_error_says_why_the_cloud_was_not_tried(
    proxy: RunningRouter, backends: dict[str, Running], local_down: Running
) -> None:
    """Not an unconstrained answer from the cloud, and not local's 502 alone, which read as
    a router that forgot its fallback."""
    before = backends["cloud"].completions()
    with pytest.raises(openai.APIStatusError) as failed:
        sdk(proxy).chat.completions.create(model="auto", messages=MATH, extra_body=CHOICE)  # type: ignore[arg-type]
    error = failed.value
    assert error.status_code == 502 and error.response.headers["x-smf-backend"] == "local"
    assert "'cloud' not tried: structured_outputs is vLLM's own" in error.message
    assert backends["cloud"].completions() == before
    row = ledger_row(proxy, error.response.headers["x-request-id"], ("attempts",))
    assert row is not None and row["attempts"][0] == ("cloud", "skipped", "vllm_fields")


def test_a_model_without_a_local_backend_is_a_400_not_retried(
    proxy: RunningRouter, backends: dict[str, Running]
) -> None:
    sent: list[httpx.Request] = []
    before = {name: server.completions() for name, server in backends.items()}
    with httpx.Client(event_hooks={"request": [sent.append]}) as http:
        client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=2, http_client=http)
        with pytest.raises(openai.BadRequestError) as refused:
            client.chat.completions.create(model="cloud", messages=MATH, extra_body=CHOICE)  # type: ignore[arg-type]
    assert refused.value.param == "model" and len(sent) == 1
    assert "'cloud' has no backend that honours structured_outputs" in refused.value.message
    assert {name: server.completions() for name, server in backends.items()} == before


@pytest.fixture
def resilient(backends: dict[str, Running], tmp_path: Path) -> Iterator[RunningRouter]:
    """A router that keeps pins and opens circuits, over the same simulators."""
    with router(config_for(backends, tmp_path, models=MODELS, resilience=FAST)) as running:
        yield running


def test_a_turn_with_it_leaves_the_conversations_pin_on_the_cloud(
    resilient: RunningRouter,
) -> None:
    """Pinned to the cloud, a turn with the field is served locally: a detour, as a turn
    of `n` > 1 past a backend that cannot answer it is, since the next turn may carry no
    constraint; the pin stays (a private caller's is its own for good, and moves it)."""
    collect = Collect()  # after the resilience sink: a record it holds, the pin has seen
    resilient.components.gateway.sinks.append(collect)
    client = sdk(resilient)
    session = {"prompt_cache_key": "outlines-session"}

    def turn(messages: Any, **extra: Any) -> str:
        seen = len(collect.records)
        raw = client.chat.completions.with_raw_response.create(
            model="auto", messages=messages, extra_body={**session, **extra}
        )
        until(lambda: len(collect.records) > seen, what="the turn's record finished")
        return str(raw.headers["x-smf-backend"])

    def first(messages: Any) -> dict[str, Any]:
        steps = explained(resilient, {"model": "auto", "messages": messages, **session})
        return dict(steps["backends"][0])

    assert turn(MATH) == "cloud"
    assert first(CODING) == {"backend": "cloud", "reason": "sticky"}
    assert turn(MATH, **CHOICE) == "local"
    assert first(CODING) == {"backend": "cloud", "reason": "sticky"}
    assert turn(CODING) == "cloud"


def test_with_local_s_circuit_open_the_503_says_why_the_cloud_was_not_tried(
    resilient: RunningRouter, backends: dict[str, Running], local_down: Running
) -> None:
    client = sdk(resilient)
    before = backends["cloud"].completions()
    for _ in range(3):  # failure_threshold: local alone may serve it, and fails
        with pytest.raises(openai.APIStatusError):
            client.chat.completions.create(model="auto", messages=MATH, extra_body=CHOICE)  # type: ignore[arg-type]
    until(lambda: circuit(resilient.root, "local") == "open", what="local's circuit open")
    with pytest.raises(openai.APIStatusError) as refused:
        client.chat.completions.create(model="auto", messages=MATH, extra_body=CHOICE)  # type: ignore[arg-type]
    error = refused.value
    assert error.status_code == 503 and error.code == "no_backend_available"
    assert "(cloud: vllm_fields, local: circuit_open)" in error.message
    assert "'cloud' not tried: structured_outputs is vLLM's own" in error.message
    assert backends["cloud"].completions() == before
