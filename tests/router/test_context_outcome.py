"""A backend's context-length refusal that ends a request is the client's (`router.blame`).

Codex compacts its history on `context_length_exceeded`: a session whose prompt outgrew the
window is normal use. Recorded `upstream_error`, three such refusals beside two requests a
minute served made SmfRequestsFailing page (found in review), and the dashboards showed
them beside real outages. A backend tried after the refusal (a larger window) that then
failed is the upstream's failure still.

Through the real app on a socket, with vLLM-like simulators whose window is 512 tokens; the
records read back from the gateway, the counts from `/metrics`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest

from router import attempt_errors, blame
from router.record import Attempt, Record, backend_moves
from tests.agent_apis.over_chat import ledger_columns
from tests.harness import (
    Collect,
    Running,
    RunningRouter,
    collected,
    config_for,
    router,
    scrape,
    sdk,
    simulator,
)
from tests.waiting import wait_until

ASK = [{"role": "user", "content": "Write a Python function that reverses a list."}]
REQUESTS, ERRORS = "smf_router_requests_total", "smf_router_errors_total"


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, Running]]:
    with (
        simulator(profile="vllm", model="local-model", max_model_len=512) as local,
        simulator(profile="vllm", model="cloud-model", max_model_len=512) as cloud,
    ):
        yield {"local": local, "cloud": cloud}


@pytest.fixture(scope="module")
def proxy(
    servers: dict[str, Running], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningRouter]:
    """The default routes: `coding` is local, then cloud."""
    config = config_for(servers, tmp_path_factory.mktemp("context_outcome"))
    assert config.routes["coding"] == ["local", "cloud"]
    with router(config) as running:
        yield running


@pytest.fixture
def faults(servers: dict[str, Running]) -> Iterator[Any]:
    """Set a simulator's fault for this test only."""

    def fault(name: str, which: str) -> None:
        servers[name].control("faults", {"fault": which})

    yield fault
    for server in servers.values():
        server.control("faults", {"fault": None})


def ended(records: Collect, n: int) -> list[tuple[int, str, str | None]]:
    """(status, outcome, error_kind) of the first `n` records finished."""
    assert wait_until(lambda: len(records.records) >= n), records.records
    return [(r.status, r.outcome, r.error_kind) for r in records.records[:n]]


def counted(proxy: RunningRouter, name: str, **labels: str) -> float:
    """The sum of `name`'s samples over every series carrying `labels`."""
    wanted = set(labels.items())
    samples = scrape(proxy.root).samples.items()
    return sum(v for (sample, series), v in samples if sample == name and wanted <= series)


def refused(proxy: RunningRouter, model: str, **extra: Any) -> openai.BadRequestError:
    with pytest.raises(openai.BadRequestError) as caught:
        sdk(proxy).chat.completions.create(model=model, messages=ASK, **extra)  # type: ignore[call-overload]
    return caught.value


def test_a_prompt_every_backend_refuses_as_too_long_is_the_clients_error(
    proxy: RunningRouter, faults: Any
) -> None:
    """Both windows refuse the prompt: on the route (local, then cloud's larger window) and
    on local forced by name, the client gets the 400 Codex compacts on, and the record says
    it was the client's: no failure for SmfRequestsFailing, none on the dashboards."""
    faults("local", "context_length")
    faults("cloud", "context_length")
    failed = counted(proxy, REQUESTS, outcome="upstream_error")
    records = collected(proxy)
    for model in ("coding", "local"):
        assert refused(proxy, model).code == "context_length_exceeded"
    assert ended(records, 2) == [(400, "client_error", "context_too_long")] * 2
    assert counted(proxy, REQUESTS, outcome="upstream_error") == failed
    kinds = {"outcome": "client_error", "kind": "context_too_long"}
    assert counted(proxy, ERRORS, intent="coding", **kinds) == 2


def test_an_output_limit_every_window_refuses_is_the_clients_error(proxy: RunningRouter) -> None:
    """vLLM refuses `max_tokens` over its window (`OutputTooLong`), and the plan moves on to
    the cloud, which refuses it too: the client's choice to change, as a prompt's length."""
    records = collected(proxy)
    assert refused(proxy, "coding", max_tokens=600).param == "max_tokens"
    assert ended(records, 1) == [(400, "client_error", "output_too_long")]
    assert [a.backend for a in records.records[0].attempts] == ["local", "cloud"]


def test_a_larger_backend_that_fails_after_the_refusal_is_the_upstreams_failure(
    proxy: RunningRouter, faults: Any
) -> None:
    """Local's window refuses the prompt, and the cloud, which might have served it, fails
    with a 500. The client still gets the refusal (the plan's first backend verdict), but the
    request failed for the cloud's outage: recorded as that failure, the alert counts it."""
    faults("local", "context_length")
    faults("cloud", "server_error:500")
    failed = counted(proxy, REQUESTS, outcome="upstream_error")
    records = collected(proxy)
    assert refused(proxy, "coding").code == "context_length_exceeded"
    assert ended(records, 1) == [(400, "upstream_error", "server_error")]
    assert counted(proxy, REQUESTS, outcome="upstream_error") - failed == 1


def test_a_4xx_passed_through_past_a_refusal_for_length_is_the_clients_error(
    proxy: RunningRouter, faults: Any
) -> None:
    """Local refuses the prompt for length, and the cloud refuses the request with a 400 of
    its own (a parameter it does not take): passed through, the client's, as a backend's
    4xx without a fallback is. No backend failed to send it there (it was `upstream_error`
    for any fallback, a refusal for length's too: found in review)."""
    faults("local", "context_length")
    faults("cloud", "bad_request")
    failed = counted(proxy, REQUESTS, outcome="upstream_error")
    kinds = {"intent": "coding", "outcome": "client_error", "kind": "rejected"}
    rejected = counted(proxy, ERRORS, **kinds)
    records = collected(proxy)
    said = refused(proxy, "coding", extra_headers={"x-request-id": "refused-then-400"})
    assert (said.status_code, said.code) == (400, None)
    assert ended(records, 1) == [(400, "client_error", "rejected")]
    assert tried(records.records[0]) == [
        ("local", "error", "context_too_long"),
        ("cloud", "error", "rejected"),
    ]
    assert counted(proxy, REQUESTS, outcome="upstream_error") == failed
    assert counted(proxy, ERRORS, **kinds) == rejected + 1
    assert ledger_row(proxy, "refused-then-400")[:3] == (400, "client_error", "rejected")


def attempt(backend: str, kind: str | None = None) -> Attempt:
    tier = "local" if backend == "local" else "cloud"
    return Attempt(backend, tier, "error" if kind else "ok", kind)


@pytest.mark.parametrize(
    ("before", "outcome"),
    [
        ([], "client_error"),  # no fallback
        ([attempt("local", "context_too_long")], "client_error"),
        ([attempt("local", "output_too_long")], "client_error"),
        ([attempt("local", "server_error")], "upstream_error"),  # local down sent it there
        ([attempt("local", "context_too_long"), attempt("big", "server_error")], "upstream_error"),
        ([attempt("local", "unreachable"), attempt("big", "context_too_long")], "upstream_error"),
        ([attempt("cloud", "rate_limited")], "client_error"),  # a retry, on the same backend
    ],
)
def test_a_4xx_passed_through_is_the_upstreams_only_past_a_backends_failure(
    before: list[Attempt], outcome: str
) -> None:
    """Whose a cloud's 400 is, by the attempts that came before it on the plan; the record
    as dispatch fills it, `fallback_reason` the first move's."""
    record = Record("r", 0.0, attempts=[*before, attempt("cloud", "rejected")])
    moves = backend_moves(record.attempts)
    record.fallback_reason = moves[0][0].error_kind if moves else None
    error = attempt_errors.Rejected("no", backend="cloud", status=400, upstream={})
    assert blame.before_commit(error, record) == (outcome, "rejected")


def test_a_context_refusal_in_band_after_the_commit_is_the_clients_error(
    proxy: RunningRouter, faults: Any
) -> None:
    """A stream that began and then ends in the backend's in-band context-length error: the
    client's as before the commit, and the SDK raises the backend's code."""
    faults("local", "error_event:2:400")
    records = collected(proxy)
    stream = sdk(proxy).chat.completions.create(model="local", messages=ASK, stream=True)  # type: ignore[arg-type]
    with pytest.raises(openai.APIError):
        for _ in stream:
            pass
    assert ended(records, 1) == [(400, "client_error", "context_too_long")]


def tried(record: Record) -> list[tuple[str, str, str | None]]:
    """(backend, outcome, error_kind) of each of the record's attempts."""
    return [(a.backend, a.outcome, a.error_kind) for a in record.attempts]


def ledger_row(proxy: RunningRouter, request_id: str) -> tuple[Any, ...]:
    """(status, outcome, error_kind) of the request's row in the ledger's files."""
    ledger = Path(proxy.components.config.ledger.path)
    return tuple(ledger_columns(ledger, request_id, "status, outcome, error_kind"))


@pytest.mark.parametrize("status", [500, 504, 529])
def test_a_failed_attempt_records_the_status_its_backend_said(
    proxy: RunningRouter, faults: Any, status: int
) -> None:
    """Local fails with a 5xx and the cloud serves: the attempt's status is local's own, as a
    refusing backend's 401 is, not the 502 or 503 a client would have been told (a 500, a
    504 and Anthropic's 529 all read 502 or 503 in the ledger's attempts: found in review)."""
    faults("local", f"server_error:{status}")
    records = collected(proxy)
    sdk(proxy).chat.completions.create(model="coding", messages=ASK)
    assert wait_until(lambda: len(records.records) >= 1)
    attempts = records.records[0].attempts
    assert [(a.backend, a.status) for a in attempts] == [("local", status), ("cloud", 200)]
