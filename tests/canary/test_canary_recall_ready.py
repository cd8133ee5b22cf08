"""A started router is not ready (`/readyz` 503) until the canary's recall of its gates is
over: it said ready as the recall began, and took traffic with every gate open for up to
11 s (30 days of a CronJob's uncompacted rounds, a gate that never fills). A recall that
fails, or outlasts `READY_WAIT_S`, does not keep it out of service."""

from __future__ import annotations

import logging
import threading
from collections.abc import Collection
from pathlib import Path
from typing import Any

import httpx
import pytest

from evals.suite import SHIPPED
from router import components
from router.canary_follow import Follower
from router.canary_judge import Judge
from router.config import Config, parse
from tests.canary.past_rounds import CANARY, CLOUD, LOCAL, write_rounds
from tests.canary.servers import router
from tests.harness import RunningRouter, wait_until

WAITING = {"status": "starting", "waiting_for": ["recalling canary gates"]}


def settings(ledger: Path, own_canary: bool, floors: bool = True) -> Config:
    """Backends nothing answers on: a router with its own canary (`Schedule.recall`) runs
    rounds of errors only after the recall, which grade nothing; one without follows the
    ledger (the follower's first read). Without `floors`, no gate may close."""
    canary: dict[str, Any] = {**CANARY, "enabled": own_canary}
    if not floors:
        canary["floors"] = {}
    if own_canary:
        canary |= {"suites": str(SHIPPED / "math"), "sample_per_suite": 3, "interval_s": 3600}
    data = {"backends": [LOCAL, CLOUD], "ledger": {"path": str(ledger)}, "canary": canary}
    return parse(data | {"resilience": {"enabled": False}})


def held_recalls(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Each recall waits (on its worker thread) until the event returned is set."""
    release = threading.Event()
    recall = Follower.recall_rounds

    def held(self: Follower, first_day: str) -> Any:
        release.wait(30)
        return recall(self, first_day)

    monkeypatch.setattr(Follower, "recall_rounds", held)
    return release


def readiness(proxy: RunningRouter) -> httpx.Response:
    return httpx.get(f"{proxy.root}/readyz", timeout=5)


def gated(proxy: RunningRouter, backend: str) -> list[str]:
    status = httpx.get(f"{proxy.url}/router/status", timeout=5).json()
    return next(b["gated_intents"] for b in status["backends"] if b["name"] == backend)


@pytest.mark.parametrize("own_canary", [False, True], ids=["follower", "own_canary"])
def test_readyz_answers_503_until_the_recall_closed_the_gates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, own_canary: bool
) -> None:
    write_rounds(tmp_path, 5, {"cloud": ["fail"] * 3, "local": ["pass"] * 3})
    release = held_recalls(monkeypatch)
    try:
        with router(settings(tmp_path, own_canary)) as proxy:
            answer = readiness(proxy)
            assert (answer.status_code, answer.json()) == (503, WAITING)
            assert gated(proxy, "cloud") == []  # not recalled yet: what a probe keeps away
            release.set()
            assert wait_until(lambda: readiness(proxy).status_code == 200)
            assert gated(proxy, "cloud") == ["math"]
            assert readiness(proxy).json() == {"status": "ready"}
    finally:
        release.set()


@pytest.mark.parametrize("own_canary", [False, True], ids=["follower", "own_canary"])
def test_without_a_gate_to_recall_the_router_is_ready_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, own_canary: bool
) -> None:
    """No floor, configured or learned (the demo): the recall closes no gate, and `/readyz`
    does not wait for it (it said so for the 0.1-0.2 s of the read)."""
    release = held_recalls(monkeypatch)
    try:
        with router(settings(tmp_path, own_canary, floors=False)) as proxy:
            assert readiness(proxy).json() == {"status": "ready"}
            assert not release.is_set()  # the recall goes on
    finally:
        release.set()


def test_a_recall_longer_than_the_bound_leaves_the_router_ready_anyway(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A stalled ledger (a hung network volume) does not keep a replica out of service."""
    monkeypatch.setattr(components, "READY_WAIT_S", 0.5)
    release = held_recalls(monkeypatch)
    try:
        warnings = caplog.at_level(logging.WARNING, "smf_router")
        with warnings, router(settings(tmp_path, False)) as proxy:
            assert wait_until(lambda: readiness(proxy).status_code == 200)
            assert not release.is_set()  # the recall goes on
            said = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
            assert "ready after 0.5 s though still recalling canary gates" in " ".join(said)
    finally:
        release.set()


@pytest.mark.parametrize("own_canary", [False, True], ids=["follower", "own_canary"])
def test_a_failed_recall_leaves_the_router_ready(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, own_canary: bool
) -> None:
    """The failure is logged (the gates start open); the router serves, and says so."""

    def unreadable(self: Follower, first_day: str) -> Any:
        raise OSError("Input/output error")

    monkeypatch.setattr(Follower, "recall_rounds", unreadable)
    with router(settings(tmp_path, own_canary)) as proxy:
        assert wait_until(lambda: readiness(proxy).status_code == 200)


def test_a_recall_failing_past_the_read_leaves_the_router_ready_and_its_canary_running(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A step after the ledger's read (here, dropping the suites no longer configured) that
    raised ended the canary's job with no word: `/readyz` said 503 until `READY_WAIT_S`, and
    no round ran until a restart. It is logged; the router is ready, and its canary runs."""
    write_rounds(tmp_path, 5, {"cloud": ["fail"] * 3, "local": ["pass"] * 3})
    forget_suites = Judge.forget_suites
    failed: list[bool] = []

    def fails_once(self: Judge, keep: Collection[str]) -> None:
        if not failed:
            failed.append(True)
            raise RuntimeError("injected past the read")
        forget_suites(self, keep)

    monkeypatch.setattr(Judge, "forget_suites", fails_once)
    with (
        caplog.at_level(logging.ERROR, "smf_router.canary"),
        router(settings(tmp_path, True)) as proxy,
    ):
        # under READY_WAIT_S (30 s), after which the old code said ready too
        assert wait_until(lambda: readiness(proxy).status_code == 200, seconds=20)
        assert failed
        said = [r.getMessage() for r in caplog.records if r.exc_info is not None]
        assert "canary: recalling the ledger's rounds failed; the runs go on" in said
        assert gated(proxy, "cloud") == ["math"]  # what the read judged stands

        def ran() -> bool:
            status = httpx.get(f"{proxy.url}/router/status", timeout=5).json()
            return status["extra"]["canary"]["runs"] > 2  # the two recalled, and one of its own

        assert wait_until(ran)
