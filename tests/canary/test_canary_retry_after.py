"""A quality gate holding a private request's only local backend: the 503 says the canary
closed it, and to come back when local's next canary round ends, whose results may open it
again. It said `local: quality_gate` alone, with no `Retry-After`, and the client's SDK
retried at once, twice, what only a canary round can change; then it named the next run's
start, and the SDK came back into the round under way and gave up seconds before the gate
reopened. Real router and simulators on 127.0.0.1."""

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

from router.canary_reopen import ROUND_SLACK
from router.ledger import LedgerWriter
from tests.canary.servers import math_gating_canary, router, simulator
from tests.harness import RunningRouter, config_for, scrape
from tests.resilience.conftest import FAST, until

MATH = [{"role": "user", "content": "Compute the sum of 1234 and 4321."}]
PRIVATE = {"x-smf-private": "1"}
INTERVAL_S = 300.0


def _canary(r: RunningRouter) -> dict[str, Any]:
    section: dict[str, Any] = httpx.get(f"{r.root}/v1/router/status", timeout=5).json()
    return dict(section["extra"]["canary"])


def _next_run_at(r: RunningRouter) -> float:
    """When the router's next canary run starts, as unix time."""
    return datetime.fromisoformat(_canary(r)["next_run_at"].replace("Z", "+00:00")).timestamp()


def _next_run_in(r: RunningRouter) -> float:
    return _next_run_at(r) - time.time()


def _round_s(r: RunningRouter) -> float:
    """How long local's next round is taken to last: its last one's, and a quarter more."""
    return float(_canary(r)["last_run"]["local"]["duration_s"]) * ROUND_SLACK


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
            canary=math_gating_canary(INTERVAL_S, window=6),
        )
        with router(config) as r:
            until(lambda: "math" in _canary(r)["gated"].get("local", []), what="local gated")
            round_s = _round_s(r)
            during = _ask(r)  # cloud's round goes on, local's is over: the next one counts
            assert _canary(r)["running_since"] is not None
            until(lambda: _canary(r)["running_since"] is None, what="the first run over")
            before = _next_run_in(r) + round_s
            refused = _ask(r)
            after = _next_run_in(r) + round_s
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
    # the first run: cloud's round, which the next run waits for, has no known length yet,
    # and a guess (one case's timeout) told a client minutes where the gate reopened in
    # seconds (found in re-review): no time rather than a wrong one
    assert during.status_code == 503, during.text
    assert "retry-after" not in during.headers and "x-should-retry" not in during.headers
    assert refused.status_code == 503, refused.text
    assert refused.headers["x-smf-intent"] == "math"
    seconds = int(refused.headers["retry-after"])  # ms in the status: a second either way
    assert math.ceil(after) - 1 <= seconds <= math.ceil(before) + 1
    # too long for an SDK to sleep through silently (the Anthropic ones would, twice)
    assert refused.headers["x-should-retry"] == "false"
    message = refused.json()["error"]["message"]
    assert "the canary closed the quality gate of route 'math' on 'local'" in message
    assert f"retry in {seconds} s" in message
    # one refusal each, not three: the OpenAI SDK does not retry a wait over its 2 min, and
    # the Anthropic one, which waits whatever it is told, does not sleep through it either
    assert raised.value.status_code == 503 and messages.value.status_code == 503
    assert waited < 30
    assert refusals == 4  # with the two by httpx


def test_a_client_told_when_the_gate_may_reopen_comes_back_after_the_round_and_is_served(
    tmp_path: Path,
) -> None:
    """The gate is judged when local's round ends, not when the run starts: told the next
    run's start (an interval under a minute, so the SDK waits), the SDK came back into
    local's round under way, was refused with no time, retried twice within a second or two
    and gave up, and the gate reopened seconds later (found in re-review). Told the round's
    end, it waits once and is served by local."""
    with (
        simulator(profile="vllm", model="local-model", quality={"math": 0.0}, ttft_s=3.0) as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        config = config_for(
            {"local": local, "cloud": cloud},
            tmp_path,
            timeouts={"first_token_s": 10, "idle_s": 10},
            resilience={"enabled": False},
            canary=math_gating_canary(20.0, window=3),
        )
        with router(config) as r:
            until(
                lambda: (
                    "math" in _canary(r)["gated"].get("local", [])
                    and _canary(r)["running_since"] is None
                ),
                limit_s=60,
                what="local gated, the run over",
            )
            round_s = _round_s(r)  # two cases after one another: 6 s or more
            local.control("quality", {"math": 1.0})  # local is fixed: its next round passes
            told: list[str] = []
            answered: list[float] = []  # when each response arrived
            client = openai.OpenAI(
                base_url=r.url,
                api_key="none",
                max_retries=2,
                default_headers=PRIVATE,
                http_client=httpx.Client(
                    trust_env=False,
                    event_hooks={
                        "response": [
                            lambda a: told.append(a.headers.get("retry-after")),
                            lambda _: answered.append(time.time()),
                        ]
                    },
                ),
            )
            next_run = _next_run_at(r)
            sent = time.time()
            served = client.chat.completions.with_raw_response.create(
                model="auto",
                messages=MATH,  # type: ignore[arg-type]
            )
    assert round_s >= 6 * ROUND_SLACK  # longer than the SDK's two quick retries take
    assert served.headers["x-smf-backend"] == "local", told
    assert served.retries_taken >= 1  # waited past the end of local's round, not its start
    # told at some moment between sending and the first answer (seconds apart on a loaded
    # machine): the round's end as seen from then, in whole seconds
    latest, earliest = next_run - sent + round_s, next_run - answered[0] + round_s
    assert earliest - 1 <= int(told[0]) <= latest + 1, (told, earliest, latest)


def _rounds_of(ledger: Path, backend: str, rounds: list[tuple[float, list[str], float]]) -> None:
    """`backend`'s rounds of math, each (seconds ago, its cases' statuses, its length), in
    `ledger` as a router writes them."""
    writer = LedgerWriter(ledger, flush_interval_s=60)
    for ago, statuses, duration_s in rounds:
        summary = {"run_id": f"run-{ago}", "ts": time.time() - ago, "backend": backend}
        counts = {
            "passed": statuses.count("pass"),
            "failed": statuses.count("fail"),
            "errors": statuses.count("error"),
        }
        writer.submit_row(
            "canary_runs",
            summary | counts | {"cases": len(statuses), "suites": "math", "duration_s": duration_s},
        )
        for k, status in enumerate(statuses):
            row = summary | {"suite": "math", "case_id": f"m-{k}", "status": status}
            writer.submit_row("canary_results", row)
    writer.close()


def _told_after_a_restart(
    tmp_path: Path,
    rounds: list[tuple[float, list[str], float]],
    kept_s: float,
    last_s: float | None = None,
) -> None:
    """A router restarted over local's `rounds` (as `_rounds_of`), local gated and its next
    run minutes away, refuses a private math request, and tells the time of local's next
    round's end: a round taken to last `kept_s`, and `ROUND_SLACK` more. `last_s`, where
    given, is the length the status says of local's last round."""
    _rounds_of(tmp_path / "ledger", "local", rounds)
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        canary = math_gating_canary(INTERVAL_S * 3, window=6)  # the restart waits 13-14 min
        config = config_for({"local": local, "cloud": cloud}, tmp_path, canary=canary)
        with router(config) as r:
            until(lambda: "math" in _canary(r)["gated"].get("local", []), what="local gated")
            if last_s is not None:
                assert _canary(r)["last_run"]["local"]["duration_s"] == last_s
            before = _next_run_in(r) + kept_s * ROUND_SLACK
            refused = _ask(r)
            after = _next_run_in(r) + kept_s * ROUND_SLACK
            assert _canary(r)["running_since"] is None and local.completions() == 0
    assert refused.status_code == 503, refused.text
    seconds = int(refused.headers["retry-after"])
    assert math.ceil(after) - 1 <= seconds <= math.ceil(before) + 1


def test_a_restart_after_a_round_that_graded_none_still_tells_the_time(tmp_path: Path) -> None:
    """local's latest round graded nothing (a run cut at shutdown: every case an error), the
    one before failed its math in 2 s and closed the gate. The recall kept the latest
    round's length only, none: after such a restart every gated 503 went without
    `Retry-After` until a round graded a case again (found in review). It keeps the length
    of the last round that graded one, as a running router does."""
    rounds = [(120.0, ["fail"] * 3, 2.0), (60.0, ["error"] * 3, 0.2)]
    _told_after_a_restart(tmp_path, rounds, kept_s=2.0, last_s=0.2)  # the last graded none


def test_one_slow_round_with_errors_sets_the_time_for_one_round_only(tmp_path: Path) -> None:
    """Every round of local has an error (a case that errs each round, as code cases do
    without a sandbox), and one, long ago, took 600 s (a backend that hung). A round with
    errors counts no shorter than the one before (it may have been cut at shutdown), and
    that "one before" was the length kept, itself the longer of two: it never came down,
    and the restart's recall carried the 600 s over two days of rounds, telling clients
    750 s for a round of 5 (found in review). Each round is compared with the graded round
    before it, its own length."""
    slow = (3000.0, ["fail", "error", "error"], 600.0)
    quick = [(ago, ["fail", "fail", "error"], 5.0) for ago in (2000.0, 1000.0, 100.0)]
    _told_after_a_restart(tmp_path, [slow, *quick], kept_s=5.0, last_s=5.0)


@pytest.mark.parametrize("length", [math.nan, -30.0, 1.5e308], ids=["nan", "negative", "huge"])
def test_a_recalled_round_of_no_real_length_leaves_the_time_to_the_one_before(
    tmp_path: Path, length: float
) -> None:
    """local's latest round in the ledger says a length that is none (NaN, below zero, or
    huge: a row another writer corrupted). NaN reached `math.ceil` as the gated 503 was
    made, and the request failed with a ValueError; a huge one overflowed to inf with
    `ROUND_SLACK` there (OverflowError); a negative length told a time before the round's
    end. Such a round is no graded round: the one before it (2 s) tells the time."""
    rounds = [(120.0, ["fail"] * 3, 2.0), (60.0, ["fail"] * 3, length)]
    _told_after_a_restart(tmp_path, rounds, kept_s=2.0)
