"""A deadline that fires on a request waiting in a busy backend's queue is no breaker failure
(`router.silence.QUEUED`), as a hang-up there is not: a burst of twelve private streams on a
backend with `max_concurrency: 2` served six, the six waiting in vLLM's queue past
`first_token_s` opened its circuit (`first_token_timeout`), and the next private request got
a 503 `no_backend_available` (found in review). The client still gets its 504. A backend
silent to everyone, with no queue it reports, is still judged by its timeouts. Real sockets
on 127.0.0.1 (ports 18000-18999), the official `openai` SDK."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from router.config import parse
from tests.canary.servers import router, simulator
from tests.harness import Running, RunningRouter, collected, config_for, sdk
from tests.resilience.conftest import CODING, backend_state, local_and_cloud, until
from tests.resilience.giving_up import PRIVATE, RESILIENCE, streaming_privately

THRESHOLD = RESILIENCE["failure_threshold"]  # failures in a row that open a circuit
# The router's own deadlines fire on the queued requests; the stream served meanwhile (a
# token every 0.25 s) is well within its idle and total limits.
# Whole replies wait 3 s, not 1: the router learns of the queue from a `/metrics` poll (every
# 0.2 s) made while the request waits, and on the loaded 2-core machine of a full `make test`
# no poll once landed inside a 1 s wait, so one timeout counted as a failure.
TIMEOUTS = {"first_token_s": 1.0, "idle_s": 10.0, "total_s": 3.0}
STREAMED = {"first_token_s": 1.0, "idle_s": 10.0, "total_s": 120.0}
# The long stream that fills the slot must itself start within `first_token_s`: on a loaded
# 2-core CI machine its first token once took more than 1 s, and the test failed before
# queueing anything. Its 400 tokens at 4 a second outlast the queued requests' 3 s waits.
BUSY = {**STREAMED, "first_token_s": 3.0}


def _config(servers: dict[str, Running], tmp_path: Path, timeouts: dict[str, float]) -> Any:
    return config_for(servers, tmp_path, timeouts=timeouts, resilience=RESILIENCE)


def _timed_out(proxy: RunningRouter, n: int, stream: bool) -> list[tuple[int, str]]:
    """`n` private requests one after another, each answered with the router's timeout:
    (status, error code) of each."""
    answers = []
    for _ in range(n):
        with pytest.raises(openai.APIStatusError) as caught:
            sdk(proxy, timeout=60).chat.completions.create(
                model="coding",
                messages=CODING,
                stream=stream,
                max_tokens=5,
                extra_headers=PRIVATE,
            )
        body: Any = caught.value.body
        answers.append((caught.value.status_code, body["code"]))
    return answers


@contextmanager
def _held_directly(local: Running) -> Iterator[None]:
    """A long stream sent to the simulator itself, past the router: the router neither
    counts nor hears it, and learns of the backend's queue from its `/metrics` alone."""
    body = {"model": "local-model", "messages": CODING, "stream": True, "max_tokens": 400}
    with httpx.stream("POST", f"{local.url}/chat/completions", json=body, timeout=120) as reply:
        pieces = reply.iter_bytes()  # kept: the iterator's end would close the stream
        next(pieces)  # its headers and first event: the slot is taken
        yield


@pytest.mark.parametrize("metrics_read", [True, False], ids=["metrics", "no_metrics"])
def test_streams_timing_out_in_a_busy_backends_queue_leave_its_circuit_closed(
    tmp_path: Path, metrics_read: bool
) -> None:
    """One stream fills `max-num-seqs` and streams all along; `THRESHOLD` more wait behind
    it past `first_token_s`. Without the poll of `/metrics` (its queue unseen), the long
    stream's output alone shows the backend at work."""
    with local_and_cloud(simulator, tokens_per_s=4, max_num_seqs=1) as servers:
        data = _config(servers, tmp_path, BUSY).model_dump(mode="json")
        if not metrics_read:  # a JSON page, no vLLM gauges: the router learns no queue
            data["backends"][0]["metrics_url"] = f"{servers['local'].url}/models"
        with router(parse(data)) as proxy:
            records = collected(proxy)
            with streaming_privately(proxy):
                answers = _timed_out(proxy, THRESHOLD, stream=True)
                until(lambda: len(records.records) >= THRESHOLD, what="the timeouts recorded")
                local = backend_state(proxy.root, "local")
                metrics = httpx.get(f"{proxy.root}/metrics", timeout=5).text
    assert answers == [(504, "upstream_timeout")] * THRESHOLD
    kinds = [
        [a.error_kind for a in r.attempts if a.outcome != "skipped"]
        for r in records.records[:THRESHOLD]
    ]
    assert kinds == [["first_token_timeout"]] * THRESHOLD  # the rows still say what ended them
    assert (local["circuit"], local["consecutive_failures"]) == ("closed", 0)
    assert 'smf_router_backend_up{backend="local",tier="local"} 1.0' in metrics


def test_whole_replies_timing_out_behind_a_queue_the_backend_reports_leave_it_closed(
    tmp_path: Path,
) -> None:
    """The slot is taken by a client of the backend's own (another router, a script): the
    router hears nothing of it, and vLLM's `/metrics` counts its requests waiting. Its
    non-streamed requests run out of `total_s` there: `timeout`, and no failure."""
    with (
        local_and_cloud(simulator, tokens_per_s=4, max_num_seqs=1) as servers,
        router(_config(servers, tmp_path, TIMEOUTS)) as proxy,
        _held_directly(servers["local"]),
    ):
        records = collected(proxy)
        answers = _timed_out(proxy, THRESHOLD, stream=False)
        until(lambda: len(records.records) >= THRESHOLD, what="the timeouts recorded")
        local = backend_state(proxy.root, "local")
    assert answers == [(504, "upstream_timeout")] * THRESHOLD
    kinds = [
        [a.error_kind for a in r.attempts if a.outcome != "skipped"]
        for r in records.records[:THRESHOLD]
    ]
    assert kinds == [["timeout"]] * THRESHOLD
    assert (local["circuit"], local["consecutive_failures"]) == ("closed", 0)


def test_timeouts_on_a_backend_silent_to_everyone_still_open_its_circuit(
    tmp_path: Path,
) -> None:
    """No output anywhere and no queue reported: each timeout counts, though the requests
    overlap and fill `max_concurrency: 1` (others hung on a dead backend fill it as well)."""
    with simulator(profile="vllm", model="local-model") as local:
        data = _config({"local": local}, tmp_path, STREAMED).model_dump(mode="json")
        data["backends"][0]["max_concurrency"] = 1
        with router(parse(data)) as proxy:
            records = collected(proxy)
            local.control("faults", {"fault": "no_response"})
            client = sdk(proxy, timeout=30)

            def hang() -> None:  # the last may find the circuit open: a 503
                with contextlib.suppress(openai.APIError):
                    client.chat.completions.create(model="coding", messages=CODING, stream=True)

            threads = []
            for _ in range(THRESHOLD + 1):  # each overlaps the one before
                threads.append(threading.Thread(target=hang))
                threads[-1].start()
                time.sleep(0.5)
            for thread in threads:
                thread.join(30)
            until(lambda: len(records.records) >= THRESHOLD + 1, what="the timeouts recorded")
            until(lambda: backend_state(proxy.root, "local")["circuit"] == "open", what="open")
