"""A shadow reply that did not finish is a failed replay, not a disagreement.

Found in review: a vLLM shadow target that drops its requests (sleep, scale-down, restart)
ends them with `finish_reason: "abort"`, a 200 and `[DONE]`; the replay compared that
half answer as if finished, and every restart wrote false "disagree" rows (`code_parse`:
"live parses, shadow does not parse"), lowering the report's agreement and its advice. An
answer cut by the output limit is not the model's answer either, unless the live answer
was cut too (a client's small limit: both are what that client gets). Through a real router
and simulators, the rows read from the DuckDB ledger.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from classifier.intent import INTENTS
from router.ledger import Ledger
from tests.harness import config_for, router, sdk, simulator
from tests.shadow.shadow_status import shadow_counts, until

MATH = "What is 1234 + 4321?"  # live on the cloud, shadowed on local
CODE = "Write a Python function that reverses a list"  # live on local, shadowed on the cloud
SHORT = "The answer is \\boxed{5555}."  # 9 tokens (the simulator's words and marks)
LONG = (
    "Adding column by column: ones 1 + 4 is 5, tens 2 + 3 is 5, hundreds 3 + 2 is 5, "
    "thousands 4 + 1 is 5, so the sum is \\boxed{5555}."
)


def _replayed(r: Any) -> int:
    """How many replays ended: compared, or failed (`error`)."""
    counts = shadow_counts(r)
    return counts.get("compared", 0) + counts.get("dropped_error", 0)


def _rows(ledger_dir: Path) -> list[tuple[Any, ...]]:
    with Ledger(ledger_dir) as ledger:
        return ledger.sql(
            "SELECT shadow_error, agreed, method, shadow_tokens > 0 FROM shadow_comparisons"
        )


@pytest.mark.parametrize("intent", ["math", "coding"])
def test_a_shadow_the_engine_stopped_is_an_error_row(intent: str, tmp_path: Path) -> None:
    """Math live on the cloud, its shadow on a local vLLM that aborts; coding live on local,
    its shadow on a cloud that aborts (the review's `code_parse` case). Each row is a shadow
    error, left out of the agreement, counted as a failed replay (`error`); the tokens the
    aborted call took are still the shadow's spend."""
    local_fault = "abort" if intent == "math" else None
    cloud_fault = "abort" if intent == "coding" else None
    with (
        simulator(profile="cloud", model="cloud-model", fault=cloud_fault) as cloud,
        simulator(profile="vllm", model="local-model", fault=local_fault) as local,
    ):
        shadow = {"rates": {intent: 1.0}, "allow_cloud_targets": True}
        config = config_for({"local": local, "cloud": cloud}, tmp_path, shadow=shadow)
        with router(config) as r:
            prompt = MATH if intent == "math" else CODE
            reply = sdk(r, timeout=10).chat.completions.with_raw_response.create(
                model="auto", messages=[{"role": "user", "content": prompt}]
            )
            assert reply.headers["x-smf-intent"] == intent
            assert reply.parse().choices[0].finish_reason == "stop"  # the live answer
            until(lambda: _replayed(r) == 1)
            counts = shadow_counts(r)
            metrics = httpx.get(f"{r.root}/metrics", timeout=5).text
    assert _rows(tmp_path / "ledger") == [("unfinished: abort", None, "none", True)]
    assert counts.get("compared", 0) == 0
    assert 'smf_router_shadow_dropped_total{reason="error"} 1' in metrics


def _cut_config(cloud: Any, local: Any, tmp: Path) -> Any:
    """Every intent live on the cloud, math shadowed on local."""
    routes = {intent: ["cloud", "local"] for intent in INTENTS}
    return config_for(
        {"local": local, "cloud": cloud}, tmp, shadow={"rates": {"math": 1.0}}, routes=routes
    )


@pytest.mark.parametrize("stream", [False, True])
def test_a_shadow_cut_by_the_limit_the_live_answer_kept_is_an_error_row(
    stream: bool, tmp_path: Path
) -> None:
    """The live answer finished within the client's `max_tokens`; the shadow's, longer, was
    cut by it (`length`): no answer to compare, not a disagreement."""
    with (
        simulator(profile="cloud", model="cloud-model", replies={MATH: SHORT}) as cloud,
        simulator(profile="vllm", model="local-model", replies={MATH: LONG}) as local,
        router(_cut_config(cloud, local, tmp_path)) as r,
    ):
        body = {"model": "auto", "messages": [{"role": "user", "content": MATH}]}
        reply = httpx.post(
            f"{r.url}/chat/completions",
            json={**body, "max_tokens": 12, "stream": stream},
            timeout=10,
        )
        assert reply.status_code == 200 and reply.headers["x-smf-backend"] == "cloud"
        until(lambda: _replayed(r) == 1)
        counts = shadow_counts(r)
    assert _rows(tmp_path / "ledger") == [("unfinished: length", None, "none", True)]
    assert counts.get("compared", 0) == 0 and counts["dropped_error"] == 1


# Each API's request cut by its own limit, live (its client got `length`, `max_tokens`, or
# an `incomplete` response for `max_output_tokens`) and shadow (asked in chat) alike.
CUT_BOTH = {
    "chat/completions": {"messages": [{"role": "user", "content": MATH}], "max_tokens": 12},
    "messages": {"messages": [{"role": "user", "content": MATH}], "max_tokens": 12},
    "responses": {"input": MATH, "max_output_tokens": 12},
}


def test_both_answers_cut_by_the_clients_limit_are_compared(tmp_path: Path) -> None:
    """Where the live answer was cut by the limit too, the two cut answers are what the
    client gets from each backend: compared as before, in every API the shadow mirrors."""
    with (
        simulator(profile="cloud", model="cloud-model", replies={MATH: LONG}) as cloud,
        simulator(profile="vllm", model="local-model", replies={MATH: LONG}) as local,
        router(_cut_config(cloud, local, tmp_path)) as r,
    ):
        for path, body in CUT_BOTH.items():
            reply = httpx.post(f"{r.url}/{path}", json={"model": "auto", **body}, timeout=10)
            assert reply.status_code == 200 and reply.headers["x-smf-backend"] == "cloud"
        until(lambda: _replayed(r) == len(CUT_BOTH))
        counts = shadow_counts(r)
    rows = _rows(tmp_path / "ledger")
    assert [row[0] for row in rows] == [None] * len(CUT_BOTH)
    assert counts["compared"] == len(CUT_BOTH) and counts.get("dropped_error", 0) == 0
