"""Every backend a plan passed over is in the request's ledger row, as a `skipped` attempt
naming why (the plan's reason, as explain names it): a 503 `no_backend_available` row had
`attempts` empty, and a request the cloud served while local's circuit was open named the
cloud alone, so an operator reading the ledger could not tell why nothing served it, nor
what was considered. Skipped attempts never ran: `n_attempts`, `x-smf-attempts`, the
metrics and the report's fallbacks count none. Through the real app: a router over two
simulators, the official openai SDK, the ledger's own files read with DuckDB."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import openai
import pytest

from router.report import build
from tests.harness import Running, RunningRouter, config_for, router, scrape, sdk
from tests.resilience.conftest import CODING, FAST, chat, circuit, ledger_row, until

PRIVATE = {"x-smf-private": "1"}
COLUMNS = ("status", "outcome", "error_kind", "backend", "n_attempts", "fallbacks", "attempts")


def _written(proxy: RunningRouter, request_id: str) -> dict[str, Any]:
    until(
        lambda: ledger_row(proxy, request_id, COLUMNS) is not None, what="the request's ledger row"
    )
    row = ledger_row(proxy, request_id, COLUMNS)
    assert row is not None
    return row


def _attempts_total(proxy: RunningRouter) -> dict[tuple[str, str], float]:
    """`smf_router_attempts_total` summed by (backend, outcome)."""
    totals: dict[tuple[str, str], float] = {}
    for (name, labels), value in scrape(proxy.root).samples.items():
        if name == "smf_router_attempts_total":
            key = (dict(labels)["backend"], dict(labels)["outcome"])
            totals[key] = totals.get(key, 0.0) + value
    return totals


def test_every_backend_the_plan_passed_over_is_a_skipped_attempt_with_its_reason(
    pair: dict[str, Running], tmp_path: Path
) -> None:
    resilience = {**FAST, "open_s": 60.0, "max_open_s": 60.0}  # open for the whole test
    with router(config_for(pair, tmp_path, resilience=resilience)) as proxy:
        pair["local"].control("faults", {"down": True, "for_s": 120.0})
        for _ in range(3):  # private: local alone may serve, and it fails until it opens
            chat(proxy.url, headers=PRIVATE)
        until(lambda: circuit(proxy.root, "local") == "open", what="local's circuit open")
        before = _attempts_total(proxy)
        client = sdk(proxy)
        messages: Any = CODING
        with pytest.raises(openai.APIStatusError) as refused:
            client.chat.completions.create(model="coding", messages=messages, extra_headers=PRIVATE)
        detoured = client.chat.completions.with_raw_response.create(
            model="coding", messages=messages
        )
        refused_row = _written(proxy, refused.value.response.headers["x-request-id"])
        served_row = _written(proxy, detoured.headers["x-request-id"])
        after = _attempts_total(proxy)
        report = build(Path(proxy.components.config.ledger.path))
    assert refused.value.status_code == 503
    assert refused.value.code == "no_backend_available"
    assert refused.value.response.headers["x-smf-attempts"] == "0"
    assert refused_row["attempts"] == [
        ("local", "skipped", "circuit_open"),
        ("cloud", "skipped", "private"),
    ]
    assert (refused_row["status"], refused_row["error_kind"]) == (503, "no_backend_available")
    assert (refused_row["backend"], refused_row["n_attempts"], refused_row["fallbacks"]) == (
        None,
        0,
        0,
    )
    # served by the cloud past local's open circuit: the skip is recorded there too
    assert detoured.headers["x-smf-backend"] == "cloud"
    assert detoured.headers["x-smf-attempts"] == "1"
    assert served_row["attempts"] == [("local", "skipped", "circuit_open"), ("cloud", "ok", None)]
    assert (served_row["n_attempts"], served_row["fallbacks"]) == (1, 0)
    # counted as no try: the cloud's one call, no `skipped` series, nothing more for local
    assert not any(outcome == "skipped" for _, outcome in after)
    assert after[("cloud", "ok")] - before.get(("cloud", "ok"), 0.0) == 1.0
    assert after[("local", "error")] == before[("local", "error")]
    assert after.get(("local", "ok"), 0.0) == before.get(("local", "ok"), 0.0)
    # the report's fallbacks: none of these rows moved from one backend to another
    assert report["totals"]["fallback_rate"] == 0.0
