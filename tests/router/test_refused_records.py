"""A request the router refuses before classifying it leaves one ledger row, and its error
reply names that row with `x-request-id` (found in review: such refusals only moved a
label-only counter, and their replies carried no id at all, not even the client's own).

Through the real app on a socket, with httpx and the openai SDK, read back from the real
ledger files with DuckDB.
"""

from __future__ import annotations

import csv
import io
import json
import re
import socket
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from router.api import body as body_module
from router.config import hash_key
from router.ledger import Ledger, LedgerWriter
from router.record import Record
from router.report import build
from router.report_render import to_csv
from tests.harness import RunningRouter, config_for, router, scrape, simulator
from tests.ledger.known_ledger import known_records, write_known_ledger

KEY, WRONG = "sk-team-alice-3f9a", "sk-wrong-key-7c1e"
PROMPT = "the launch codes are 0000"  # never in a refusal's row, store_text or not
ASK = [{"role": "user", "content": PROMPT}]
CHAT, MESSAGES, RESPONSES = "/v1/chat/completions", "/v1/messages", "/v1/responses"
COLUMNS = (
    "request_id, api, caller, requested_model, intent, route, backend, tier, status, outcome,"
    " error_kind, n_attempts, prompt_tokens, completion_tokens, cost_usd, private, conversation"
)


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningRouter]:
    tmp = tmp_path_factory.mktemp("refused")
    with simulator(profile="vllm", model="local-model") as local:
        config = config_for(
            {"local": local},
            tmp,
            auth={"keys": [{"name": "alice", "sha256": hash_key(KEY)}]},
            server={"max_body_bytes": 64 * 1024},
            ledger={"path": str(tmp / "ledger"), "flush_interval_s": 0.2, "store_text": True},
        )
        with router(config) as running:
            served = httpx.post(
                running.root + CHAT, json={"model": "local", "messages": ASK}, headers=auth(KEY)
            )
            assert served.status_code == 200  # a served row (and a texts table) beside them
            yield running


def auth(key: str | None, **more: str) -> dict[str, str]:
    return {"authorization": f"Bearer {key}", **more} if key else dict(more)


def rows(proxy: RunningRouter, request_id: str, refused: bool = True) -> list[dict[str, Any]]:
    """The records rows with this id, read from the ledger's files; a refused one's with no
    text, nor a key or the prompt in any column."""
    assert proxy.components.ledger is not None
    proxy.components.ledger.flush()
    with Ledger(Path(proxy.components.config.ledger.path)) as ledger:
        found = ledger.sql(f"SELECT {COLUMNS} FROM records WHERE request_id = ?", [request_id])
        whole = ledger.sql("SELECT * FROM records WHERE request_id = ?", [request_id])
        texts = ledger.sql("SELECT count(*) FROM texts WHERE request_id = ?", [request_id])
    if refused:
        assert texts == [(0,)]  # no prompt text, though store_text is on
    for row in whole:
        assert KEY not in str(row) and WRONG not in str(row) and PROMPT not in str(row)
    names = [c.strip() for c in COLUMNS.split(",")]
    return [dict(zip(names, row, strict=True)) for row in found]


def the_row(proxy: RunningRouter, reply: httpx.Response, sent: str | None) -> dict[str, Any]:
    """The one row the reply's `x-request-id` names: the client's own id when it sent one."""
    request_id = reply.headers.get("x-request-id")
    assert request_id, "the error reply carries no x-request-id"
    if sent is not None:
        assert request_id == sent
    else:
        assert re.fullmatch(r"[0-9a-f]{32}", request_id)
    (row,) = rows(proxy, request_id)
    return row


@dataclass(frozen=True)
class Case:
    name: str
    path: str
    body: Any  # JSON, or bytes sent as they are
    status: int
    kind: str
    model: str = ""  # the row's requested_model
    key: str | None = KEY
    caller: str = "alice"
    headers: dict[str, str] = field(default_factory=dict)
    recorded: bool = True  # a refused key or web page is only counted: no row for either


BODY = {"model": "auto", "messages": ASK}
CASES = [
    Case("malformed", CHAT, b'{"model":', 400, "invalid_request"),
    Case("wrong-type", CHAT, {"model": "auto", "messages": PROMPT}, 400, "invalid_request", "auto"),
    Case(  # clipped, as every record's model
        "unknown-model",
        MESSAGES,
        {"model": "m" * 300, "max_tokens": 5, "messages": ASK},
        404,
        "model_not_found",
        "m" * 200,
    ),
    Case("wrong-key", CHAT, BODY, 401, "", key=WRONG, recorded=False),
    Case(
        "no-key", RESPONSES, {"model": "auto", "input": PROMPT}, 401, "", key=None, recorded=False
    ),
    Case(  # not read: its declared length is over the limit
        "too-large",
        CHAT,
        {"model": "auto", "messages": [{"role": "user", "content": "a" * 70_000}]},
        413,
        "request_too_large",
    ),
    Case(  # refused unread, only counted: on a keyless router any page could fill the ledger
        "web-page",
        CHAT,
        BODY,
        403,
        "forbidden",
        headers={"origin": "https://attacker.example"},
        recorded=False,
    ),
    Case(  # refused unread: nothing in front of the router decodes a compressed body
        "compressed",
        MESSAGES,
        BODY,
        415,
        "unsupported_content_encoding",
        headers={"content-encoding": "gzip"},
    ),
    Case(
        "completions",
        "/v1/completions",
        {"model": "local", "prompt": PROMPT, "max_tokens": "many"},
        400,
        "invalid_request",
        "local",
    ),
]


@pytest.mark.parametrize("own_id", [True, False], ids=["client-id", "no-id"])
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_each_refusal_leaves_one_row_its_reply_names(
    proxy: RunningRouter, case: Case, own_id: bool
) -> None:
    sent = f"rej-{case.name}" if own_id else None
    headers = auth(case.key, **case.headers, **({"x-request-id": sent} if sent else {}))
    headers["content-type"] = "application/json"
    body = case.body if isinstance(case.body, bytes) else json.dumps(case.body).encode()
    reply = httpx.post(proxy.root + case.path, content=body, headers=headers, timeout=30)
    assert reply.status_code == case.status, reply.text
    if case.path == MESSAGES:
        assert reply.json()["type"] == "error"  # still Anthropic's envelope
    if not case.recorded:  # the id still names the refusal, for the log and the client
        assert reply.headers["x-request-id"] == (sent or reply.headers["x-request-id"])
        assert rows(proxy, reply.headers["x-request-id"]) == []
        return
    row = the_row(proxy, reply, sent)
    apis = {CHAT: "chat", MESSAGES: "messages", RESPONSES: "responses"}
    assert row == {
        "request_id": reply.headers["x-request-id"],
        "api": apis.get(case.path, "completions"),
        "caller": case.caller,
        "requested_model": case.model,
        "intent": "",
        "route": "",
        "backend": None,
        "tier": None,
        "status": case.status,
        "outcome": "client_error",
        "error_kind": case.kind,
        "n_attempts": 0,
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "cost_usd": 0.0,
        "private": False,
        "conversation": None,
    }


def test_the_sdk_reads_the_rows_id_from_each_refusal(proxy: RunningRouter) -> None:
    """What a user quotes to the operator: the SDK's `request_id` of the error it raised."""
    bad = openai.OpenAI(base_url=proxy.url, api_key=WRONG, max_retries=0)
    good = openai.OpenAI(base_url=proxy.url, api_key=KEY, max_retries=0)
    with pytest.raises(openai.AuthenticationError) as refused_key:
        bad.chat.completions.create(model="auto", messages=ASK)  # type: ignore[arg-type]
    with pytest.raises(openai.NotFoundError) as unknown:
        good.chat.completions.create(
            model="gpt-17",
            messages=ASK,  # type: ignore[arg-type]
            extra_headers={"x-request-id": "ticket-4711"},
        )
    with pytest.raises(openai.BadRequestError) as empty:
        good.chat.completions.create(model="auto", messages=[], stream=True)
    assert unknown.value.request_id == "ticket-4711"
    assert refused_key.value.request_id and rows(proxy, refused_key.value.request_id) == []
    found = [rows(proxy, str(e.value.request_id)) for e in (unknown, empty)]
    assert [(r["caller"], r["status"], r["error_kind"]) for (r,) in found] == [
        ("alice", 404, "model_not_found"),
        ("alice", 400, "invalid_request"),
    ]
    assert found[0][0]["requested_model"] == "gpt-17"


def test_a_privacy_switch_it_could_not_read_is_recorded_as_private(proxy: RunningRouter) -> None:
    body = {"model": "auto", "messages": ASK}
    reply = httpx.post(
        proxy.url + "/chat/completions",
        json=body,
        headers=auth(KEY, **{"x-smf-private": "maybe"}),
        timeout=10,
    )
    assert reply.status_code == 400
    row = the_row(proxy, reply, None)
    assert (row["private"], row["error_kind"], row["requested_model"]) == (
        True,
        "invalid_request",
        "auto",
    )


def test_a_body_over_the_limit_without_a_length_leaves_a_row(proxy: RunningRouter) -> None:
    """Chunked, so refused while read rather than by its declared length."""

    def chunks() -> Iterator[bytes]:
        yield b'{"model": "auto", "messages": [{"role": "user", "content": "'
        for _ in range(80):
            yield b"a" * 1024
        yield b'"}]}'

    reply = httpx.post(
        proxy.url + "/chat/completions",
        content=chunks(),
        headers=auth(KEY, **{"x-request-id": "rej-chunked"}),
        timeout=10,
    )
    assert reply.status_code == 413
    row = the_row(proxy, reply, "rej-chunked")
    assert (row["caller"], row["error_kind"], row["requested_model"]) == (
        "alice",
        "request_too_large",
        "",
    )


def test_a_body_that_stops_arriving_leaves_a_408_row(
    proxy: RunningRouter, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(body_module, "BODY_STALL_S", 0.5)
    head = (
        f"POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer {KEY}"
        "\r\nx-request-id: rej-stalled\r\ncontent-type: application/json\r\n"
        "content-length: 100\r\n\r\n"
    ).encode()
    with socket.create_connection(("127.0.0.1", int(proxy.root.rpartition(":")[2]))) as client:
        client.settimeout(10)
        client.sendall(head + b'{"model":')  # and then nothing
        answer = b""
        while chunk := client.recv(4096):  # until the router closes the connection
            answer += chunk
    status, _, rest = answer.partition(b"\r\n")
    assert status == b"HTTP/1.1 408 Request Timeout"
    assert b"x-request-id: rej-stalled" in rest.lower()
    (row,) = rows(proxy, "rej-stalled")
    assert (row["status"], row["caller"], row["error_kind"]) == (408, "alice", "request_timeout")


def test_a_bug_before_the_plan_leaves_a_router_error_row(
    proxy: RunningRouter, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any, **kwargs: Any) -> None:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(proxy.components.gateway, "prepare", broken)
    reply = httpx.post(
        proxy.url + "/chat/completions",
        json={"model": "auto", "messages": ASK},
        headers=auth(KEY, **{"x-request-id": "rej-bug"}),
        timeout=10,
    )
    assert reply.status_code == 500
    row = the_row(proxy, reply, "rej-bug")
    assert (row["outcome"], row["status"], row["requested_model"]) == ("router_error", 500, "auto")


def test_a_refusal_counts_once_per_family(proxy: RunningRouter) -> None:
    """In `requests_total` and `errors_total` as a client error with no intent, route or
    backend, and once in `rejected_requests_total`, which adds its status."""
    requests = {
        "intent": "none",
        "route": "none",
        "backend": "none",
        "tier": "none",
        "outcome": "client_error",
        "stream": "false",
    }
    errors = {"intent": "none", "outcome": "client_error", "kind": "invalid_request"}

    def counts(status: str) -> tuple[float, float, float]:
        now = scrape(proxy.root)
        return (
            now.get("smf_router_requests_total", **requests) or 0.0,
            now.get("smf_router_errors_total", **errors) or 0.0,
            now.get("smf_router_rejected_requests_total", api="chat", status=status) or 0.0,
        )

    before = counts("400")
    reply = httpx.post(proxy.url + "/chat/completions", json={}, headers=auth(KEY), timeout=10)
    assert reply.status_code == 400
    assert [b - a for a, b in zip(before, counts("400"), strict=True)] == [1, 1, 1]
    before = counts("401")  # a refused key: its counter only, as it has no record
    reply = httpx.post(proxy.url + "/chat/completions", json={}, headers=auth(WRONG), timeout=10)
    assert reply.status_code == 401
    assert [b - a for a, b in zip(before, counts("401"), strict=True)] == [0, 0, 1]


def test_refusals_off_the_model_apis_carry_an_id_and_leave_no_row(proxy: RunningRouter) -> None:
    """count_tokens, models and admin paths record no request, refused or not; their errors
    still carry the client's id, and are counted as `other`."""
    before = scrape(proxy.root).get("smf_router_rejected_requests_total", api="other", status="400")
    reply = httpx.post(
        proxy.url + "/messages/count_tokens",
        json={"messages": ASK},
        headers=auth(KEY, **{"x-request-id": "rej-count"}),
        timeout=10,
    )
    assert (reply.status_code, reply.headers["x-request-id"]) == (400, "rej-count")
    assert rows(proxy, "rej-count") == []
    after = scrape(proxy.root).get("smf_router_rejected_requests_total", api="other", status="400")
    assert (after or 0) - (before or 0) == 1
    models = httpx.get(proxy.url + "/models", headers=auth(WRONG), timeout=10)
    assert models.status_code == 401
    assert re.fullmatch(r"[0-9a-f]{32}", models.headers["x-request-id"])


def test_the_report_counts_refusals_as_errors_without_cost_or_latency(
    proxy: RunningRouter,
) -> None:
    refused = httpx.post(proxy.url + "/chat/completions", json={}, headers=auth(KEY), timeout=10)
    assert refused.status_code == 400
    assert rows(proxy, refused.headers["x-request-id"])  # flushed
    report = build(Path(proxy.components.config.ledger.path), by="route")
    (none,) = [g for g in report["groups"] if g["key"] == "(none)"]
    assert none["requests"] >= 1 and none["error_rate"] == 1.0
    assert none["cloud_usd"] == none["local_usd"] == none["counterfactual_usd"] == 0
    assert none["prompt_tokens"] == none["completion_tokens"] == 0
    assert {entry["backend"] for entry in report["latency"]} == {"local"}  # the served one
    by_intent = build(Path(proxy.components.config.ledger.path), by="intent")
    assert "(none)" in {g["key"] for g in by_intent["groups"]} and "" not in {
        g["key"] for g in by_intent["groups"]
    }


def test_a_bug_after_the_plan_answers_500_with_the_rows_id(
    proxy: RunningRouter, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not a refusal: the gateway's record exists and is finished; the 500 names it too."""

    async def broken(*args: Any, **kwargs: Any) -> None:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(proxy.components.gateway.dispatcher, "execute", broken)
    reply = httpx.post(
        proxy.url + "/chat/completions",
        json={"model": "local", "messages": ASK},
        headers=auth(KEY, **{"x-request-id": "bug-dispatch"}),
        timeout=10,
    )
    assert reply.status_code == 500
    assert reply.headers["x-smf-route"]  # the decision headers, as on any planned answer
    (row,) = rows(proxy, reply.headers["x-request-id"], refused=False)
    assert reply.headers["x-request-id"] == "bug-dispatch"
    assert (row["outcome"], row["status"], row["route"]) == ("router_error", 500, "local")


def test_refusals_do_not_dilute_the_local_share_or_the_fallback_rate(tmp_path: Path) -> None:
    """The report divided the local share and the fallback rate by every request, refused
    ones included: a client's stream of bad requests read as traffic leaving the local box
    (found in review; the dashboards already left them out)."""
    plain = build(write_known_ledger(tmp_path / "plain"))["totals"]
    writer = LedgerWriter(tmp_path / "refused", process_tag="refused")
    for record in known_records():
        writer.submit(record)
    started = known_records()[0].started_at
    for n in range(6):  # a client's bad bodies: no route, no backend
        refused = Record(request_id=f"bad{n}", started_at=started, caller="alice")
        refused.outcome, refused.error_kind, refused.status = "client_error", "invalid_request", 400
        writer.submit(refused)
    writer.close()
    report = build(tmp_path / "refused")
    totals = report["totals"]
    assert (totals["requests"], totals["refused"]) == (plain["requests"] + 6, 6)
    shares = ("local_share_requests", "local_share_tokens", "fallback_rate")
    assert [totals[k] for k in shares] == [plain[k] for k in shares]
    assert totals["error_rate"] > plain["error_rate"]  # refusals are errors all the same
    assert sum(day["requests"] for day in report["local_share"]) == plain["requests"]
    total = list(csv.DictReader(io.StringIO(to_csv(report))))[-1]  # the CSV says it too
    assert (total["route"], total["refused"]) == ("TOTAL", "6")
