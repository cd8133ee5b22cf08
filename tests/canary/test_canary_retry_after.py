"""A quality gate holding a private request's only local backend: the 503 says the canary
closed it, and to come back at the canary's next run, whose results may open it again (no
time while a run is under way: it may open the gate as soon as it ends). It
said `local: quality_gate` alone, with no `Retry-After`, and the client's SDK retried at
once, twice, what only a canary run can change. Real router and simulators on 127.0.0.1."""

from __future__ import annotations

import math
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import anthropic
import httpx
import openai
import pytest

from evals.suite import SHIPPED
from tests.canary.servers import router, simulator
from tests.harness import RunningRouter, config_for, scrape
from tests.resilience.conftest import FAST, until

MATH = [{"role": "user", "content": "Compute the sum of 1234 and 4321."}]
PRIVATE = {"x-smf-private": "1"}
INTERVAL_S = 300.0


def _canary(r: RunningRouter) -> dict[str, Any]:
    section: dict[str, Any] = httpx.get(f"{r.root}/v1/router/status", timeout=5).json()
    return dict(section["extra"]["canary"])


def _next_run_in(r: RunningRouter) -> float:
    at = datetime.fromisoformat(_canary(r)["next_run_at"].replace("Z", "+00:00"))
    return at.timestamp() - time.time()


def _ask(r: RunningRouter) -> httpx.Response:
    body = {"model": "auto", "messages": MATH}
    return httpx.post(f"{r.url}/chat/completions", json=body, headers=PRIVATE, timeout=10)


@pytest.mark.parametrize("resilience", [False, True], ids=["gated-states", "resilience"])
def test_a_gated_private_request_is_told_the_canary_closed_it_and_when_it_runs(
    tmp_path: Path, resilience: bool
) -> None:
    with (
        simulator(profile="vllm", model="local-model", quality={"math": 0.0}) as local,
        simulator(profile="cloud", model="cloud-model", ttft_s=3.0) as cloud,  # a long round
    ):
        config = config_for(
            {"local": local, "cloud": cloud},
            tmp_path,
            resilience={**FAST, "enabled": True} if resilience else {"enabled": False},
            canary={
                "enabled": True,
                "interval_s": INTERVAL_S,
                "suites": str(SHIPPED / "math"),
                "sample_per_suite": 3,
                "window": 6,
                "min_samples": 3,
                "floors": {"math": 0.4},
            },
        )
        with router(config) as r:
            until(lambda: "math" in _canary(r)["gated"].get("local", []), what="local gated")
            during = _ask(r)  # cloud's round goes on: this run may open the gate when it ends
            assert _canary(r)["running_since"] is not None
            until(lambda: _canary(r)["running_since"] is None, what="the first run over")
            before = _next_run_in(r)
            refused = _ask(r)
            after = _next_run_in(r)
            client = openai.OpenAI(
                base_url=r.url, api_key="none", max_retries=2, default_headers=PRIVATE
            )
            with pytest.raises(openai.APIStatusError) as raised:
                client.chat.completions.create(model="auto", messages=MATH)  # type: ignore[arg-type]
            claude = anthropic.Anthropic(
                base_url=r.root, api_key="none", max_retries=2, default_headers=PRIVATE
            )
            began = time.monotonic()
            with pytest.raises(anthropic.APIStatusError) as messages:
                claude.messages.create(model="auto", max_tokens=64, messages=MATH)  # type: ignore[arg-type]
            waited = time.monotonic() - began
            refusals = scrape(r.root).get(
                "smf_router_errors_total",
                intent="math",
                outcome="upstream_error",
                kind="no_backend_available",
            )
    assert during.status_code == 503, during.text
    assert "retry-after" not in during.headers and "x-should-retry" not in during.headers
    assert "retry in" not in during.json()["error"]["message"]
    assert refused.status_code == 503, refused.text
    assert refused.headers["x-smf-intent"] == "math"
    seconds = int(refused.headers["retry-after"])  # ms in the status: a second either way
    assert math.ceil(after) - 1 <= seconds <= math.ceil(before) + 1 <= INTERVAL_S + 1
    # too long for the SDKs to wait out: the TypeScript ones would retry at once, in vain
    assert refused.headers["x-should-retry"] == "false"
    message = refused.json()["error"]["message"]
    assert "the canary closed the quality gate of route 'math' on 'local'" in message
    assert f"retry in {seconds} s" in message
    # one refusal each, not three: the OpenAI SDK does not retry a wait over its 2 min, and
    # the Anthropic one, which waits whatever it is told, does not sleep through it either
    assert raised.value.status_code == 503 and messages.value.status_code == 503
    assert waited < 30
    assert refusals == 4  # with the two by httpx
