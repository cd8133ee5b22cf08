"""Reloads that remove backends leave nothing of them behind: not in resilience's state (an
attempt still running there is the old server's), not written back by a probe or poll that
was in flight, not in `/metrics` once their last attempt is over. A router reloaded with
renamed backends for weeks kept one entry per name (found in a longevity review)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import yaml

from router import reload, resilience
from router.config import parse
from router.resilience import Resilience
from tests.harness import RunningRouter, config_for, router, scrape, simulator
from tests.resilience.conftest import CODING, FAST, status, until, with_one_to_remove, without

SLOW = {"connect_s": 2, "first_token_s": 30, "idle_s": 30, "total_s": 60}
OTHER = {"local": "cloud", "cloud": "local"}  # the other tier


def renamed(data: dict[str, Any], old: str, new: str) -> dict[str, Any]:
    """`data` with backend `old` called `new`, in the backends and the routes."""
    backends = [{**b, "name": new} if b["name"] == old else b for b in data["backends"]]
    routes = {i: [new if n == old else n for n in names] for i, names in data["routes"].items()}
    return {**data, "backends": backends, "routes": routes}


def asked_aside(proxy: RunningRouter, model: str) -> tuple[threading.Thread, list[int]]:
    """A coding request for `model` sent from a thread of its own, started: the thread, and
    the list its answer's status lands in."""
    answers: list[int] = []
    body = {"model": model, "messages": CODING}
    thread = threading.Thread(
        target=lambda: answers.append(
            httpx.post(f"{proxy.url}/chat/completions", json=body, timeout=60).status_code
        )
    )
    thread.start()
    return thread, answers


def state_names(res: Resilience) -> dict[str, set[str]]:
    """Every backend name resilience keeps something for, by where it keeps it."""
    return {
        "loads": set(res.capacity.loads),
        "breakers": set(res.health.breakers),
        "next_probe": set(res._next_probe),
        "health_path_known": set(res._health_path_known),
    }


def test_renaming_reloads_keep_no_state_for_removed_names_while_attempts_run_or_after(
    tmp_path: Path,
) -> None:
    with (
        simulator(profile="vllm", model="local0-model", fault="hold") as held,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        data = config_for({"local0": held, "cloud": cloud}, tmp_path, resilience=FAST)
        first = data.model_dump(mode="json")
        for backend in first["backends"]:
            backend["timeouts"] = SLOW
        path = tmp_path / "router.yaml"
        with router(parse(first)) as proxy:
            reload.reloader_of(proxy.components).source = path
            res = proxy.components.gateway.state_source
            assert isinstance(res, Resilience)
            thread, answers = asked_aside(proxy, "local0")
            until(lambda: res.capacity.load("local0").inflight == 1, what="attempt in flight")

            current = first
            for i in range(1, 4):
                current = renamed(current, f"local{i - 1}", f"local{i}")
                path.write_text(yaml.safe_dump(current))
                assert httpx.post(f"{proxy.url}/router/reload").status_code == 200
            assert status(proxy.root)["extra"]["resilience"]["backends"]["local3"]["inflight"] == 0

            names = {"local3", "cloud"}
            # local0's attempt still runs, on a retired backend: nothing counts it any more
            assert all(found <= names for found in state_names(res).values())

            held.control("release", {})
            thread.join(timeout=60)
            assert answers == [200]
            assert all(found <= names for found in state_names(res).values())  # nor comes back


def test_a_probe_in_flight_during_a_reload_writes_nothing_back_for_the_removed_backend(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """The probe's answer came back after the reload forgot the backend: a breaker with one
    failure and an unknown health path stayed, and a backend of that name added later
    started with them."""
    real_probe = resilience.probe
    swapped: list[bool] = []
    with with_one_to_remove(tmp_path) as (data, proxy):
        reloader = reload.reloader_of(proxy.components)
        res = proxy.components.gateway.state_source
        assert isinstance(res, Resilience)

        async def probe(client: Any, settings: Any, *args: Any) -> tuple[bool, bool]:
            if settings.name == "local_gone" and not swapped:
                swapped.append(True)
                assert (await reloader.reload(None, parse(without(data, "local_gone")))).ok
                return False, False  # down, and no health path: both must not stay
            return await real_probe(client, settings, *args)

        monkeypatch.setattr(resilience, "probe", probe)
        until(lambda: bool(swapped), what="a reload during a probe")
        sent = res.probes_sent
        until(lambda: res.probes_sent >= sent + 4, what="more probe rounds")
        assert all("local_gone" not in found for found in state_names(res).values())

        reloader.source = tmp_path / "router.yaml"
        reloader.source.write_text(yaml.safe_dump(data))  # local_gone comes back
        assert httpx.post(f"{proxy.url}/router/reload").status_code == 200
        added = status(proxy.root)["extra"]["resilience"]["backends"]["local_gone"]
        assert (added["circuit"], added["consecutive_failures"]) == ("closed", 0)


def test_a_poll_in_flight_during_a_reload_brings_no_breaker_back(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """The capacity loop walks the backends it began with: after a reload during one poll it
    read the removed backend's breaker next, which made a new one."""
    real_poll = resilience.poll_metrics
    swapped: list[bool] = []
    polls: list[str] = []
    with with_one_to_remove(tmp_path) as (data, proxy):
        reloader = reload.reloader_of(proxy.components)
        res = proxy.components.gateway.state_source
        assert isinstance(res, Resilience)

        async def poll(client: Any, settings: Any, *args: Any) -> Any:
            polls.append(settings.name)
            if settings.name == "local" and not swapped:  # local_gone is next in the loop
                swapped.append(True)
                assert (await reloader.reload(None, parse(without(data, "local_gone")))).ok
            return await real_poll(client, settings, *args)

        monkeypatch.setattr(resilience, "poll_metrics", poll)
        until(lambda: bool(swapped), what="a reload during a poll")
        done = len(polls)
        until(lambda: len(polls) >= done + 4, what="more capacity rounds")
        assert all("local_gone" not in found for found in state_names(res).values())


INFLIGHT = "smf_router_backend_inflight_requests"


@dataclass
class Held:
    """A router with an attempt on `local0` held in flight, and its config file to reload."""

    proxy: RunningRouter
    first: dict[str, Any]
    path: Path
    ask_cloud: dict[str, Any]
    release: Callable[[], None]

    def reload(self, data: dict[str, Any]) -> None:
        self.path.write_text(yaml.safe_dump(data))
        assert httpx.post(f"{self.proxy.url}/router/reload").status_code == 200

    def series_go(self, what: str) -> None:
        """After a reload that moved both backends: idle `cloud0`'s series is gone at once,
        `local0`'s (its attempt still running) goes once the attempt is released."""
        root = self.proxy.root
        now = scrape(root)
        assert now.get(INFLIGHT, backend="cloud0", tier="cloud") is None  # idle: gone now
        assert now.get(INFLIGHT, backend="local0", tier="local") == 1  # still running
        self.release()
        until(lambda: scrape(root).get(INFLIGHT, backend="local0", tier="local") is None, what=what)


@contextmanager
def local_attempt_held(tmp_path: Path) -> Iterator[Held]:
    """`cloud0` served once (its series at 0) and one attempt on `local0` held by the
    simulator; after the block the attempt is released and must have answered 200."""
    with (
        simulator(profile="vllm", model="local0-model", fault="hold") as held,
        simulator(profile="cloud", model="cloud0-model") as cloud,
    ):
        first = config_for({"local0": held, "cloud0": cloud}, tmp_path).model_dump(mode="json")
        for backend in first["backends"]:
            backend["timeouts"] = SLOW
        path = tmp_path / "router.yaml"
        with router(parse(first)) as proxy:
            reload.reloader_of(proxy.components).source = path
            ask = {"model": "cloud0", "messages": CODING}
            assert httpx.post(f"{proxy.url}/chat/completions", json=ask).status_code == 200
            thread, answers = asked_aside(proxy, "local0")
            until(
                lambda: scrape(proxy.root).get(INFLIGHT, backend="local0", tier="local") == 1,
                what="attempt in flight",
            )

            def release() -> None:
                held.control("release", {})
                thread.join(timeout=60)
                assert answers == [200]

            yield Held(proxy, first, path, ask, release)


def test_a_removed_backends_inflight_series_goes_once_its_last_attempt_ends(
    tmp_path: Path,
) -> None:
    """`backend_inflight_requests` kept a 0-valued series per removed backend until a restart.
    Resilience off (the harness default): attempts are counted without it, so is this."""
    with local_attempt_held(tmp_path) as held:
        root = held.proxy.root
        assert scrape(root).get(INFLIGHT, backend="cloud0", tier="cloud") == 0
        both = renamed(renamed(held.first, "local0", "local1"), "cloud0", "cloud1")
        held.reload(both)
        held.series_go("local0's series gone with its last attempt")


def test_a_backend_moved_to_another_tier_leaves_no_inflight_series_under_the_old_one(
    tmp_path: Path,
) -> None:
    """The series is labelled by backend and tier, and its removal checked the name only:
    a reload that changed a backend's tier left the old tier's series at 0 until a restart
    (found in review). An idle one goes at the reload, a busy one with its last attempt."""
    with local_attempt_held(tmp_path) as held:
        root = held.proxy.root
        swapped = {
            **held.first,
            "backends": [{**b, "tier": OTHER[b["tier"]]} for b in held.first["backends"]],
        }
        held.reload(swapped)
        held.series_go("local0's old-tier series gone with its last attempt")
        ask = held.ask_cloud
        assert httpx.post(f"{held.proxy.url}/chat/completions", json=ask).status_code == 200
        assert scrape(root).get(INFLIGHT, backend="cloud0", tier="local") == 0
