"""A reload that changes a backend's settings but not its server (`base_url`, `model`,
`kind`, `extra_body`: `router.server_identity`) keeps what resilience knows of it: the
attempts running there still count against its `max_concurrency`, its circuit stays as it
was, and so does the wait a 429 asked for. Any change started them over: a reload lowering
the cap from 6 to 3 under six streams read 0 in flight and sent three more, nine on a
backend capped at 3 (found in review). One that points the name at another server still
starts over."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from router import reload, resilience
from router.config import parse
from router.resilience import Resilience
from tests.harness import Running, RunningRouter, config_for, router, scrape, simulator
from tests.resilience.conftest import CODING, FAST, backend_state, chat, until

SLOW = {"connect_s": 2, "first_token_s": 30, "idle_s": 30, "total_s": 60}
# Only live traffic moves the breakers and only the router's own count makes a backend
# full: a probe or a `/metrics` poll of the held simulator would say other things.
QUIET = {**FAST, "probe_interval_s": 30, "capacity_poll_s": 30}
INFLIGHT = "smf_router_backend_inflight_requests"


@dataclass
class Reloading:
    """A running router whose config file a test rewrites and reloads."""

    proxy: RunningRouter
    path: Path

    def reload(self, data: dict[str, Any]) -> list[str]:
        """Apply `data`; the backends the reload says it changed."""
        self.path.write_text(yaml.safe_dump(data))
        answer = httpx.post(f"{self.proxy.url}/router/reload", timeout=60)
        assert answer.status_code == 200, answer.text
        changed: list[str] = answer.json()["backends"]["changed"]
        return changed

    def local(self) -> tuple[int, str | None]:
        """`local`'s in-flight count and why it is saturated, as status says them."""
        state = backend_state(self.proxy.root, "local")
        return state["inflight"], state["saturated"]

    def gauge(self) -> float | None:
        return scrape(self.proxy.root).get(INFLIGHT, backend="local", tier="local")


@contextmanager
def reloading(data: dict[str, Any], tmp: Path) -> Iterator[Reloading]:
    path = tmp / "router.yaml"
    with router(parse(data)) as proxy:
        reload.reloader_of(proxy.components).source = path
        yield Reloading(proxy, path)


def with_local(data: dict[str, Any], **settings: Any) -> dict[str, Any]:
    """`data` with `settings` changed on its `local` backend."""
    backends = [{**b, **settings} if b["name"] == "local" else b for b in data["backends"]]
    return {**data, "backends": backends}


def streams(proxy: RunningRouter, n: int) -> tuple[list[threading.Thread], list[Any]]:
    """`n` coding streams, each from a thread of its own, started: the threads, and the list
    each one's (status, backend) lands in."""
    served: list[Any] = []

    def stream() -> None:
        body = {"model": "coding", "messages": CODING, "stream": True, "max_tokens": 5}
        with httpx.stream(
            "POST", f"{proxy.url}/chat/completions", json=body, timeout=60
        ) as response:
            response.read()
            served.append((response.status_code, response.headers.get("x-smf-backend")))

    threads = [threading.Thread(target=stream) for _ in range(n)]
    for thread in threads:
        thread.start()
    return threads, served


def released(sim: Running, threads: list[threading.Thread]) -> None:
    sim.control("release", {})
    for thread in threads:
        thread.join(timeout=60)


def test_a_reload_that_lowers_max_concurrency_keeps_counting_the_streams_running(
    tmp_path: Path,
) -> None:
    """The review's case, smaller: two streams held on `local` (cap 2), a reload lowers the
    cap to 1 and raises a timeout. Status and the gauge both say 2 in flight, `local` is
    full, and the next local-first request goes to the cloud, not to a third stream there."""
    with (
        simulator(profile="vllm", model="local-model", fault="hold") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        data = config_for({"local": local, "cloud": cloud}, tmp_path, resilience=QUIET)
        first = data.model_dump(mode="json")
        for backend in first["backends"]:
            backend["timeouts"] = SLOW
        first = with_local(first, max_concurrency=2)
        lowered = with_local(first, max_concurrency=1, timeouts={**SLOW, "first_token_s": 31})
        with reloading(first, tmp_path) as running:
            threads, served = streams(running.proxy, 2)
            until(lambda: local.stats()["held"] == 2, what="two streams held at local")
            until(lambda: running.local() == (2, "inflight_limit"), what="local full")

            assert running.reload(lowered) == ["local"]
            assert running.local() == (2, "inflight_limit")  # was (0, None): forgotten
            assert running.gauge() == 2  # status and /metrics agree

            answer = chat(running.proxy.url)
            assert (answer.status_code, answer.headers["x-smf-backend"]) == (200, "cloud")
            assert local.stats()["held"] == 2  # no third stream on a backend capped at 1

            released(local, threads)  # the retired adapter's ends lower the kept count
            assert sorted(served) == [(200, "local"), (200, "local")]
            until(lambda: running.local() == (0, None), what="both ends counted")
            assert running.gauge() == 0
            assert cloud.completions() == 1


def test_streams_a_reload_kept_counting_stop_counting_once_a_later_one_repoints_it(
    tmp_path: Path,
) -> None:
    """A stream on `local` kept counting through a reload that changed a timeout; a second
    reload points `local` at another server, whose load starts at 0. The stream's end, on
    an adapter retired by the first reload, must not lower the new server's count."""
    with (
        simulator(profile="vllm", model="local-model", fault="hold") as old,
        simulator(profile="vllm", model="local-model", fault="hold") as new,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        data = config_for({"local": old, "cloud": cloud}, tmp_path, resilience=QUIET)
        first = data.model_dump(mode="json")
        for backend in first["backends"]:
            backend["timeouts"] = SLOW
        first = with_local(first, max_concurrency=1)
        slower = with_local(first, timeouts={**SLOW, "first_token_s": 31})
        with reloading(first, tmp_path) as running:
            before, _ = streams(running.proxy, 1)
            until(lambda: running.local() == (1, "inflight_limit"), what="local full")
            assert running.reload(slower) == ["local"]
            assert running.local() == (1, "inflight_limit")

            assert running.reload(with_local(slower, base_url=new.url)) == ["local"]
            assert running.local() == (0, None)  # another server: its load starts over
            after, _ = streams(running.proxy, 1)
            until(lambda: new.stats()["held"] == 1, what="a stream at the new server")
            assert running.local() == (1, "inflight_limit")

            released(old, before)
            until(lambda: running.gauge() == 1, what="the old stream's end seen")
            assert running.local() == (1, "inflight_limit")  # the new stream still counts
            released(new, after)
            until(lambda: running.local() == (0, None), what="the new stream's end counted")
            assert cloud.completions() == 0


def test_a_reload_keeps_a_circuit_and_a_429_wait_until_it_points_at_another_server(
    tmp_path: Path,
) -> None:
    """`local` fails three times (its circuit opens for a minute) and `cloud` asks for a
    60 s wait. A reload that changes both backends' timeouts keeps both: routing still
    passes them by, and `backend_up` still says 0; the wait was "forgotten on any backend
    setting change". A reload pointing them at other servers starts both over."""
    down = {**QUIET, "open_s": 60, "max_open_s": 60}
    with (
        simulator(profile="vllm", model="local-model", fault="server_error") as local,
        simulator(profile="cloud", model="cloud-model", fault="rate_limit:60") as cloud,
        simulator(profile="vllm", model="local-model") as other_local,
        simulator(profile="cloud", model="cloud-model") as other_cloud,
    ):
        first = config_for({"local": local, "cloud": cloud}, tmp_path, resilience=down)
        data = first.model_dump(mode="json")
        with reloading(data, tmp_path) as running:
            root = running.proxy.root
            for _ in range(3):
                assert chat(running.proxy.url, "local").status_code >= 500
            assert chat(running.proxy.url, "cloud").status_code == 429
            slower = {
                **data,
                "backends": [{**b, "timeouts": SLOW} for b in data["backends"]],
            }
            assert running.reload(slower) == ["local", "cloud"]

            assert backend_state(root, "local")["circuit"] == "open"
            wait = backend_state(root, "cloud")["rate_limited_for_s"]
            assert wait is not None and wait > 30
            metrics = scrape(root)
            assert metrics.get("smf_router_backend_up", backend="local", tier="local") == 0
            assert chat(running.proxy.url).status_code in (429, 503)  # both passed by
            assert (local.completions(), cloud.completions()) == (3, 1)

            urls = {"local": other_local.url, "cloud": other_cloud.url}
            moved = {
                **slower,
                "backends": [{**b, "base_url": urls[b["name"]]} for b in slower["backends"]],
            }
            assert running.reload(moved) == ["local", "cloud"]
            assert backend_state(root, "local")["circuit"] == "closed"
            assert backend_state(root, "cloud")["rate_limited_for_s"] is None
            answer = chat(running.proxy.url)
            assert (answer.status_code, answer.headers["x-smf-backend"]) == (200, "local")


def test_a_probe_trial_a_reload_keeps_the_backend_through_still_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Kept across a reload, a half-open breaker whose trial a probe had claimed waited for
    that probe's answer, which was dropped as about "another server" when the settings were
    no longer equal: the trial never ended and the circuit stayed open for good."""
    real_probe = resilience.probe
    swapped: list[bool] = []
    with (
        simulator(profile="vllm", model="local-model", fault="server_error") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        data = config_for({"local": local, "cloud": cloud}, tmp_path, resilience=FAST)
        slower = with_local(data.model_dump(mode="json"), timeouts=SLOW)
        with reloading(data.model_dump(mode="json"), tmp_path) as running:
            res = running.proxy.components.gateway.state_source
            assert isinstance(res, Resilience)
            reloader = reload.reloader_of(running.proxy.components)

            async def probe(client: Any, settings: Any, *args: Any) -> tuple[bool, bool]:
                trial = res.health.breaker(settings.name).trial
                if settings.name == "local" and trial and not swapped:
                    swapped.append(True)
                    assert (await reloader.reload(None, parse(slower))).ok
                return await real_probe(client, settings, *args)

            for _ in range(FAST["failure_threshold"]):
                chat(running.proxy.url, "local")
            until(lambda: backend_state(running.proxy.root, "local")["circuit"] != "closed")
            local.control("faults", {"fault": None})
            monkeypatch.setattr(resilience, "probe", probe)
            until(lambda: bool(swapped), what="a reload during the trial's probe")
            until(
                lambda: backend_state(running.proxy.root, "local")["circuit"] == "closed",
                what="the trial's pass closing the circuit",
            )
