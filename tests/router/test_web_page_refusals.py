"""A web page's refused request writes nothing of its own: no ledger row, no log line each.

On a keyless router (the desk default) every caller is `anonymous`, so a request refused
because a web page sent it was recorded as an API client's refusal is: a ledger row, a JSON
request line and an `errors_total` count each. Any page the user opened could fill the
ledger and the log (20,000 POSTs wrote 20,002 log lines and made the report's error rate
0.9998; found in review). Now such a request is only counted in `rejected_requests_total`,
and said in one line per reason now and then; an API client's refusals are still recorded.

Through `smf-router serve` as a real process: its log as written, its ledger read back by
`smf-router report` and with DuckDB after it drained and exited.
"""

from __future__ import annotations

import gzip
import json
import subprocess
from pathlib import Path
from typing import Any

import httpx

from classifier.intent import INTENTS
from router.ledger import Ledger
from tests.harness import VENV_BIN, scrape
from tests.processes import router_process

CHAT, MESSAGES = "/v1/chat/completions", "/v1/messages"
BODY = b'{"model": "auto", "messages": [{"role": "user", "content": "hi"}]}'
EVIL = "https://evil.example"
PAGE = {"origin": EVIL, "content-type": "text/plain"}  # a simple request: no preflight
FLOOD = 150
CONFIG: dict[str, Any] = {  # no keys: every caller is `anonymous`
    "backends": [
        {"name": "local", "tier": "local", "base_url": "http://127.0.0.1:9/v1", "model": "m"}
    ],
    "routes": {intent: ["local"] for intent in INTENTS},
}


def test_a_flood_of_web_pages_requests_leaves_no_row_and_a_line_per_reason(
    tmp_path: Path,
) -> None:
    ledger = tmp_path / "ledger"
    config = {**CONFIG, "ledger": {"path": str(ledger), "flush_interval_s": 0.2}}
    with router_process(config, tmp_path) as (proxy, process):
        log = tmp_path / f"router-{proxy.root.rsplit(':', 1)[1]}.log"
        with httpx.Client(base_url=proxy.root, trust_env=False, timeout=30) as client:
            pages = [client.post(CHAT, content=BODY, headers=PAGE) for _ in range(FLOOD)]
            rebound = client.post(
                MESSAGES,
                content=BODY,
                headers={"host": "rebind.evil.example:4000", "content-type": "text/plain"},
            )
            admin = client.post("/v1/router/reload", headers={"origin": EVIL})
            # an API client's refusals: recorded, as before
            unknown = client.post(CHAT, content=BODY.replace(b"auto", b"gpt-17"))
            compressed = client.post(
                MESSAGES,
                content=gzip.compress(BODY),
                headers={"content-encoding": "gzip", "content-type": "application/json"},
            )
        metrics = scrape(proxy.root)
    assert process.returncode == 0
    assert {p.status_code for p in pages} == {403} and all(
        p.headers.get("x-request-id") for p in pages
    )  # the id still names the refusal, for the client
    assert (rebound.status_code, rebound.json()["type"]) == (403, "error")  # Anthropic's shape
    assert admin.status_code == 403
    assert (unknown.status_code, compressed.status_code) == (404, 415)

    rejected = "smf_router_rejected_requests_total"
    assert metrics.get(rejected, api="chat", status="403") == FLOOD
    assert metrics.get(rejected, api="messages", status="403") == 1
    assert metrics.get(rejected, api="other", status="403") == 1
    forbidden = {"intent": "none", "outcome": "client_error", "kind": "forbidden"}
    assert (metrics.get("smf_router_errors_total", **forbidden) or 0) == 0

    with Ledger(ledger) as read:
        rows = read.sql("SELECT status, error_kind, caller FROM records ORDER BY status")
    assert rows == [
        (404, "model_not_found", "anonymous"),
        (415, "unsupported_content_encoding", "anonymous"),
    ]
    report = subprocess.run(
        [VENV_BIN / "smf-router", "report", "--ledger", ledger, "--format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    totals = json.loads(report.stdout)["totals"]
    assert (totals["requests"], totals["refused"]) == (2, 2)

    text = log.read_text()
    lines = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    requests = [line for line in lines if line.get("event") == "request"]
    assert sorted(line["status"] for line in requests) == [404, 415]
    said = [line for line in lines if "from a web page" in line["msg"]]
    assert [line["level"] for line in said] == ["warning", "warning"]  # one per reason
    assert "cross-origin" in said[0]["msg"] and "loopback" in said[1]["msg"]
    assert "evil.example" not in text  # the page chose its Origin and Host: never written
