"""Requests no backend served: what their attempts generated before failing uncommitted is
estimated (`Call.unsent_chars`) and kept apart from what backends served (the report's
`unserved_tokens`, no per-backend token counter)."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from prometheus_client import CollectorRegistry

from router.api import front
from router.metrics import Metrics
from router.record import Usage
from router.request_size import estimate_tokens
from tests.agent_apis.agent_stack import openai_client
from tests.agent_apis.chat_chunks import ASK, FAILURES, UNSENT, chunk, sse
from tests.agent_apis.over_chat import ledger_row
from tests.harness import collected, config_for, router, send_json, simulator, upstream
from tests.observability.finished_records import local_coding_record

SMF_ROUTER = str(Path(sys.executable).parent / "smf-router")
SERVED_USAGE = {"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25}


class ReasonsOrAnswers(BaseHTTPRequestHandler):
    """A chat upstream: a prompt saying FAIL gets `UNSENT` reasoning, then an error event
    (nothing commits in a 300 s grace); any other a whole answer with its usage."""

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        if b"FAIL" in body:
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.end_headers()  # HTTP/1.0: the body ends with the connection
            reasoning = sse(chunk({"role": "assistant", "reasoning": UNSENT}))
            self.wfile.write(reasoning + FAILURES["error_event"])
            return
        message = {"role": "assistant", "content": "Done."}
        answer = {
            "id": "chatcmpl-2",
            "object": "chat.completion",
            "created": 1,
            "model": "local-model",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": SERVED_USAGE,
        }
        send_json(self, 200, orjson.dumps(answer))

    def log_message(self, *args: object) -> None:
        pass


class NotFound(BaseHTTPRequestHandler):
    """A fallback that refuses every request with a 404 before any output."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        error = {"error": {"message": "no such model", "type": "not_found"}}
        send_json(self, 404, orjson.dumps(error))

    def log_message(self, *args: object) -> None:
        pass


def _failing_responses_request(url: str) -> str:
    data = {"model": "coding", "stream": True, "input": f"FAIL {ASK}"}
    reply = httpx.post(f"{url}/responses", json=data, timeout=30)
    assert reply.status_code in (404, 502)
    return reply.headers["x-request-id"]


@pytest.mark.usefixtures("long_grace")
def test_a_request_no_backend_served_is_reported_apart_from_the_local_share(
    tmp_path: Path,
) -> None:
    """One local request served, one failed on local mid-reasoning: every served token is
    local, so the share is 1.0 (it read 0.504: the unserved estimate counted as not local),
    and the estimate shows as `unserved_tokens`, in no token column."""
    with upstream(ReasonsOrAnswers) as local:
        config = config_for({"local": local}, tmp_path, {"idle_s": 30, "total_s": 60})
        with router(config) as proxy:
            failed = ledger_row(tmp_path / "ledger", _failing_responses_request(proxy.url))
            served = openai_client(proxy).chat.completions.with_raw_response.create(
                model="coding", messages=[{"role": "user", "content": ASK}]
            )
            ledger_row(tmp_path / "ledger", served.headers["x-request-id"])
    assert failed[0] == "upstream_error" and failed[1] > 0 and failed[3] is True
    argv = [SMF_ROUTER, "report", "--ledger", str(tmp_path / "ledger"), "--format", "json"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=True)
    totals = json.loads(done.stdout)["totals"]
    assert totals["local_share_tokens"] == 1.0
    assert (totals["prompt_tokens"], totals["completion_tokens"]) == (20, 5)
    assert (totals["unserved_requests"], totals["unserved_tokens"]) == (1, failed[1] + failed[2])
    assert totals["estimated_tokens"] == 0  # served with the backend's usage
    table = subprocess.run(argv[:-2], capture_output=True, text=True, timeout=120, check=True)
    assert f"{failed[1] + failed[2]:,} estimated token(s) of 1 request(s) no backend" in (
        " ".join(table.stdout.split())
    )


def test_tokens_of_a_request_no_backend_served_are_no_backends_in_the_metrics() -> None:
    """The per-backend token counters count what a backend served: an unserved estimate
    went to `backend="none"`, read as served traffic by any sum over backends or tiers."""
    metrics = Metrics(CollectorRegistry())
    unserved = Usage(prompt_tokens=30, completion_tokens=40, estimated=True)
    metrics.record_finished(
        local_coding_record(backend=None, tier=None, usage=unserved, outcome="upstream_error")
    )
    where = {"intent": "coding", "route": "coding", "backend": "none", "tier": "none"}
    for name in ("smf_router_prompt_tokens_total", "smf_router_completion_tokens_total"):
        assert metrics.registry.get_sample_value(name, where) == 0  # the series, at 0


def _both_failed(fallback: type[BaseHTTPRequestHandler], tmp_path: Path) -> Any:
    """The ledger row of a request that local (`ReasonsOrAnswers`) and then `fallback`
    failed, after checking that both were tried and neither served it."""
    with upstream(ReasonsOrAnswers) as local, upstream(fallback) as cloud:
        backends = {"local": local, "cloud": cloud}
        config = config_for(backends, tmp_path, {"idle_s": 30, "total_s": 60})
        with router(config) as proxy:
            records = collected(proxy)
            request_id = _failing_responses_request(proxy.url)
            record = records.wait(10)
            row = ledger_row(tmp_path / "ledger", request_id)
    assert [a.backend for a in record.attempts] == ["local", "cloud"]
    assert record.backend is None and row[1] > 0
    return row


@pytest.mark.usefixtures("long_grace")
def test_reasoning_held_by_a_failed_attempt_counts_when_the_fallback_fails_too(
    tmp_path: Path,
) -> None:
    """Local reasons and fails, the fallback refuses (a 404, nothing held): the estimate
    sums the attempts' held output. The last attempt's overwrote it: 0 tokens, not estimated."""
    row = _both_failed(NotFound, tmp_path)
    assert (row[2], row[3]) == (estimate_tokens(len(UNSENT)), True)


@pytest.mark.usefixtures("long_grace")
def test_reasoning_held_by_every_failed_attempt_is_summed(tmp_path: Path) -> None:
    """Both backends reason `UNSENT` and fail: the estimate counts both attempts' held
    output, not the larger one nor the last one's."""
    row = _both_failed(ReasonsOrAnswers, tmp_path)
    assert (row[2], row[3]) == (estimate_tokens(2 * len(UNSENT)), True)


@pytest.mark.usefixtures("long_grace")
def test_a_bug_after_a_fallback_committed_estimates_nothing_the_failed_attempt_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Local reasons and fails, the cloud commits, then a bug ends the request
    (`Gateway.abandon`): the served request's estimate holds no output of the local
    attempt. It kept the local's held reasoning, counted (and priced) as the cloud's."""

    async def bug(*args: object) -> None:
        raise RuntimeError("a bug relaying the reply")

    monkeypatch.setattr(front, "_stream", bug)
    with (
        upstream(ReasonsOrAnswers) as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        config = config_for({"local": local, "cloud": cloud}, tmp_path, {"idle_s": 30})
        with router(config) as proxy:
            records = collected(proxy)
            data = {"model": "coding", "stream": True, "input": f"FAIL {ASK}"}
            with contextlib.suppress(httpx.HTTPError):
                httpx.post(f"{proxy.url}/responses", json=data, timeout=30)
            record = records.wait(10)
            row = ledger_row(tmp_path / "ledger", record.request_id)
    assert [a.backend for a in record.attempts] == ["local", "cloud"]
    assert (record.backend, row[0]) == ("cloud", "router_error")
    assert row[1] > 0 and row[2] == 0  # the prompt, estimated; no output of the local's
