"""A backend waiting out both a 429's `Retry-After` and an overloaded 503's is away for the
one that ends later, and everything that names why says that one: the plan's skip reason
(explain, the ledger row, `smf_router_backend_skips_total`) and the client's answer.

Named in a fixed order (the 429's first), a 30 s rate limit beside a 600 s overload told
the client 429 `rate_limit_exceeded`, `Retry-After: 600`, "'cloud' answered a rate limit
... retry in 600 s": the kind of one wait with the time of the other (found in review).
Real sockets: the router and two simulators, the official openai SDK, the ledger's files.
"""

from __future__ import annotations

import threading
from pathlib import Path

import httpx
import openai
import pytest

from tests.harness import INTENTS, config_for, router, scrape, sdk, simulator
from tests.resilience.conftest import CODING, FAST, backend_state, chat, ledger_row, until

COLUMNS = ("status", "outcome", "error_kind", "n_attempts", "attempts")
# The held request must wait at local for as long as the test takes, not time out there.
HELD = {"connect_s": 2, "first_token_s": 60, "idle_s": 60, "total_s": 90}


def test_a_backend_waiting_out_a_429_and_a_longer_503_is_told_as_overloaded(
    tmp_path: Path,
) -> None:
    """A coding request waits at local (held) with the cloud next in its plan. Meanwhile a
    math request (the cloud alone) meets the cloud's 429 asking 30 s, and the cloud turns
    overloaded asking 600 s. Local drops its connections: the held request falls back to
    the cloud, which was in its plan before the 429, and meets the 503: the cloud now waits
    out both. The next math request is told the 503, as the cloud would have answered."""
    with (
        simulator(profile="vllm", model="local-model", fault="hold") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        routes = {intent: ["local", "cloud"] for intent in INTENTS} | {"math": ["cloud"]}
        config = config_for({"local": local, "cloud": cloud}, tmp_path, timeouts=HELD,
                            routes=routes, resilience=FAST)  # fmt: skip
        with router(config) as proxy:
            held: list[httpx.Response] = []
            waiting = threading.Thread(target=lambda: held.append(chat(proxy.url)))
            waiting.start()
            until(lambda: local.stats()["held"] == 1, what="the coding request held at local")
            cloud.control("faults", {"fault": "rate_limit:30"})
            with pytest.raises(openai.RateLimitError):
                sdk(proxy).chat.completions.create(model="math", messages=CODING)  # type: ignore[arg-type]
            cloud.control("faults", {"fault": "overloaded:600"})
            local.control("faults", {"down": True})  # its connections dropped
            waiting.join(timeout=60)
            assert held[0].headers["x-smf-backend"] == "cloud"  # the 503 it met there
            state = backend_state(proxy.root, "cloud")
            assert 0 < state["rate_limited_for_s"] <= 30 < state["overloaded_for_s"] <= 600

            with pytest.raises(openai.InternalServerError) as refused:
                sdk(proxy).chat.completions.create(model="math", messages=CODING)  # type: ignore[arg-type]
            body = {"model": "math", "messages": CODING}
            explained = httpx.post(f"{proxy.url}/router/explain", json=body, trust_env=False)
            request_id = refused.value.response.headers["x-request-id"]
            until(lambda: ledger_row(proxy, request_id, COLUMNS) is not None, what="its row")
            row = ledger_row(proxy, request_id, COLUMNS)
            scraped = scrape(proxy.root)
            asked = cloud.completions()
    response = refused.value.response
    assert response.status_code == 503
    assert 30 < int(response.headers["retry-after"]) <= 600  # the 503's wait, its own time
    error = response.json()["error"]
    assert error["code"] == "no_backend_available"
    assert "'cloud' answered overloaded with a Retry-After" in error["message"]
    assert "rate limit" not in error["message"]
    assert explained.json()["skipped"] == [{"backend": "cloud", "reason": "overloaded"}]
    assert row is not None and row["attempts"] == [("cloud", "skipped", "overloaded")]
    assert row["status"] == 503
    cloud_skips = {"backend": "cloud", "tier": "cloud"}
    skips = "smf_router_backend_skips_total"
    assert scraped.get(skips, **cloud_skips, reason="overloaded") == 1
    assert scraped.get(skips, **cloud_skips, reason="rate_limited") == 0
    assert asked == 2  # the 429 and the 503: the last request asked it nothing
