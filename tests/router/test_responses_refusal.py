"""A streamed Responses request's context-length refusal or 429 is told in-band, as Codex
reads it: `response.created`, `response.in_progress`, then `response.failed` whose
`error.code` is `context_length_exceeded` (Codex compacts) or `rate_limit_exceeded` with a
wait in the words Codex parses (Codex waits it out and asks again). As an HTTP 400 or 429
Codex ended the turn, every later turn too, `/compact` included (found in review). Whole
replies, chat and Messages keep their status; the record keeps the error's. Codex only (its
`originator` header or user agent): any other Responses client's stream gets the HTTP
status its SDK retries by (the Agents SDK's streamed run raised on the in-band 429 at once).

Real sockets: the router and two simulators on 127.0.0.1, the official `openai` SDK."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from router.config import parse
from tests.harness import INTENTS, Collect, RunningRouter, config_for, router, sdk, simulator
from tests.resilience.conftest import FAST, local_and_cloud
from tests.router.context_windows import windowed

# Codex's own pattern (openai/codex codex-api/src/sse/responses.rs, `rate_limit_regex`)
CODEX_WAIT = re.compile(r"(?i)try again in\s*(\d+(?:\.\d+)?)\s*(s|ms|seconds?)")
LONG = [{"role": "user", "content": "Write a Python function. " + "word " * 400}]
OPENERS = ["response.created", "response.in_progress"]
# What Codex CLI 0.42 sends (openai/codex `default_client.rs`): its originator, and a user
# agent that begins with it
CODEX = {"originator": "codex_cli_rs", "user-agent": "codex_cli_rs/0.42.0 (Linux; x86_64) xterm"}


@contextmanager
def recorded(proxy: RunningRouter) -> Iterator[Collect]:
    """The records finished while the block runs."""
    records = Collect()
    proxy.components.gateway.sinks.append(records)
    try:
        yield records
    finally:
        proxy.components.gateway.sinks.remove(records)


def streamed(proxy: RunningRouter) -> tuple[Any, list[Any], Any]:
    """Codex's streamed Responses request of `LONG`: the raw reply, its events, and its record."""
    with recorded(proxy) as records:
        raw = sdk(proxy).responses.with_raw_response.create(
            model="auto",
            input=LONG,  # type: ignore[arg-type]
            stream=True,
            extra_headers=CODEX,
        )
        events = list(raw.parse())
        return raw, events, records.wait(30)


def whole(proxy: RunningRouter, error: type[openai.APIStatusError]) -> tuple[Any, Any]:
    """The same request not streamed: the SDK's error, and the record."""
    with recorded(proxy) as records, pytest.raises(error) as caught:
        sdk(proxy).responses.create(model="auto", input=LONG)  # type: ignore[arg-type]
    return caught.value, records.wait(30)


def said(record: Any) -> tuple[int, str, str | None]:
    return record.status, record.outcome, record.error_kind


def test_a_prompt_over_every_window_is_told_to_a_codex_stream_in_band(tmp_path: Path) -> None:
    """The router's own refusal (nothing tried): a 200 stream Codex compacts on."""
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
        router(windowed(local, cloud, tmp_path, (100, 200))) as proxy,
    ):
        raw, events, record = streamed(proxy)
        refused, whole_record = whole(proxy, openai.BadRequestError)
        chat = httpx.post(
            f"{proxy.url}/chat/completions",
            json={"model": "auto", "messages": LONG, "stream": True},
            trust_env=False,
        )
        messages = httpx.post(
            f"{proxy.url}/messages",
            json={"model": "auto", "max_tokens": 100, "messages": LONG, "stream": True},
            trust_env=False,
        )
    assert raw.http_response.status_code == 200
    assert raw.headers["content-type"].startswith("text/event-stream")
    assert raw.headers["x-smf-attempts"] == "0" and raw.headers["x-smf-route"]
    assert raw.headers["x-request-id"] == record.request_id
    assert [e.type for e in events] == [*OPENERS, "response.failed"]
    assert [e.sequence_number for e in events] == [0, 1, 2]
    response = events[-1].response
    assert response.id == events[0].response.id and response.status == "failed"
    assert response.error.code == "context_length_exceeded"
    assert response.error.message == refused.body["message"]  # the words the 400 says
    # the record as before: the refusal's status, the client's to fix
    assert said(record) == said(whole_record) == (400, "client_error", "context_length_exceeded")
    assert refused.status_code == 400 and refused.code == "context_length_exceeded"
    assert (chat.status_code, messages.status_code) == (400, 400)
    assert chat.json()["error"]["code"] == "context_length_exceeded"
    assert messages.json()["type"] == "error"


def test_a_backends_own_context_refusal_is_told_to_a_codex_stream_in_band(
    tmp_path: Path,
) -> None:
    """Windows configured larger than the backends serve: each backend refuses the prompt
    itself before its first token, and the last refusal reaches the client."""
    with (
        simulator(profile="vllm", model="local-model", max_model_len=100) as local,
        simulator(profile="cloud", model="cloud-model", max_model_len=200) as cloud,
        router(windowed(local, cloud, tmp_path, (100_000, 200_000))) as proxy,
    ):
        raw, events, record = streamed(proxy)
        refused, whole_record = whole(proxy, openai.BadRequestError)
    assert raw.http_response.status_code == 200
    assert raw.headers["x-smf-attempts"] == "2" and raw.headers["x-smf-backend"]
    assert [e.type for e in events] == [*OPENERS, "response.failed"]
    assert events[-1].response.error.code == "context_length_exceeded"
    assert refused.status_code == 400 and refused.code == "context_length_exceeded"
    assert said(record) == said(whole_record)
    assert said(record)[:2] == (400, "client_error")


def _cloud_first(tmp_path: Path, pair: Any) -> Any:
    """Every route on cloud, then local; `retry_after_max_s` 0.5: a 30 s wait is not slept,
    but kept (`resilience`): the next requests pass the backend by until it ends."""
    routes = {intent: ["cloud", "local"] for intent in INTENTS}
    return config_for(pair, tmp_path, routes=routes, resilience=FAST)


def test_a_rate_limit_is_told_to_a_codex_stream_in_band_with_its_wait(tmp_path: Path) -> None:
    """Both backends answer 429 with a 30 s wait: the first request meets both 429s, the
    next is refused by the router (each waits); either way Codex is told to wait, in its
    words, where the 429 ended its turn."""
    with local_and_cloud() as pair:
        for server in pair.values():
            server.control("faults", {"fault": "rate_limit:30"})
        with router(_cloud_first(tmp_path, pair)) as proxy:
            met_raw, met, met_record = streamed(proxy)  # the backends' own 429s
            raw, events, record = streamed(proxy)  # the router's: each backend waits
            limited, whole_record = whole(proxy, openai.RateLimitError)
            asked = (pair["cloud"].completions(), pair["local"].completions())
    assert asked == (1, 1)  # only the first request reached them
    assert met_raw.headers["x-smf-attempts"] == "2"
    assert raw.http_response.status_code == met_raw.http_response.status_code == 200
    assert raw.headers["x-smf-attempts"] == "0"
    for stream in (met, events):
        assert [e.type for e in stream] == [*OPENERS, "response.failed"]
        error = stream[-1].response.error
        assert error.code == "rate_limit_exceeded"
        wait = CODEX_WAIT.search(error.message)
        assert wait is not None, error.message
        assert 1 <= float(wait.group(1)) <= 30 and wait.group(2) == "s"
        assert len(re.findall(r"(?i)\b(?:retry|try again) in\b", error.message)) == 1
    assert said(met_record) == (429, "upstream_error", "rate_limited")
    assert said(record) == said(whole_record) == (429, "upstream_error", "no_backend_available")
    assert limited.status_code == 429 and limited.code == "rate_limit_exceeded"
    assert not CODEX_WAIT.search(limited.body["message"])  # the 429's words are as they were


def test_other_refusals_of_a_codex_stream_keep_their_status(tmp_path: Path) -> None:
    """A 503 (every backend's circuit open) Codex retries already; a 400 that is no context
    refusal (a private request with no local backend) it cannot act on either way."""
    with simulator(profile="cloud", model="cloud-model") as cloud:
        config = config_for({"cloud": cloud}, tmp_path).model_dump()
        with router(parse(config)) as proxy:
            answer = httpx.post(
                f"{proxy.url}/responses",
                json={"model": "auto", "input": "hi", "stream": True},
                headers={"x-smf-private": "true", **CODEX},
                trust_env=False,
            )
    assert answer.status_code == 400, answer.text
    assert answer.headers["content-type"].startswith("application/json")


def test_another_clients_stream_gets_the_http_status_its_sdk_retries_by(tmp_path: Path) -> None:
    """The `openai` SDK (the Agents SDK's model) retries a 429 by its status and Retry-After,
    never a `response.failed` in a 200: told in-band, `Runner.run_streamed` raised at once
    where the same request whole waited and was served (found in review). Codex is told by
    its `originator` (the IDE extension's here, its user agent none of Codex's) or its user
    agent alone; no other client gets the in-band form."""
    with local_and_cloud() as pair:
        for server in pair.values():
            server.control("faults", {"fault": "rate_limit:30"})
        with router(_cloud_first(tmp_path, pair)) as proxy:
            with pytest.raises(openai.RateLimitError) as met:  # the backends' own 429s
                sdk(proxy).responses.create(model="auto", input=LONG, stream=True)  # type: ignore[arg-type]
            with pytest.raises(openai.RateLimitError) as refused:  # the router's own
                sdk(proxy).responses.create(model="auto", input=LONG, stream=True)  # type: ignore[arg-type]
            codex = [
                httpx.post(
                    f"{proxy.url}/responses",
                    json={"model": "auto", "input": LONG, "stream": True},
                    headers=headers,
                    trust_env=False,
                )
                for headers in (
                    {"originator": "codex_vscode", "user-agent": "Mozilla/5.0"},
                    {"user-agent": "codex_exec/0.42.0 (Mac OS 14.0.0; arm64) unknown"},
                )
            ]
    for error in (met.value, refused.value):
        assert error.status_code == 429 and error.code == "rate_limit_exceeded"
        assert error.response.headers["content-type"].startswith("application/json")
        assert 1 <= int(error.response.headers["retry-after"]) <= 30
    for answer in codex:
        assert answer.status_code == 200, answer.text
        assert answer.headers["content-type"].startswith("text/event-stream")
        assert "rate_limit_exceeded" in answer.text and "response.failed" in answer.text


def test_another_clients_stream_gets_a_context_refusal_as_a_400(tmp_path: Path) -> None:
    """No window holds the prompt: the 400 a whole request gets, for any client but Codex."""
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
        router(windowed(local, cloud, tmp_path, (100, 200))) as proxy,
        pytest.raises(openai.BadRequestError) as refused,
    ):
        sdk(proxy).responses.create(model="auto", input=LONG, stream=True)  # type: ignore[arg-type]
    assert refused.value.status_code == 400 and refused.value.code == "context_length_exceeded"
