"""A backend that takes connections, passes `/health` and never says a word: clients that give
up on it before `first_token_s` open its circuit (`router.silence`). Before, each such
attempt ended `cancelled`, neutral for the breaker: every request went to the dead backend
first, none fell back, and its circuit never opened (found in review). A hang-up before the
silence threshold, or after the first token, stays the client's doing. Real sockets on
127.0.0.1 (ports 18000-18999), the official `openai` SDK with its own timeout."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from router import silence
from router.config import parse
from tests.canary.servers import router, simulator
from tests.harness import Collect, Running, RunningRouter, collected, config_for, sdk
from tests.resilience.conftest import (
    CODING,
    FAST,
    backend_state,
    chat,
    give_up,
    local_and_cloud,
    until,
)

THRESHOLD = 3  # failures in a row that open a circuit
# Open for long: the circuit stays open while the test looks at it, whatever its probes say.
RESILIENCE = {**FAST, "failure_threshold": THRESHOLD, "open_s": 60.0, "max_open_s": 60.0}
TIMEOUTS = {"first_token_s": 3.0, "idle_s": 3.0}  # the router's own deadline never fires


@pytest.fixture
def pair() -> Iterator[dict[str, Running]]:
    with local_and_cloud(simulator, tokens_per_s=20) as servers:
        yield servers


def _local(proxy: RunningRouter) -> dict[str, Any]:
    return backend_state(proxy.root, "local")


def _silence_opens_its_circuit(proxy: RunningRouter, local: Running) -> None:
    """`local` falls silent and `THRESHOLD` clients give up on it past the threshold: its
    circuit opens."""
    local.control("faults", {"fault": "no_response"})
    give_up(sdk(proxy, timeout=1.5), THRESHOLD)
    until(lambda: _local(proxy)["circuit"] == "open", what="circuit open")


def _all_cancelled(records: Collect, n: int) -> None:
    """Wait for `n` records; each a hang-up (499) whose one attempt, on local, says so."""
    until(lambda: len(records.records) >= n, what=f"{n} records")
    for record in records.records:
        assert (record.outcome, record.status) == ("cancelled", 499)
        assert [(a.backend, a.error_kind) for a in record.attempts] == [("local", "cancelled")]


def test_clients_giving_up_on_a_silent_backend_open_its_circuit(
    pair: dict[str, Running], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(silence, "SILENT_S", 0.5)  # under first_token_s: the threshold
    config = config_for(pair, tmp_path, timeouts=TIMEOUTS, resilience=RESILIENCE)
    with router(config) as proxy:
        records = collected(proxy)
        _silence_opens_its_circuit(proxy, pair["local"])
        _all_cancelled(records, THRESHOLD)
        metrics = httpx.get(f"{proxy.root}/metrics", timeout=5).text
        served = chat(proxy.url)
    assert served.status_code == 200
    assert served.headers["x-smf-backend"] == "cloud"
    assert served.headers["x-smf-attempts"] == "1"  # local skipped, not tried again
    assert 'smf_router_backend_up{backend="local",tier="local"} 0.0' in metrics


def test_a_probe_leaves_a_silent_backends_circuit_to_a_live_trial(
    pair: dict[str, Running], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A silent backend passes `/health`: the probe trial closed the circuit its silence
    opened (the defaults' open_s, 1 s), and live traffic went to the dead backend first
    again. Now its trial is a live request, and that request's success closes it."""
    monkeypatch.setattr(silence, "SILENT_S", 0.5)
    resilience = {**RESILIENCE, "open_s": 1.0, "max_open_s": 8.0}
    config = config_for(pair, tmp_path, timeouts=TIMEOUTS, resilience=resilience)
    with router(config) as proxy:
        records = collected(proxy)
        _silence_opens_its_circuit(proxy, pair["local"])
        until(lambda: _local(proxy)["circuit"] == "half_open", what="trial due")
        time.sleep(4 * RESILIENCE["probe_interval_s"])  # ticks a probe trial would have taken
        assert _local(proxy)["circuit"] == "half_open"
        pair["local"].control("faults", {"fault": None})
        served = chat(proxy.url)
        local = _local(proxy)
    assert served.status_code == 200 and served.headers["x-smf-backend"] == "local"
    assert [a.backend for a in records.records[-1].attempts] == ["local"]
    assert local["circuit"] == "closed"


def test_a_dead_backend_full_of_hung_requests_is_judged(
    pair: dict[str, Running], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`max_concurrency: 1` and two clients at a time: every hang-up saw another request
    fill the slot and was excused as queued, though that one hung on the dead backend too,
    and its circuit never opened. Never heard, the backend's in-flight count is no queue."""
    monkeypatch.setattr(silence, "SILENT_S", 0.5)
    data = config_for(
        {"local": pair["local"]}, tmp_path, timeouts=TIMEOUTS, resilience=RESILIENCE
    ).model_dump(mode="json")
    data["backends"][0]["max_concurrency"] = 1
    with router(parse(data)) as proxy:
        records = collected(proxy)
        pair["local"].control("faults", {"fault": "no_response"})
        client = sdk(proxy, timeout=1.5)

        def hang_up() -> None:  # the last may find the circuit open: a 503
            with contextlib.suppress(openai.APIError):
                client.chat.completions.create(model="coding", messages=CODING, stream=True)

        clients = []
        for _ in range(THRESHOLD + 1):  # each overlaps the one before
            clients.append(threading.Thread(target=hang_up))
            clients[-1].start()
            time.sleep(0.75)
        for thread in clients:
            thread.join(30)
        until(lambda: len(records.records) >= THRESHOLD + 1, what="the hang-ups recorded")
        until(lambda: _local(proxy)["circuit"] == "open", what="circuit open")


def test_a_whole_reply_shows_the_backend_at_work(pair: dict[str, Running], tmp_path: Path) -> None:
    """A non-streamed success is heard too (`Life.busy`), as a stream's output is."""
    config = config_for(pair, tmp_path, timeouts=TIMEOUTS, resilience=RESILIENCE)
    with router(config) as proxy:
        dispatcher = proxy.components.gateway.dispatcher
        before = time.monotonic()
        served = chat(proxy.url)
        heard = dispatcher.life.busy(dispatcher.backends["local"], before)
    assert served.status_code == 200 and served.headers["x-smf-backend"] == "local"
    assert heard


def test_hang_ups_before_the_threshold_or_after_the_first_token_leave_it_closed(
    pair: dict[str, Running], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An impatient client is no verdict on a backend: a stream or a whole reply left before
    the threshold, a stream left after its first token (the backend was working). A whole
    reply left after it counts as a stream does (`test_silent_whole`)."""
    monkeypatch.setattr(silence, "SILENT_S", 2.0)
    config = config_for(pair, tmp_path, timeouts=TIMEOUTS, resilience=RESILIENCE)
    n = THRESHOLD + 1
    with router(config) as proxy:
        records = collected(proxy)
        pair["local"].control("faults", {"fault": "no_response"})
        give_up(sdk(proxy, timeout=0.5), n)
        give_up(sdk(proxy, timeout=0.5), n, stream=False)
        _all_cancelled(records, 2 * n)
        pair["local"].control("faults", {"fault": None})
        for _ in range(n):
            with sdk(proxy).chat.completions.create(
                model="coding", messages=CODING, stream=True, max_tokens=200
            ) as stream:
                next(iter(stream))  # the first chunk, then the client leaves
        until(lambda: len(records.records) >= 3 * n, what="mid-stream hang-ups recorded")
        local = _local(proxy)
    assert [r.outcome for r in records.records] == ["cancelled"] * (3 * n)
    assert (local["circuit"], local["consecutive_failures"]) == ("closed", 0)


def test_the_threshold_is_first_token_s_capped_at_silent_s() -> None:
    """A client that waited as long as the router's own deadline saw what it judges; a long
    deadline (README's 60 s) waits 30 s, past an impatient Esc at 12 s."""
    assert silence.silent_after(5.0) == 5.0
    assert silence.silent_after(60.0) == silence.SILENT_S == 30.0
    assert silence.silent(working=False, waited_s=30.0, first_token_s=60.0)
    assert not silence.silent(working=False, waited_s=12.0, first_token_s=60.0)
    assert not silence.silent(working=True, waited_s=59.0, first_token_s=60.0)
