"""A silence is judged only of a backend silent to everyone, with no queue it reports
(`router.silence.Life`), and only by events that show its engine at work
(`router.silence.shows_work`). A vLLM whose `max-num-seqs` is full sends a queued stream its
headers alone: three clients giving up on such streams opened the circuit of a backend
streaming another answer all along (found in re-review). And servers that open a Messages or
Responses stream before generating (Anthropic, vLLM's Responses) made every hang-up on them
neutral. Real sockets on 127.0.0.1 (ports 18000-18999); client timeouts stand for impatient
people, `SILENT_S` patched small stands for 30 s."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from router import silence
from router.config import parse
from tests.canary.servers import router, simulator
from tests.harness import Running, RunningRouter, collected, config_for, sdk
from tests.resilience.conftest import CODING, give_up, local_and_cloud, until
from tests.resilience.giving_up import (
    BODIES,
    PRIVATE,
    RESILIENCE,
    TIMEOUTS,
    counting,
    failures_after_giving_up,
    local_backend,
    streaming_privately,
)

SHORT_PRIVATE: Any = {"max_tokens": 5, "extra_headers": PRIVATE}


def _config(servers: dict[str, Running], tmp_path: Path, metrics_read: bool) -> Any:
    data = config_for(servers, tmp_path, timeouts=TIMEOUTS, resilience=RESILIENCE).model_dump(
        mode="json"
    )
    if not metrics_read:  # a JSON page, no vLLM gauges: the router learns no queue
        data["backends"][0]["metrics_url"] = f"{servers['local'].url}/models"
    return parse(data)


@pytest.mark.parametrize("metrics_read", [True, False], ids=["metrics", "no_metrics"])
def test_queued_streams_of_a_busy_vllm_leave_its_circuit_closed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, metrics_read: bool
) -> None:
    """One long stream fills `max-num-seqs`; three more queue behind it, their clients
    leaving past the threshold. Without the router's poll of `/metrics` (its queue unseen),
    the long stream's output alone shows the backend at work."""
    monkeypatch.setattr(silence, "SILENT_S", 0.5)
    # a token every 1/8 s, a quarter of SILENT_S: at 1/4 s, a half-second pause of the full
    # suite's load made one hang-up a silence (consecutive_failures 1, seen once)
    with (
        local_and_cloud(simulator, tokens_per_s=8, max_num_seqs=1) as servers,
        router(_config(servers, tmp_path, metrics_read)) as proxy,
    ):
        records = collected(proxy)
        with streaming_privately(proxy):
            give_up(sdk(proxy, timeout=1.5), 3, **SHORT_PRIVATE)
            until(lambda: len(records.records) >= 3, what="three hang-ups recorded")
            local_state = local_backend(proxy)
            metrics = httpx.get(f"{proxy.root}/metrics", timeout=5).text
        served = httpx.post(
            f"{proxy.url}/chat/completions",
            json={"model": "coding", "messages": CODING, "max_tokens": 5},
            headers=PRIVATE,
            timeout=60,
        )
    assert [(r.outcome, r.status) for r in records.records[:3]] == [("cancelled", 499)] * 3
    assert (local_state["circuit"], local_state["consecutive_failures"]) == ("closed", 0)
    assert served.status_code == 200
    assert 'smf_router_backend_up{backend="local",tier="local"} 1.0' in metrics


def test_a_queue_the_backend_reports_excuses_a_silence_seen_by_everyone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing streams at all: the one running request is in a long prefill (headers only
    after 60 s), and vLLM's `/metrics` counts the others waiting behind it."""
    monkeypatch.setattr(silence, "SILENT_S", 0.5)
    with local_and_cloud(simulator, max_num_seqs=1) as servers:
        local = servers["local"]
        resilience = {**RESILIENCE, "capacity_poll_s": 0.5}  # a poll fresh for 1.5 s
        config = config_for(servers, tmp_path, timeouts=TIMEOUTS, resilience=resilience)
        with router(config) as proxy:
            records = collected(proxy)
            local.control("faults", {"fault": "slow_first_token:60"})
            with _sent(proxy, "/chat/completions", {"messages": CODING, "stream": True}):
                until(lambda: local.stats()["running"] == 1, what="the prefill running")
                give_up(sdk(proxy, timeout=2.5), 3, **SHORT_PRIVATE)
                until(lambda: len(records.records) >= 3, what="three hang-ups recorded")
                local_state = local_backend(proxy)
    assert (local_state["circuit"], local_state["consecutive_failures"]) == ("closed", 0)


@contextmanager
def _sent(proxy: RunningRouter, path: str, body: dict[str, Any]) -> Iterator[None]:
    """A private request sent on a socket of its own, left when the block ends."""
    data = json.dumps({"model": "coding", **body}).encode()
    url = httpx.URL(proxy.url + path)
    head = (
        f"POST {url.raw_path.decode()} HTTP/1.1\r\nhost: {url.host}:{url.port}\r\n"
        f"content-type: application/json\r\nx-smf-private: true\r\n"
        f"content-length: {len(data)}\r\n\r\n"
    )
    with socket.create_connection((url.host, url.port or 80), timeout=5) as sock:
        sock.sendall(head.encode() + data)
        yield


@pytest.mark.parametrize("native", [True, False], ids=["native", "translated"])
def test_openers_before_generating_are_no_answer_a_chat_chunk_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, native: bool
) -> None:
    """`late_first_token`: opening events at once, the first token a minute later. Natively,
    Messages' `message_start` (and its empty block) and Responses' `response.created` are
    sent before the engine takes a request up: the hang-ups count. A chat stream's role chunk
    comes with vLLM's first output, and so does every event translated from a chat stream:
    the backend was at work, the hang-up is the client's."""
    monkeypatch.setattr(silence, "SILENT_S", 0.5)
    apis = ["chat", "completions", "responses", "messages"] if native else ["chat"]
    with (
        local_and_cloud(simulator) as servers,
        router(counting(servers, tmp_path, apis)) as proxy,
    ):
        records = collected(proxy)
        servers["local"].control("faults", {"fault": "late_first_token:60"})
        seen = [
            failures_after_giving_up(proxy, api, records, n + 1) for n, api in enumerate(BODIES)
        ]
    assert seen == ([1, 2, 2] if native else [0, 0, 0])
