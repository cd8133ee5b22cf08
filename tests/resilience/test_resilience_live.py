"""Resilience through a live router and simulators: breaker, overflow, windows, stickiness,
privacy. Real sockets on 127.0.0.1; the official wire formats; no timed assertions."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from router import reload
from tests.harness import (
    Collect,
    Running,
    config_for,
    router,
    scrape,
    silent_server,
    simulator,
)
from tests.resilience.conftest import CODING, FAST, chat, circuit, local_and_cloud, status, until


@pytest.fixture
def pair() -> Iterator[dict[str, Running]]:
    with local_and_cloud(max_model_len=4096) as servers:
        yield servers


def posts(server: Running) -> int:
    by_path = server.stats()["by_path"]
    return int(by_path.get("/v1/chat/completions", 0))


def test_circuit_opens_during_outage_and_traffic_returns_after(
    pair: dict[str, Running], tmp_path: Path
) -> None:
    config = config_for(pair, tmp_path, resilience=FAST)
    with router(config) as proxy:
        assert chat(proxy.url).headers["x-smf-backend"] == "local"
        pair["local"].control("faults", {"down": True, "for_s": 3.0})
        served = [chat(proxy.url).headers["x-smf-backend"] for _ in range(5)]
        assert served == ["cloud"] * 5
        until(lambda: circuit(proxy.root, "local") == "open", what="circuit open")
        skipped = chat(proxy.url)
        assert skipped.headers["x-smf-attempts"] == "1"  # local not even tried
        until(lambda: circuit(proxy.root, "local") == "closed", what="circuit closed again")
        assert chat(proxy.url).headers["x-smf-backend"] == "local"
        metrics = httpx.get(f"{proxy.root}/metrics").text
        assert (
            'smf_router_backend_circuit_state{backend="local",state="closed",tier="local"} 1.0'
            in (metrics)
            or 'smf_router_backend_circuit_state{backend="local",tier="local",state="closed"} 1.0'
            in (metrics)
        )


def test_private_request_is_never_sent_to_cloud(pair: dict[str, Running], tmp_path: Path) -> None:
    config = config_for(pair, tmp_path, resilience=FAST)
    private = {"x-smf-private": "1"}
    with router(config) as proxy:
        assert chat(proxy.url, headers=private).headers["x-smf-backend"] == "local"
        before = posts(pair["cloud"])
        pair["local"].control("faults", {"down": True, "for_s": 4.0})
        first = chat(proxy.url, headers=private)
        assert first.status_code >= 500  # the failed attempt's, which was local's, not cloud's
        assert first.headers["x-smf-backend"] == "local"
        until(lambda: circuit(proxy.root, "local") == "open", what="circuit open")
        refused = chat(proxy.url, headers=private)
        assert refused.status_code == 503
        assert refused.json()["error"]["code"] == "no_backend_available"
        # the errors panel named it `other` while the ledger said no_backend_available
        errors = scrape(proxy.root).get(
            "smf_router_errors_total",
            intent="coding",
            outcome="upstream_error",
            kind="no_backend_available",
        )
        assert errors == 1
        assert posts(pair["cloud"]) == before  # not one private request reached the cloud
        assert chat(proxy.url).headers["x-smf-backend"] == "cloud"  # others still served


def test_an_unreadable_privacy_header_is_refused_not_read_as_public(
    pair: dict[str, Running], tmp_path: Path
) -> None:
    """`x-smf-private: on` was read as "not private" and served by the cloud (found in
    review): a privacy switch must not fail open."""
    with router(config_for(pair, tmp_path, resilience=FAST)) as proxy:
        before = posts(pair["cloud"])
        pair["local"].control("faults", {"down": True, "for_s": 2.0})
        served = chat(proxy.url, model="math", headers={"x-smf-private": "on"})
        assert served.headers.get("x-smf-backend", "") != "cloud"
        unclear = chat(proxy.url, headers={"x-smf-private": "maybe"})
        assert unclear.status_code == 400 and "x-smf-private" in unclear.json()["error"]["message"]
        assert posts(pair["cloud"]) == before


def test_local_at_its_concurrency_limit_overflows_to_cloud(tmp_path: Path) -> None:
    with (
        simulator(profile="vllm", model="local-model", ttft_s=1.5) as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        config = config_for({"local": local, "cloud": cloud}, tmp_path, resilience=FAST)
        data = config.model_dump()
        data["backends"][0]["max_concurrency"] = 2
        from router.config import parse

        with router(parse(data)) as proxy:
            served: Counter[str] = Counter()
            lock = threading.Lock()

            def one(i: int) -> None:
                if i >= 2:  # the first two are in flight on local before the rest arrive
                    until(
                        lambda: (
                            status(proxy.root)["extra"]["resilience"]["backends"]["local"][
                                "inflight"
                            ]
                            >= 2
                        ),
                        what="two in flight",
                    )
                response = chat(proxy.url)
                with lock:
                    served[response.headers["x-smf-backend"]] += 1

            threads = [threading.Thread(target=one, args=(i,)) for i in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(timeout=60)
            assert served == Counter({"local": 2, "cloud": 2})


def test_vllm_queue_from_metrics_turns_traffic_away(tmp_path: Path) -> None:
    with (
        simulator(profile="vllm", model="local-model", ttft_s=3.0, max_num_seqs=1) as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        config = config_for({"local": local, "cloud": cloud}, tmp_path, resilience=FAST)
        with router(config) as proxy:
            # Other clients of the same vLLM (not through this router) fill its queue.
            body = {"model": "local-model", "messages": CODING}
            threads = [
                threading.Thread(
                    target=lambda: httpx.post(
                        f"{local.url}/chat/completions", json=body, timeout=30
                    )
                )
                for _ in range(3)
            ]
            for t in threads:
                t.start()
            until(
                lambda: (
                    status(proxy.root)["extra"]["resilience"]["backends"]["local"]["saturated"]
                    == "queue"
                ),
                what="local seen as queueing",
            )
            explained = httpx.post(
                f"{proxy.url}/router/explain", json={"model": "coding", "messages": CODING}
            ).json()
            assert [s["backend"] for s in explained["backends"]] == ["cloud", "local"]
            assert explained["backends"][1]["reason"] == "overflow_last"
            for t in threads:
                t.join(timeout=30)


def test_a_backend_that_went_down_reports_no_load(tmp_path: Path) -> None:
    """Its running/waiting/KV-cache gauges froze at their last readings: a dead vLLM looked
    busy on the dashboards for as long as it stayed down (found in review)."""
    local_only = {"backend": "local"}
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        config = config_for({"local": local, "cloud": cloud}, tmp_path, resilience=FAST)
        with router(config) as proxy:

            def load_shown() -> list[float | None]:
                now = scrape(proxy.root)
                return [
                    now.get(f"smf_router_backend_{name}", **local_only)
                    for name in ("running_requests", "waiting_requests", "kv_cache_usage_ratio")
                ]

            until(lambda: None not in load_shown(), what="load read from vLLM's /metrics")
            local.control("faults", {"down": True, "for_s": 60})
            until(lambda: load_shown() == [None, None, None], what="the load gauges gone")


def test_context_window_is_learned_from_v1_models(tmp_path: Path) -> None:
    with (
        simulator(profile="vllm", model="local-model", max_model_len=300) as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        config = config_for({"local": local, "cloud": cloud}, tmp_path, resilience=FAST)
        with router(config) as proxy:
            until(
                lambda: (
                    status(proxy.root)["extra"]["resilience"]["backends"]["local"]["context_window"]
                    == 300
                ),
                what="window learned",
            )
            long = [{"role": "user", "content": "Write a Python function. " * 200}]
            explained = httpx.post(
                f"{proxy.url}/router/explain", json={"model": "coding", "messages": long}
            ).json()
            assert explained["skipped"] == [{"backend": "local", "reason": "context_window"}]
            assert [s["backend"] for s in explained["backends"]] == ["cloud"]


def test_a_configured_context_window_wins_in_the_plan_and_in_the_status(tmp_path: Path) -> None:
    """The operator's `context_window` is what the plan checks, so the status shows it, not
    the larger window learned from `/v1/models` (which hid why local was skipped)."""
    from router.config import parse

    with (
        simulator(profile="vllm", model="local-model", max_model_len=3000) as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        data = config_for({"local": local, "cloud": cloud}, tmp_path, resilience=FAST)
        dumped = data.model_dump(mode="json")
        dumped["backends"][0]["context_window"] = 300
        with router(parse(dumped)) as proxy:

            def window() -> int | None:
                backends = status(proxy.root)["extra"]["resilience"]["backends"]
                return backends["local"]["context_window"]

            capacity = proxy.components.gateway.state_source.capacity  # type: ignore[attr-defined]
            until(lambda: capacity.load("local").context_window == 3000, what="window learned")
            long = [{"role": "user", "content": "Write a Python function. " * 200}]
            explained = httpx.post(
                f"{proxy.url}/router/explain", json={"model": "coding", "messages": long}
            ).json()
            assert explained["skipped"] == [{"backend": "local", "reason": "context_window"}]
            assert window() == 300


def test_conversation_sticks_to_the_backend_that_served_it(
    pair: dict[str, Running], tmp_path: Path
) -> None:
    """Pinned for a reason that lasts (too long for local's window), not a passing one: a
    conversation a local outage sent to the cloud comes back (`test_sticky_detour`)."""
    config = config_for(pair, tmp_path, resilience=FAST)
    with router(config) as proxy:

        def window() -> int | None:
            return status(proxy.root)["extra"]["resilience"]["backends"]["local"]["context_window"]

        def pinned() -> int:
            return int(status(proxy.root)["extra"]["resilience"]["sticky_conversations"])

        until(lambda: window() == 4096, what="local's window learned")
        long = [{"role": "user", "content": "Write a Python function. " * 800}]
        served = chat(proxy.url, model="auto", prompt_cache_key="agent-7", messages=long)
        assert served.headers["x-smf-backend"] == "cloud"
        until(lambda: pinned() == 1, what="the conversation pinned")

        def first(session: str) -> tuple[str, str]:
            body = {"model": "auto", "messages": CODING, "prompt_cache_key": session}
            step = httpx.post(f"{proxy.url}/router/explain", json=body).json()["backends"][0]
            return step["backend"], step["reason"]

        assert first("agent-7") == ("cloud", "sticky")
        assert first("agent-8") == ("local", "route")


def test_the_sticky_table_holds_sticky_max_entries_at_start_and_after_a_reload(
    pair: dict[str, Running], tmp_path: Path
) -> None:
    """`resilience.sticky_max_entries` bounds the router's memory of conversations: with 2,
    three conversations leave 2 entries; a reload to 1 leaves 1, at once."""
    config = config_for(pair, tmp_path, resilience={**FAST, "sticky_max_entries": 2})
    data = config.model_dump(mode="json")
    path = tmp_path / "router.yaml"
    with router(config) as proxy:
        reload.reloader_of(proxy.components).source = path
        collect = Collect()  # after the resilience sink: a record it holds, the table has seen
        proxy.components.gateway.sinks.append(collect)

        def sticky() -> int:
            return int(status(proxy.root)["extra"]["resilience"]["sticky_conversations"])

        for user in ("agent-1", "agent-2", "agent-3"):
            assert chat(proxy.url, model="auto", user=user).status_code == 200
        until(lambda: len(collect.records) == 3, what="three records finished")
        assert sticky() == 2
        data["resilience"]["sticky_max_entries"] = 1
        path.write_text(yaml.safe_dump(data))
        assert httpx.post(f"{proxy.url}/router/reload").status_code == 200
        assert sticky() == 1


def test_a_request_forced_by_header_does_not_pin_its_conversation(
    pair: dict[str, Running], tmp_path: Path
) -> None:
    """`model: auto` with `x-smf-route: cloud` was remembered as the conversation's backend,
    and the sliding TTL kept the rest of an agent session on the paid cloud (found in review)."""
    with router(config_for(pair, tmp_path, resilience=FAST)) as proxy:
        forced = chat(proxy.url, model="auto", user="agent-9", headers={"x-smf-route": "cloud"})
        assert forced.headers["x-smf-backend"] == "cloud"
        assert [
            chat(proxy.url, model="auto", user="agent-9").headers["x-smf-backend"] for _ in range(3)
        ] == ["local"] * 3


def test_probing_survives_a_probe_that_raises(
    pair: dict[str, Running], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An unforeseen exception in one backend's probe (an InvalidURL from a bad health
    path) ended the probe loop for every backend: an open circuit never saw its trial and
    traffic stayed on the cloud until a restart (found in review)."""
    from router import resilience

    real_probe = resilience.probe

    async def probe(client: httpx.AsyncClient, settings: Any, *args: Any) -> tuple[bool, bool]:
        if settings.name == "cloud":
            raise httpx.InvalidURL("Invalid port: '9healthz'")
        return await real_probe(client, settings, *args)

    monkeypatch.setattr(resilience, "probe", probe)
    with router(config_for(pair, tmp_path, resilience=FAST)) as proxy:
        pair["local"].control("faults", {"down": True, "for_s": 2.0})
        assert [chat(proxy.url).headers["x-smf-backend"] for _ in range(4)] == ["cloud"] * 4
        until(lambda: circuit(proxy.root, "local") == "open", what="circuit open")
        until(lambda: circuit(proxy.root, "local") == "closed", what="circuit closed again")
        assert chat(proxy.url).headers["x-smf-backend"] == "local"


def test_probes_go_direct_like_live_traffic_whatever_http_proxy_says(
    pair: dict[str, Running], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Probes read HTTP_PROXY from the environment and live traffic does not: a proxy meant
    for the internet opened every circuit of a healthy backend (found in review)."""
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY"):
        monkeypatch.setenv(name, "http://127.0.0.1:9")  # nothing listens there
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    with router(config_for(pair, tmp_path, resilience=FAST)) as proxy:
        sent = status(proxy.root)["extra"]["resilience"]["probes_sent"]
        until(
            lambda: status(proxy.root)["extra"]["resilience"]["probes_sent"] >= sent + 4,
            what="four more probes",
        )
        assert circuit(proxy.root, "local") == "closed"
        assert chat(proxy.url).headers["x-smf-backend"] == "local"


def test_a_backend_that_hangs_reads_down_through_its_trials(tmp_path: Path) -> None:
    """A half-open trial counted as up: a backend that accepts connections and never answers
    read 1 for each probe's timeout, so `backend_up` alternated 0/1 and the `for: 2m` of
    SmfLocalBackendDown never completed (found in review)."""
    seen: list[float | None] = []

    def in_trial() -> bool:
        now, local = scrape(proxy.root), {"backend": "local", "tier": "local"}
        if now.get("smf_router_backend_circuit_state", **local, state="half_open") == 1:
            seen.append(now.get("smf_router_backend_up", **local))
        return len(seen) >= 2

    with silent_server() as local, simulator(profile="cloud", model="cloud-model") as cloud:
        config = config_for({"local": local, "cloud": cloud}, tmp_path, resilience=FAST)
        with router(config) as proxy:
            until(in_trial, what="two scrapes during trials")
    assert seen == [0.0, 0.0]
