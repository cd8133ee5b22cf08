"""A backend that takes connections, passes `/health` and never answers a whole (non-streamed)
request: clients that give up on it past the silence threshold open its circuit, as for
streams (`router.silence`). Before, a whole reply's only bound was `timeouts.total_s` (540
s): the client gave up first (browser-use's 75 s step, OpenHands' 300 s, Shell-GPT's 60 s:
found live three times), its hang-up was neutral, it asked again, and every request went to
the hung backend, none fell back. A long healthy generation shows nothing either until it is
done: on a vLLM, whose `/metrics` count it running, its client's hang-up stays the client's
doing. Real sockets on 127.0.0.1 (ports 18000-18999), the official `openai` SDK with its own
timeout standing for the client's; `SILENT_S` patched small stands for 30 s."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from router import silence
from tests.canary.servers import router, simulator
from tests.harness import Collect, Running, RunningRouter, collected, config_for, sdk
from tests.resilience.conftest import CODING, backend_state, give_up, local_and_cloud, until
from tests.resilience.giving_up import PRIVATE, RESILIENCE, TIMEOUTS

THRESHOLD = 3  # failures in a row that open a circuit
WHOLE: Any = {"stream": False}


@pytest.fixture
def pair() -> Iterator[dict[str, Running]]:
    with local_and_cloud(simulator, tokens_per_s=2) as servers:  # a long answer: a minute
        yield servers


def _local(proxy: RunningRouter) -> dict[str, Any]:
    return backend_state(proxy.root, "local")


def test_clients_giving_up_on_whole_replies_of_a_silent_backend_open_its_circuit(
    pair: dict[str, Running], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The review's repro: the local simulator's `no_response`, non-streamed requests with a
    client timeout past the threshold. Each is a 499 `cancelled` on local, and after
    `failure_threshold` of them its circuit opens: the next request goes to the cloud."""
    monkeypatch.setattr(silence, "SILENT_S", 0.5)  # under first_token_s: the threshold
    resilience = {**RESILIENCE, "failure_threshold": THRESHOLD}
    config = config_for(pair, tmp_path, timeouts=TIMEOUTS, resilience=resilience)
    with router(config) as proxy:
        records = collected(proxy)
        pair["local"].control("faults", {"fault": "no_response"})
        give_up(sdk(proxy, timeout=1.5), THRESHOLD, **WHOLE)
        until(lambda: _local(proxy)["circuit"] == "open", what="circuit open")
        _all_cancelled_on_local(records, THRESHOLD)
        served = sdk(proxy, timeout=30).chat.completions.with_raw_response.create(
            model="coding", messages=CODING
        )
    assert served.headers["x-smf-backend"] == "cloud"
    assert served.headers["x-smf-attempts"] == "1"  # local skipped, not tried again
    assert served.parse().choices[0].message.content
    assert [a.backend for a in records.records[-1].attempts] == ["local", "cloud"]
    assert records.records[-1].attempts[0].error_kind == "circuit_open"


def _all_cancelled_on_local(records: Collect, n: int) -> None:
    """Wait for `n` records; each a hang-up (499) whose one attempt, on local, says so (a
    private request passed the cloud by: a `skipped` attempt)."""
    until(lambda: len(records.records) >= n, what=f"{n} records")
    for record in records.records[:n]:
        assert (record.outcome, record.status) == ("cancelled", 499)
        tried = [(a.backend, a.error_kind) for a in record.attempts if a.outcome != "skipped"]
        assert tried == [("local", "cancelled")]


def test_a_long_generation_the_backend_reports_running_is_not_judged(
    pair: dict[str, Running], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three clients leave long healthy generations (2 tokens a second) past the threshold:
    vLLM's `/metrics` counted each running, the backend was at work, and its failures in a
    row stay 0. Then the same backend hangs (`no_response`: nothing running) and one more
    hang-up counts. The breaker only counts here (`failure_threshold` 100)."""
    monkeypatch.setattr(silence, "SILENT_S", 0.5)
    local = pair["local"]
    # a poll every second, fresh for 3: three chances at each, on a loaded 2-core machine
    resilience = {**RESILIENCE, "failure_threshold": 100, "capacity_poll_s": 1.0}
    config = config_for(pair, tmp_path, timeouts=TIMEOUTS, resilience=resilience)
    with router(config) as proxy:
        records = collected(proxy)
        client = sdk(proxy, timeout=4.0)  # the polls saw the generation running
        seen = [_failures_after(proxy, client, records, max_tokens=400) for _ in range(THRESHOLD)]
        until(lambda: local.stats()["running"] == 0, what="the generations stopped")
        local.control("faults", {"fault": "no_response"})
        seen.append(_failures_after(proxy, client, records))
        _all_cancelled_on_local(records, THRESHOLD + 1)
    assert seen == [0] * THRESHOLD + [1]


def _failures_after(proxy: RunningRouter, client: Any, records: Collect, **ask: Any) -> int:
    """`local`'s failures in a row once `client` gave up on one more private whole reply
    and its record was made (the breaker was told before)."""
    n = len(records.records) + 1
    give_up(client, 1, extra_headers=PRIVATE, **WHOLE, **ask)
    until(lambda: len(records.records) >= n, what="the hang-up recorded")
    failures: int = _local(proxy)["consecutive_failures"]
    return failures
