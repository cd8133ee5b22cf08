"""A request the router refuses before classifying it leaves one ledger row, and its error
reply names that row with `x-request-id` (found in review: such refusals only moved a
label-only counter, and their replies carried no id at all, not even the client's own).

Through the real app on a socket, with httpx and the openai SDK, read back from the real
ledger files with DuckDB. How the report counts such rows: test_refused_report.py.
"""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import openai
import pytest

from router.api import body as body_module
from tests.harness import RunningRouter, scrape
from tests.router.refused_rows import (
    ASK,
    CHAT,
    KEY,
    MESSAGES,
    PROMPT,
    RESPONSES,
    WRONG,
    auth,
    refusing_router,
    rows,
    the_row,
)


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningRouter]:
    with refusing_router(tmp_path_factory.mktemp("refused")) as running:
        yield running


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
    Case(  # OpenAI's bound on the choices asked (`n`), refused before any backend
        "too-many-choices",
        CHAT,
        {"model": "auto", "messages": ASK, "n": 129},
        400,
        "invalid_request",
        "auto",
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
