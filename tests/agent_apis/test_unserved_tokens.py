"""Requests no backend served: what their attempts generated before failing uncommitted is
estimated (`Call.unsent_chars`) and kept apart from what backends served (the report's
`unserved_tokens`, no per-backend token counter), and a Responses turn of nothing but the
router's own reasoning items (which no backend is sent) is refused by the router, before any
attempt."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import httpx
import openai
import orjson
import pytest
from prometheus_client import CollectorRegistry

from router import request
from router.api import front
from router.config import parse
from router.errors import BadRequest
from router.metrics import Metrics
from router.record import Usage
from router.request_size import estimate_tokens
from router.translate import keep_alive, native_responses
from tests.agent_apis.agent_stack import openai_client
from tests.agent_apis.chat_chunks import chunk
from tests.agent_apis.test_agent_messages_over_chat import ledger_row
from tests.agent_apis.test_agent_messages_reasoning import FAILURES, UNSENT, _sse
from tests.harness import collected, config_for, router, simulator, upstream
from tests.observability.test_router_metrics import local_coding_record

SMF_ROUTER = str(Path(sys.executable).parent / "smf-router")
ASK = "Write a Python function that reverses a list."
SERVED_USAGE = {"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25}


class ReasonsOrAnswers(BaseHTTPRequestHandler):
    """A chat upstream: a prompt saying FAIL gets `UNSENT` reasoning, then an error event
    (nothing commits in a 300 s grace); any other a whole answer with its usage."""

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        self.send_response(200)
        if b"FAIL" in body:
            self.send_header("content-type", "text/event-stream")
            self.end_headers()  # HTTP/1.0: the body ends with the connection
            reasoning = _sse(chunk({"role": "assistant", "reasoning": UNSENT}))
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
        data = orjson.dumps(answer)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


class NotFound(BaseHTTPRequestHandler):
    """A fallback that refuses every request with a 404 before any output."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        data = orjson.dumps({"error": {"message": "no such model", "type": "not_found"}})
        self.send_response(404)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def long_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(keep_alive, "REASONING_GRACE_S", 300.0)  # nothing commits


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


@pytest.mark.usefixtures("long_grace")
def test_reasoning_held_by_a_failed_attempt_counts_when_the_fallback_fails_too(
    tmp_path: Path,
) -> None:
    """Local reasons and fails, the fallback refuses (a 404, nothing held): the estimate
    sums the attempts' held output. The last attempt's overwrote it: 0 tokens, not estimated."""
    with upstream(ReasonsOrAnswers) as local, upstream(NotFound) as cloud:
        backends = {"local": local, "cloud": cloud}
        config = config_for(backends, tmp_path, {"idle_s": 30, "total_s": 60})
        with router(config) as proxy:
            records = collected(proxy)
            request_id = _failing_responses_request(proxy.url)
            record = records.wait(10)
            row = ledger_row(tmp_path / "ledger", request_id)
    assert [a.backend for a in record.attempts] == ["local", "cloud"]
    assert record.backend is None and row[1] > 0
    assert (row[2], row[3]) == (estimate_tokens(len(UNSENT)), True)


OWN = {"type": "reasoning", "id": "rs_smf_chatcmpl-1_0", "summary": [], "content": []}


def test_an_input_of_only_the_routers_reasoning_items_is_refused() -> None:
    with pytest.raises(BadRequest, match="router made") as refused:
        request.validate("responses", {"model": "cloud", "input": [OWN, OWN]})
    assert refused.value.param == "input"
    assert native_responses.for_native({"model": "cloud", "input": [OWN, "hi"]})["input"] == ["hi"]


def test_a_chat_first_route_refuses_it_before_any_attempt(tmp_path: Path) -> None:
    """Refused per attempt, a chat backend first in the route was sent `{"messages": []}`
    and its 400 relayed as the backend's rejected attempt. The router refuses it before
    any, whatever the backends speak: no attempt, no request sent."""
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        data: dict[str, Any] = config_for({"local": local, "cloud": cloud}, tmp_path).model_dump(
            mode="json"
        )
        data["backends"][0]["apis"] = ["chat"]  # local, first: translated
        data["backends"][1]["apis"] = ["chat", "responses"]  # cloud: Responses itself
        with router(parse(data)) as proxy:
            records = collected(proxy)
            with pytest.raises(openai.BadRequestError) as refused:
                openai_client(proxy).responses.create(model="coding", input=[OWN])  # type: ignore[list-item]
            record = records.wait(10)
            sent = [sim.stats().get("requests") for sim in (local, cloud)]
    error = refused.value.body
    assert isinstance(error, dict)
    assert (error["param"], error["type"]) == ("input", "invalid_request_error")
    assert "reasoning items the router made" in error["message"]
    assert record.attempts == [] and record.backend is None
    assert sent == [0, 0]


def test_a_native_turn_left_with_no_input_gets_the_routers_own_400(tmp_path: Path) -> None:
    """Dropping the router's reasoning items left `input: []`, and the backend answered
    "input: Field required", a field the client had sent. The router answers itself, in
    OpenAI's shape, naming `input`, and sends the backend nothing."""
    with simulator(profile="cloud", model="cloud-model") as cloud:
        data: dict[str, Any] = config_for({"cloud": cloud}, tmp_path).model_dump(mode="json")
        data["backends"][0]["apis"] = ["chat", "responses"]  # Responses itself
        with router(parse(data)) as proxy:
            before = cloud.stats().get("requests")
            with pytest.raises(openai.BadRequestError) as refused:
                openai_client(proxy).responses.create(model="cloud", input=[OWN])  # type: ignore[list-item]
            after = cloud.stats().get("requests")
    error = refused.value.body
    assert isinstance(error, dict)
    assert error["param"] == "input" and error["type"] == "invalid_request_error"
    assert "reasoning items the router made" in error["message"]
    assert before == after  # the backend got nothing


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
