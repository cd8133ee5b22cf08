"""A request whose every backend that could serve waits out a 429's `Retry-After` is told
as the 429 it would have met, not as a 503 `no_backend_available`: the SDKs switch on the
status, and the 503 had the OpenAI SDK raise `InternalServerError` (it raised
`RateLimitError` before the router passed a waiting backend by) and Claude Code read its
`overloaded_error` as a 529, on which its background queries give up (found in review).
The ledger still says `no_backend_available` (nothing was tried), a backend's failure.

And the request log line tells a backend passed over while its wait ran
(`cloud:skipped:rate_limited`) from one that answered the 429 (`cloud:rate_limited`): they
read alike. Real sockets: the router and two simulators, the official SDKs, the ledger's
own files read with DuckDB."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anthropic
import httpx
import openai
import orjson
import pytest

from tests.harness import INTENTS, Running, RunningRouter, config_for, router, scrape, sdk
from tests.resilience.conftest import CODING, FAST, ledger_row, local_and_cloud, until

COLUMNS = ("status", "outcome", "error_kind", "n_attempts", "attempts")


@contextmanager
def waiting(tmp_path: Path, seconds: int) -> Iterator[tuple[dict[str, Running], RunningRouter]]:
    """Every route on cloud, then local; the cloud answers 429 asking `seconds`, longer
    than `retry_after_max_s` (0.5): the first request meets it and local serves, and the
    router passes the cloud by until the wait ends."""
    with local_and_cloud() as pair:
        pair["cloud"].control("faults", {"fault": f"rate_limit:{seconds}"})
        routes = {intent: ["cloud", "local"] for intent in INTENTS}
        config = config_for(pair, tmp_path, routes=routes, resilience=FAST)
        with router(config) as proxy:
            first = sdk(proxy).chat.completions.with_raw_response.create(
                model="coding",
                messages=CODING,  # type: ignore[arg-type]
            )
            assert first.headers["x-smf-backend"] == "local"
            yield pair, proxy


def test_the_backend_named_while_it_waits_is_a_429_every_sdk_reads_as_one(
    tmp_path: Path,
) -> None:
    with waiting(tmp_path, 30) as (pair, proxy):
        client = sdk(proxy)
        with pytest.raises(openai.RateLimitError) as chat:
            client.chat.completions.create(model="cloud", messages=CODING)  # type: ignore[arg-type]
        with pytest.raises(openai.RateLimitError) as stream:
            client.chat.completions.create(model="cloud", messages=CODING, stream=True)  # type: ignore[arg-type]
        claude = anthropic.Anthropic(base_url=proxy.root, api_key="x", max_retries=0)
        with pytest.raises(anthropic.RateLimitError) as messages:
            claude.messages.create(model="cloud", max_tokens=50, messages=CODING)  # type: ignore[arg-type]
        request_id = chat.value.response.headers["x-request-id"]
        until(
            lambda: ledger_row(proxy, request_id, COLUMNS) is not None,
            what="the request's ledger row",
        )
        row = ledger_row(proxy, request_id, COLUMNS)
        errors = scrape(proxy.root).samples
        assert pair["cloud"].completions() == 1  # the first request's 429 only
    response = chat.value.response
    assert response.status_code == 429
    assert 1 <= int(response.headers["retry-after"]) <= 30
    assert "x-should-retry" not in response.headers  # a short wait: the SDK retries a 429
    assert response.headers["x-smf-attempts"] == "0"
    error = response.json()["error"]
    assert (error["type"], error["code"]) == ("rate_limit_error", "rate_limit_exceeded")
    assert "'cloud' answered a rate limit with a Retry-After" in error["message"]
    assert stream.value.response.headers["retry-after"] == response.headers["retry-after"]
    body = messages.value.body
    assert isinstance(body, dict) and body["error"]["type"] == "rate_limit_error"
    assert row == {
        "status": 429,
        "outcome": "upstream_error",  # not the client's: no backend could take it
        "error_kind": "no_backend_available",
        "n_attempts": 0,
        "attempts": [("cloud", "skipped", "rate_limited")],
    }
    failed: dict[tuple[str, str], float] = {}
    for (name, labels), value in errors.items():
        if name == "smf_router_errors_total" and value:
            key = (dict(labels)["outcome"], dict(labels)["kind"])
            failed[key] = failed.get(key, 0.0) + value
    assert failed == {("upstream_error", "no_backend_available"): 3}


def test_a_long_wait_says_not_to_retry_as_a_backends_429_does(tmp_path: Path) -> None:
    """10 minutes is not for an SDK to sleep through silently."""
    with waiting(tmp_path, 600) as (_, proxy), pytest.raises(openai.RateLimitError) as refused:
        sdk(proxy).chat.completions.create(model="cloud", messages=CODING)  # type: ignore[arg-type]
    headers = refused.value.response.headers
    assert 590 <= int(headers["retry-after"]) <= 600
    assert headers["x-should-retry"] == "false"


class Lines(logging.Handler):
    """The request log lines, as the router's JSON formatter would write their fields."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.found: list[dict[str, Any]] = []

    def emit(self, record: logging.LogRecord) -> None:
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict) and fields.get("event") == "request":
            self.found.append(orjson.loads(orjson.dumps(fields, default=str)))


def test_the_log_line_tells_a_backend_passed_by_from_one_that_answered_429(
    tmp_path: Path,
) -> None:
    request_log = logging.getLogger("smf_router.request")
    lines, level = Lines(), request_log.level
    request_log.addHandler(lines)
    request_log.setLevel(logging.INFO)
    try:
        with waiting(tmp_path, 30) as (_, proxy):
            body = {"model": "coding", "messages": CODING}
            passed = httpx.post(f"{proxy.url}/chat/completions", json=body, trust_env=False)
            assert passed.headers["x-smf-backend"] == "local"
            until(lambda: len(lines.found) >= 2, what="two request lines")
    finally:
        request_log.removeHandler(lines)
        request_log.setLevel(level)
    met, passed_by = lines.found[:2]
    assert met["attempts"] == ["cloud:rate_limited", "local:ok"]  # the 429 it answered
    assert passed_by["attempts"] == ["cloud:skipped:rate_limited", "local:ok"]
