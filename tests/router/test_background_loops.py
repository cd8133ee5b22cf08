"""A bug in one round of a background loop is logged, and the loop goes on.

Probing, capacity polls and shadow replays ran as background tasks that nothing awaited:
one exception ended the loop for good with no log line (found in a longevity review), and
an open circuit that no probe tried again stayed open. Here each loop raises once, on cue.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import httpx
import pytest

from router import resilience, vllm_metrics
from router.resilience import Resilience
from router.shadow import Shadow
from router.sticky import StickyTable
from tests.harness import breaks_on_call, config_for, router, simulator
from tests.resilience.conftest import FAST, until

MATH = {"model": "auto", "messages": [{"role": "user", "content": "What is 1234 + 4321?"}]}


def logged_bug(caplog: pytest.LogCaptureFixture, words: str) -> bool:
    return any(
        r.levelno >= logging.ERROR
        and words in r.getMessage()
        and r.exc_info is not None
        and r.exc_info[0] is ZeroDivisionError
        for r in caplog.records
    )


def test_probing_goes_on_after_a_round_raised(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = Resilience._sync_live_trials
    # call 1 is at the job's start, 2 the first probe round: the second round raises
    monkeypatch.setattr(Resilience, "_sync_live_trials", breaks_on_call(3, real))
    with (
        caplog.at_level(logging.ERROR, logger="smf_router"),
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
        router(config_for({"local": local, "cloud": cloud}, tmp_path, resilience=FAST)) as proxy,
    ):
        res = proxy.components.gateway.state_source
        assert isinstance(res, Resilience)
        until(lambda: logged_bug(caplog, "probing backends failed"), what="the bug logged")
        sent = res.probes_sent
        until(lambda: res.probes_sent >= sent + 2, what="probes after the bug")


def test_capacity_polls_go_on_after_a_round_raised(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_poll = resilience.poll_metrics
    polls: list[str] = []

    async def poll(client: Any, settings: Any, *args: Any) -> Any:
        polls.append(settings.name)
        return await real_poll(client, settings, *args)

    monkeypatch.setattr(resilience, "poll_metrics", poll)
    # the sticky sweep ends the first round (then once a minute): it raises there
    monkeypatch.setattr(StickyTable, "expire", breaks_on_call(1, StickyTable.expire))
    with (
        caplog.at_level(logging.ERROR, logger="smf_router"),
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
        router(config_for({"local": local, "cloud": cloud}, tmp_path, resilience=FAST)),
    ):
        until(lambda: logged_bug(caplog, "polling backend capacity failed"), what="bug logged")
        done = len(polls)
        until(lambda: len(polls) >= done + 2, what="polls after the bug")


def test_shadow_replays_go_on_after_starting_one_raised(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    with (
        caplog.at_level(logging.ERROR, logger="smf_router"),
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        config = config_for(
            {"local": local, "cloud": cloud}, tmp_path, shadow={"rates": {"math": 1.0}}
        )
        with router(config) as proxy:
            (shadow,) = [s for s in proxy.components.gateway.call_sinks if isinstance(s, Shadow)]
            # call 1 samples the first request, call 2 is its replay's start: that raises
            monkeypatch.setattr(shadow, "states", breaks_on_call(2, shadow.states))
            first = httpx.post(f"{proxy.url}/chat/completions", json=MATH, timeout=30)
            assert first.headers["x-smf-backend"] == "cloud"
            until(lambda: logged_bug(caplog, "starting a replay failed"), what="the bug logged")
            assert local.completions() == 0
            assert httpx.post(f"{proxy.url}/chat/completions", json=MATH).status_code == 200
            until(lambda: local.completions() == 1, what="the next request's replay")


def test_a_bug_in_one_backends_capacity_poll_is_logged_once_per_kind(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A poll that raised (say the parser tripping on a new `/metrics` format) was swallowed
    for good, with no word (found in review). Logged each poll, it would flood the log."""
    raised: list[type[Exception]] = []
    kind: list[type[Exception]] = [TypeError]

    def broken_parse(text: str) -> Any:
        raised.append(kind[0])
        raise kind[0]("a bug")

    def logged(error: type[Exception]) -> int:
        return sum(
            "polling the capacity of local failed" in r.getMessage()
            and r.exc_info is not None
            and r.exc_info[0] is error
            for r in caplog.records
        )

    monkeypatch.setattr(vllm_metrics, "parse", broken_parse)
    with (
        caplog.at_level(logging.ERROR, logger="smf_router"),
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
        router(config_for({"local": local, "cloud": cloud}, tmp_path, resilience=FAST)),
    ):
        until(lambda: logged(TypeError) == 1, what="the bug logged")
        seen = len(raised)
        until(lambda: len(raised) >= seen + 3, what="polls after the bug")
        kind[0] = KeyError  # another bug is news: logged once too
        until(lambda: logged(KeyError) == 1, what="the other bug logged")
        seen = len(raised)
        until(lambda: len(raised) >= seen + 3, what="polls after the other bug")
    assert (logged(TypeError), logged(KeyError)) == (1, 1)
