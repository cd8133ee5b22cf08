"""Backends a reload retired: requests that started before it finish on them, and what
happens on them no longer speaks for the backend that bears their name now."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from router import reload
from router.config import Config, parse
from tests.harness import Attempts, RunningRouter, config_for, router, scrape, simulator
from tests.resilience.conftest import CODING, FAST, chat, status, until


@contextmanager
def reloadable(
    config: Config, reloaded: dict[str, Any], tmp_path: Path
) -> Iterator[tuple[RunningRouter, Attempts]]:
    """The router on `config`; a reload reads `reloaded`; its attempts observed."""
    path = tmp_path / "router.yaml"
    path.write_text(yaml.safe_dump(reloaded))
    with router(config) as proxy:
        reload.reloader_of(proxy.components).source = path
        attempts = Attempts()
        proxy.components.gateway.dispatcher.observers.append(attempts)
        yield proxy, attempts


def test_a_fallback_onto_a_retired_backend_is_not_cut_when_its_grace_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A request that started before the reload fell back, after it, onto the old `cloud`;
    the old `cloud` was closed `total_s` (+5 s) after the reload, in the middle of that
    stream, which hung until its deadline and ended in an error event (found in review)."""
    monkeypatch.setattr(reload, "CLOSE_MARGIN_S", 0.0)  # the grace: cloud's total_s, 5 s
    with (
        simulator(profile="vllm", model="local-model", fault="no_response") as local,
        simulator(profile="cloud", model="cloud-model", tokens_per_s=10) as cloud,
    ):
        data = config_for({"local": local, "cloud": cloud}, tmp_path).model_dump(mode="json")
        data["backends"][0]["timeouts"] = {"first_token_s": 3, "idle_s": 3, "total_s": 30}
        data["backends"][1]["timeouts"] = {"first_token_s": 3, "idle_s": 3, "total_s": 5}
        config = parse(data)
        data["backends"][1]["headers"] = {"x-release": "2"}  # cloud changes: retired
        with reloadable(config, data, tmp_path) as (proxy, attempts):
            result: dict[str, Any] = {}

            def stream() -> None:
                # local never answers: at 3 s the request falls back onto the old cloud,
                # whose 35 tokens take 3.5 s, past the grace that ends 5 s after the reload
                body = {
                    "model": "coding",
                    "messages": CODING,
                    "stream": True,
                    "max_tokens": 35,
                    "ignore_eos": True,
                }
                with httpx.stream(
                    "POST", f"{proxy.url}/chat/completions", json=body, timeout=30
                ) as response:
                    result["status"] = response.status_code
                    result["backend"] = response.headers.get("x-smf-backend")
                    result["text"] = "".join(response.iter_text())

            thread = threading.Thread(target=stream)
            thread.start()
            until(lambda: attempts.started == ["local"], what="the attempt on local")
            changed = httpx.post(f"{proxy.url}/router/reload").json()["backends"]["changed"]
            assert changed == ["cloud"]
            thread.join(timeout=30)
            assert (result["status"], result["backend"]) == (200, "cloud")
            assert '"error"' not in result["text"]
            assert result["text"].rstrip().endswith("data: [DONE]")
            until(  # closed once its last attempt ended, the grace being over
                lambda: status(proxy.root)["extra"]["reload"]["retiring_backends"] == 0,
                what="the retired cloud closed",
            )


def test_failures_on_a_retired_backend_do_not_open_the_new_ones_circuit(
    tmp_path: Path,
) -> None:
    """Requests in flight on the old server of `local` failed after a reload had moved
    `local` to a healthy one; their failures opened its circuit, and the next request got
    a 503 though the new server never saw one (found in review)."""
    with (
        simulator(profile="vllm", model="local-model", fault="no_response") as old,
        simulator(profile="vllm", model="local-model") as new,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        resilience = {**FAST, "probe_interval_s": 30}  # only live traffic moves the breaker
        data = config_for(
            {"local": old, "cloud": cloud}, tmp_path, resilience=resilience
        ).model_dump(mode="json")
        data["backends"][0]["timeouts"] = {"first_token_s": 2, "idle_s": 2, "total_s": 2}
        config = parse(data)
        data["backends"][0]["base_url"] = new.url
        path = tmp_path / "router.yaml"
        path.write_text(yaml.safe_dump(data))
        with router(config) as proxy:
            reload.reloader_of(proxy.components).source = path
            codes: list[int] = []
            threads = [
                threading.Thread(target=lambda: codes.append(chat(proxy.url, "local").status_code))
                for _ in range(FAST["failure_threshold"])
            ]
            for thread in threads:
                thread.start()

            def inflight() -> int:
                return int(
                    status(proxy.root)["extra"]["resilience"]["backends"]["local"]["inflight"]
                )

            until(lambda: inflight() == len(threads), what="the requests on the old server")
            assert httpx.post(f"{proxy.url}/router/reload").json()["backends"]["changed"] == [
                "local"
            ]
            for thread in threads:
                thread.join(timeout=30)
            assert codes == [504] * len(threads)  # the old server never answered
            local = status(proxy.root)["extra"]["resilience"]["backends"]["local"]
            assert (local["circuit"], local["consecutive_failures"], local["inflight"]) == (
                "closed",
                0,
                0,
            )
            assert chat(proxy.url, "local").status_code == 200
            assert new.completions() == 1


def test_a_fallback_onto_a_retired_backend_after_its_grace_does_not_judge_the_new_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Retired was forgotten when the grace ended and the backend closed: a request from
    before the reload that fell back onto the old `local` later failed there, opened the
    circuit of the new `local`, and the next request got a 503 (found in review)."""
    monkeypatch.setattr(reload, "CLOSE_MARGIN_S", 0.0)  # the grace: local's total_s, 2 s
    with (
        simulator(profile="vllm", model="first-model", fault="no_response") as first,
        simulator(profile="vllm", model="local-model", fault="no_response") as old,
        simulator(profile="vllm", model="local-model") as new,
    ):
        resilience = {**FAST, "failure_threshold": 1, "probe_interval_s": 30}
        data = config_for(
            {"first": first, "local": old}, tmp_path, resilience=resilience
        ).model_dump(mode="json")
        data["backends"][0]["tier"] = "local"
        data["backends"][0]["timeouts"] = {"first_token_s": 4, "idle_s": 4, "total_s": 30}
        data["backends"][1]["timeouts"] = {"first_token_s": 2, "idle_s": 2, "total_s": 2}
        data["routes"] = {intent: ["first", "local"] for intent in data["routes"]}
        config = parse(data)
        data["backends"][1]["base_url"] = new.url
        with reloadable(config, data, tmp_path) as (proxy, attempts):
            codes: list[int] = []

            def stream() -> None:  # a stream: first_token_s, not total_s, ends each attempt
                codes.append(chat(proxy.url, stream=True, max_tokens=5).status_code)

            thread = threading.Thread(target=stream)
            thread.start()
            until(lambda: attempts.started == ["first"], what="the attempt on first")
            assert httpx.post(f"{proxy.url}/router/reload").json()["backends"]["changed"] == [
                "local"
            ]
            until(  # the old local closed while the request still waits on first
                lambda: status(proxy.root)["extra"]["reload"]["retiring_backends"] == 0,
                what="the retired local closed",
            )
            thread.join(timeout=30)
            assert attempts.started == ["first", "local"] and codes == [504]
            local = status(proxy.root)["extra"]["resilience"]["backends"]["local"]
            assert (local["circuit"], local["consecutive_failures"]) == ("closed", 0)
            assert chat(proxy.url, "local").status_code == 200
            assert new.completions() == 1


INFLIGHT = "smf_router_backend_inflight_requests"


def test_a_reload_that_repoints_a_full_backend_starts_its_load_over(tmp_path: Path) -> None:
    """`local` (one slot) was full with a stream on its old server: after a reload moved it to
    an idle one it stayed full (`inflight_limit`), and local-first requests overflowed to
    the cloud until the old stream ended (minutes for an agent's); that end then lowered
    the count of the stream on the new server (found in review). A reload that changes
    nothing about `local` keeps its count."""
    with (
        simulator(profile="vllm", model="local-model", fault="hold") as old,
        simulator(profile="vllm", model="local-model", fault="hold") as new,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        data = config_for({"local": old, "cloud": cloud}, tmp_path, resilience=FAST).model_dump(
            mode="json"
        )
        for backend in data["backends"]:
            backend["timeouts"] = {"first_token_s": 30, "idle_s": 30, "total_s": 60}
        data["backends"][0]["max_concurrency"] = 1
        repointed = {**data, "backends": [dict(b) for b in data["backends"]]}
        repointed["backends"][0]["base_url"] = new.url
        path = tmp_path / "router.yaml"
        with router(parse(data)) as proxy:
            reload.reloader_of(proxy.components).source = path

            def local() -> tuple[int, str | None]:
                found = status(proxy.root)["extra"]["resilience"]["backends"]["local"]
                return found["inflight"], found["saturated"]

            def reload_to(spec: dict[str, Any]) -> list[str]:
                path.write_text(yaml.safe_dump(spec))
                changed: list[str] = httpx.post(f"{proxy.url}/router/reload").json()["backends"][
                    "changed"
                ]
                return changed

            def gauge() -> float | None:
                return scrape(proxy.root).get(INFLIGHT, backend="local", tier="local")

            served: list[tuple[int, str | None]] = []

            def stream() -> None:
                body = {"model": "coding", "messages": CODING, "stream": True, "max_tokens": 5}
                with httpx.stream(
                    "POST", f"{proxy.url}/chat/completions", json=body, timeout=60
                ) as response:
                    response.read()
                    served.append((response.status_code, response.headers.get("x-smf-backend")))

            first = threading.Thread(target=stream)
            first.start()
            until(lambda: local() == (1, "inflight_limit"), what="local full with the old stream")
            assert reload_to(data) == []
            assert local() == (1, "inflight_limit")  # unchanged: its count stays

            assert reload_to(repointed) == ["local"]
            assert local() == (0, None)
            second = threading.Thread(target=stream)
            second.start()
            until(lambda: new.stats()["held"] == 1, what="the new stream at the new server")
            assert local() == (1, "inflight_limit")
            assert gauge() == 2  # the metric counts every attempt under the name, both servers

            old.control("release", {})
            first.join(timeout=60)
            until(lambda: gauge() == 1, what="the old stream's end counted")
            assert local() == (1, "inflight_limit")  # the new stream still runs

            new.control("release", {})
            second.join(timeout=60)
            assert served == [(200, "local"), (200, "local")]
            until(lambda: local() == (0, None), what="the new stream's end counted")
            assert cloud.completions() == 0
