"""The routing headers a client sends: `x-smf-route` picks a route or backend where auth
allows it, `x-smf-private` keeps a request on the local tier (a 400, not a retryable 503,
when no local backend can serve it); repeated headers are read whole, serving and explain
alike. The official `openai` SDK against a real router with simulated backends."""

from __future__ import annotations

from pathlib import Path

import httpx
import openai
import pytest

from router.config import parse
from router.ledger import Ledger
from tests.harness import Running, RunningRouter, config_for, router, scrape

MATH = [{"role": "user", "content": "Compute 17 * 23."}]  # a cloud intent


def test_route_header_forces_a_route(client: openai.OpenAI) -> None:
    raw = client.chat.completions.with_raw_response.create(
        model="auto",
        messages=[{"role": "user", "content": "Write a sonnet"}],
        extra_headers={"x-smf-route": "local"},
    )
    assert raw.headers["x-smf-backend"] == "local"


def test_a_route_header_naming_nothing_is_a_400_about_the_header(
    client: openai.OpenAI, backends: dict[str, Running]
) -> None:
    """It was a 404 'The model ... does not exist', `param: model`, about a model the
    client never sent (found in review); the body's unknown model stays a 404."""
    before = {name: server.completions() for name, server in backends.items()}
    with pytest.raises(openai.BadRequestError) as header:
        client.chat.completions.create(
            model="auto", messages=MATH, extra_headers={"x-smf-route": "gpu"}
        )
    error = header.value.body
    assert isinstance(error, dict) and error["param"] is None
    assert error["message"].startswith("x-smf-route 'gpu' names no route or backend")
    with pytest.raises(openai.NotFoundError) as model:
        client.chat.completions.create(model="gpu", messages=MATH)
    unknown = model.value.body
    assert isinstance(unknown, dict) and unknown["param"] == "model"
    assert {name: server.completions() for name, server in backends.items()} == before


def test_private_header_keeps_cloud_intent_local(client: openai.OpenAI, tmp_path: Path) -> None:
    raw = client.chat.completions.with_raw_response.create(
        model="auto",
        messages=[{"role": "user", "content": "Compute 17 * 23."}],
        extra_headers={"x-smf-private": "true"},
    )
    assert raw.headers["x-smf-backend"] == "local"


def test_a_private_request_no_local_backend_serves_is_a_400_not_retried(
    backends: dict[str, Running], tmp_path: Path
) -> None:
    """A private `/v1/completions` request with local speaking chat only skipped local
    (api_unsupported) and cloud (private) and got a 503: the SDK retried what no retry
    could serve (found in review). A local backend down stays a 503 (test_resilience_live)."""
    data = config_for(backends, tmp_path).model_dump(mode="json")
    data["backends"][0]["apis"] = ["chat"]
    sent: list[httpx.Request] = []
    before = {name: server.completions("/v1/completions") for name, server in backends.items()}
    with (
        router(parse(data)) as running,
        httpx.Client(event_hooks={"request": [sent.append]}) as http,
    ):
        client = openai.OpenAI(base_url=running.url, api_key="x", max_retries=2, http_client=http)
        with pytest.raises(openai.BadRequestError) as info:
            client.completions.create(
                model="auto",
                prompt="Once upon a time",
                max_tokens=10,
                extra_headers={"x-smf-private": "true"},
            )
    assert info.value.status_code == 400 and info.value.param == "model"
    assert "completions API" in info.value.message and "private" in info.value.message
    assert len(sent) == 1  # the SDK took it as final
    assert {n: s.completions("/v1/completions") for n, s in backends.items()} == before


def test_a_private_request_to_a_model_without_a_local_backend_is_a_400_not_retried(
    proxy: RunningRouter, backends: dict[str, Running]
) -> None:
    """`model: cloud` (or a route with no local member) for a private request skipped the
    only backend as private and answered a retryable 503 (found in review)."""
    sent: list[httpx.Request] = []
    before = {name: server.completions() for name, server in backends.items()}
    with httpx.Client(event_hooks={"request": [sent.append]}) as http:
        client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=2, http_client=http)
        with pytest.raises(openai.BadRequestError) as info:
            client.chat.completions.create(
                model="cloud",
                messages=[{"role": "user", "content": "hi"}],
                extra_headers={"x-smf-private": "true"},
            )
    assert info.value.param == "model" and "local tier only" in info.value.message
    assert len(sent) == 1
    assert {name: server.completions() for name, server in backends.items()} == before
    # a 400 like any other, where the ledger and the metrics had no kind for it ("none")
    request_id = info.value.response.headers["x-request-id"]
    assert proxy.components.ledger is not None
    proxy.components.ledger.flush()
    with Ledger(Path(proxy.components.config.ledger.path)) as ledger:
        found = ledger.sql("SELECT error_kind FROM records WHERE request_id = ?", [request_id])
    assert found == [("invalid_request",)]
    kinds = {
        dict(labels)["kind"]
        for (name, labels), value in scrape(proxy.root).samples.items()
        if name == "smf_router_errors_total" and value > 0
    }
    assert "invalid_request" in kinds and "none" not in kinds


@pytest.mark.parametrize(
    ("headers", "status", "backend"),
    [
        ([("x-smf-private", "0"), ("x-smf-private", "1")], 200, "local"),
        ([("x-smf-private", "false"), ("x-smf-private", "true")], 200, "local"),
        ([("x-smf-private", "1"), ("x-smf-private", "maybe")], 400, None),
        ([("x-smf-route", "local"), ("x-smf-route", "cloud")], 400, None),
        ([("x-smf-route", "local"), ("x-smf-route", "local")], 200, "local"),
        # an empty header (curl's `-H 'x-smf-private;'`) read as public (found in review)
        ([("x-smf-private", "")], 400, None),
        ([("x-smf-private", ",")], 400, None),
        ([("x-smf-private", ", ,")], 400, None),
        ([("x-smf-private", ""), ("x-smf-private", "")], 400, None),
        ([("x-smf-private", "1,")], 200, "local"),  # an empty item beside one is ignored
        ([("x-smf-private", "1"), ("x-smf-private", "")], 200, "local"),  # joined: "1, "
        ([("x-smf-route", "cloud,")], 200, "cloud"),  # was "naming different routes"
        ([("x-smf-route", ",")], 400, None),
        ([("x-smf-route", "")], 400, None),
    ],
)
def test_a_repeated_routing_header_is_read_whole(
    proxy: RunningRouter, headers: list[tuple[str, str]], status: int, backend: str | None
) -> None:
    """The first of repeated headers won: `x-smf-private: 0` then `x-smf-private: 1` went
    to the cloud (found in review). Empty items are dropped; a header with none at all is
    a 400 naming it, never read as absent."""
    body = {"model": "auto", "messages": MATH}
    reply = httpx.post(f"{proxy.url}/chat/completions", json=body, headers=headers, timeout=10)
    assert reply.status_code == status
    if backend is None:
        assert reply.json()["error"]["type"] == "invalid_request_error"
        assert reply.json()["error"]["message"].startswith(headers[0][0])  # names the header
    else:
        assert reply.headers["x-smf-backend"] == backend


def test_explain_reads_a_repeated_private_header_as_serving_does(proxy: RunningRouter) -> None:
    headers = [("x-smf-private", "0"), ("x-smf-private", "1")]
    body = {"model": "auto", "messages": MATH}
    plan = httpx.post(f"{proxy.root}/v1/router/explain", json=body, headers=headers).json()
    assert plan["private"] is True and plan["backends"][0]["backend"] == "local"


@pytest.mark.parametrize(("allowed", "served_by"), [(True, "local"), (False, "cloud")])
def test_the_route_header_is_ignored_where_auth_does_not_allow_it(
    backends: dict[str, Running], tmp_path: Path, allowed: bool, served_by: str
) -> None:
    """`auth.allow_route_header: false` is for a router whose callers may not pick their
    backend: `x-smf-route: local` on a math request then leaves it on the cloud route."""
    config = config_for(backends, tmp_path, auth={"allow_route_header": allowed})
    before = {name: server.completions() for name, server in backends.items()}
    with router(config) as running:
        client = openai.OpenAI(base_url=running.url, api_key="none", max_retries=0)
        raw = client.chat.completions.with_raw_response.create(
            model="auto", messages=MATH, extra_headers={"x-smf-route": "local"}
        )
    assert raw.headers["x-smf-backend"] == served_by
    assert raw.parse().model == f"{served_by}-model"  # what the serving simulator echoed
    served = {name: server.completions() - before[name] for name, server in backends.items()}
    assert served == {"local": int(allowed), "cloud": int(not allowed)}
