"""A request the router refuses before planning it is no latency sample (found in review).

`smf_router_request_duration_seconds` measures how long serving takes. A refusal (a bad
body, an unknown model, a body too large: `router.api.refusal`) was never served, yet each
one was observed under backend `none`, and the latency panels' "none" series mixed those few
milliseconds with the requests every backend failed. Refusals stay counted in
`requests_total` (route `none`) and `rejected_requests_total`; a request that failed after
it was dispatched keeps its sample under backend `none`, as it has a latency to report.

A bug of the router's met before the plan (the classifier raising) has no route either,
but is no refusal: the router failed a request it took to serve, and its time is a sample.

Through the real app on a socket, read back from its `/metrics`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

import classifier
from router.config import hash_key
from tests.harness import Running, RunningRouter, config_for, router, scrape, simulator

KEY = "sk-team-alice-3f9a"
ASK = [{"role": "user", "content": "hello"}]
DURATIONS = "smf_router_request_duration_seconds_count"


@pytest.fixture(scope="module")
def local() -> Iterator[Running]:
    with simulator(profile="vllm", model="local-model") as server:
        yield server


@pytest.fixture(scope="module")
def proxy(local: Running, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningRouter]:
    config = config_for(
        {"local": local},
        tmp_path_factory.mktemp("refusal_latency"),
        auth={"keys": [{"name": "alice", "sha256": hash_key(KEY)}]},
        server={"max_body_bytes": 16 * 1024},
    )
    with router(config) as running:
        yield running


def total(proxy: RunningRouter, name: str, **labels: str) -> float:
    """The sum of `name`'s samples over every series carrying `labels`."""
    wanted = set(labels.items())
    return sum(
        value
        for (sample, series), value in scrape(proxy.root).samples.items()
        if sample == name and wanted <= series
    )


def post(proxy: RunningRouter, body: dict[str, Any]) -> httpx.Response:
    headers = {"authorization": f"Bearer {KEY}"}
    return httpx.post(proxy.url + "/chat/completions", json=body, headers=headers, timeout=10)


def test_a_refusal_adds_no_request_duration_sample(proxy: RunningRouter) -> None:
    refusals = [
        ({}, 400),  # no model, no messages
        ({"model": "no-such-model", "messages": ASK}, 404),
        ({"model": "local", "messages": [{"role": "user", "content": "x" * 32_000}]}, 413),
    ]
    before = total(proxy, DURATIONS)
    refused = total(proxy, "smf_router_requests_total", route="none", outcome="client_error")
    for body, status in refusals:
        assert post(proxy, body).status_code == status
    # recorded and counted as requests, each one ...
    now = total(proxy, "smf_router_requests_total", route="none", outcome="client_error")
    assert now - refused == len(refusals)
    # ... yet none of them is a latency sample, under backend `none` or any other
    assert total(proxy, DURATIONS) == before
    assert post(proxy, {"model": "local", "messages": ASK}).status_code == 200
    assert total(proxy, DURATIONS) - before == 1  # a served request is one
    assert total(proxy, DURATIONS, backend="local") >= 1


def test_a_request_no_backend_served_keeps_its_sample(local: Running, proxy: RunningRouter) -> None:
    """Dispatched, and every backend failed: the time it took to fail is a latency."""
    before = total(proxy, DURATIONS, backend="none")
    local.control("faults", {"fault": "server_error"})
    try:
        failed = post(proxy, {"model": "local", "messages": ASK})
    finally:
        local.control("faults", {"fault": None})
    assert failed.status_code >= 500
    assert total(proxy, DURATIONS, backend="none") - before == 1


def test_a_bug_before_the_plan_is_a_failure_with_its_latency(
    proxy: RunningRouter, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The classifier raises: a 500, recorded `router_error` with route `none`. `refused`
    read "no route", so it was no latency sample, and SmfRequestsFailing (`route!="none"`)
    never counted it (found in review). Its series exist at 0 before the first, so that
    `increase()` reads the first bugs (`router.metric_zeros.failures`)."""
    bug = {"intent": "none", "route": "none", "backend": "none", "tier": "none"}
    requests = {"name": "smf_router_requests_total", **bug, "outcome": "router_error"}
    errors = {"intent": "none", "outcome": "router_error", "kind": "none"}
    first = scrape(proxy.root)
    assert first.get(**requests, stream="false") == first.get(**requests, stream="true") == 0
    assert first.get("smf_router_errors_total", **errors) == 0
    before = total(proxy, DURATIONS, intent="none", backend="none")

    def broken(view: Any) -> Any:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(classifier, "classify", broken)
    for _ in range(3):
        assert post(proxy, {"model": "auto", "messages": ASK}).status_code == 500
    now = scrape(proxy.root)
    assert now.get(**requests, stream="false") == 3
    assert now.get("smf_router_errors_total", **errors) == 3
    assert total(proxy, DURATIONS, intent="none", backend="none") - before == 3
