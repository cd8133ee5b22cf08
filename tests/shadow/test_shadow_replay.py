"""Shadow replays against real simulators: compare, price apart, bound, drop, judge blind."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson

from evals.runner import SANDBOX_SLOTS, sandbox_slots
from evals.sandbox import RunOutcome, run_python
from router import backends as backend_factory
from router.comparison import Reply
from router.config import Config
from router.policy import BackendState
from router.pricing import Pricer
from router.shadow import Shadow
from tests.harness import Running, config_for, simulator
from tests.shadow.replaying import (
    PRICE,
    QUESTION,
    Rows,
    close_all,
    cloud_record,
    replayed,
    shadow_of,
    taken,
)


class FixedRandom(random.Random):
    """random() returns a fixed value: decides the judge's order in tests."""

    def __init__(self, value: float) -> None:
        super().__init__(0)
        self.value = value

    def random(self) -> float:
        return self.value


@contextmanager
def sims(
    tmp: Path, judge: bool = False, **shadow: Any
) -> Iterator[tuple[Config, dict[str, Running]]]:
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
        simulator(profile="vllm", model="localjudge-model") as judge_sim,
    ):
        servers = {"local": local, "cloud": cloud}
        if judge:
            servers["localjudge"] = judge_sim
        config = config_for(servers, tmp, shadow={"rates": {"math": 1.0}, **shadow})
        data = config.model_dump()
        for b in data["backends"]:
            b["price"] = PRICE if b["tier"] == "cloud" else None
        data["routes"] = {k: ["cloud", "local"] for k in data["routes"]}
        yield Config.model_validate(data), servers


def test_replay_agrees_on_the_same_math_and_prices_the_shadow_apart(tmp_path: Path) -> None:
    with sims(tmp_path) as (config, servers):
        rows = Rows()
        shadow, backends = shadow_of(config, rows)

        async def go() -> dict[str, Any]:
            shadow.offer(cloud_record(), QUESTION, Reply("Adding: \\boxed{5555}"))
            job = await taken(shadow)
            try:
                return await replayed(shadow, job)
            finally:
                await close_all(backends)

        row = asyncio.run(go())
        assert servers["local"].stats()["requests"] == 1
        assert servers["cloud"].stats()["requests"] == 0
    assert row["agreed"] is True and row["method"] == "final_answer"
    assert (row["live_backend"], row["shadow_backend"]) == ("cloud", "local")
    assert row["live_cost_usd"] == 0.123 and row["shadow_cost_usd"] == 0.0  # local has no cost
    assert row["shadow_tokens"] > 0 and row["shadow_error"] is None
    assert (row["live_tier"], row["shadow_tier"]) == ("cloud", "local")  # for `shadow report`
    assert rows.rows == [row]


def test_a_target_removed_by_a_reload_while_queued_is_dropped(tmp_path: Path) -> None:
    with sims(tmp_path) as (config, servers):
        rows = Rows()
        live = {b.name: backend_factory.create(b) for b in config.backends}
        shadow = Shadow(config, lambda: live, rows=rows)
        shadow.offer(cloud_record(), QUESTION, Reply("\\boxed{5555}"))
        retired = live.pop("local")  # the reload's new backend set has no `local`

        async def go() -> dict[str, Any] | None:
            try:
                return await shadow.replay(await taken(shadow))
            finally:
                await close_all({**live, "local": retired})

        assert asyncio.run(go()) is None
        assert shadow.counts["dropped_no_target"] == 1 and rows.rows == []
        assert servers["local"].stats()["requests"] == 0


def test_a_responses_request_chat_cannot_carry_is_dropped_not_an_error(tmp_path: Path) -> None:
    """A Codex turn that continues a stored response (`previous_response_id`) has no chat
    form: a shadow error row would blame the shadow backend for it."""
    stateful = {"model": "auto", "input": "And now in words?", "previous_response_id": "resp_1"}
    with sims(tmp_path) as (config, servers):
        rows = Rows()
        shadow, backends = shadow_of(config, rows)
        shadow.offer(cloud_record(), orjson.dumps(stateful), Reply("five thousand"), "responses")

        async def go() -> dict[str, Any] | None:
            try:
                return await shadow.replay(await taken(shadow))
            finally:
                await close_all(backends)

        assert asyncio.run(go()) is None
        assert shadow.counts["dropped_untranslatable"] == 1 and rows.rows == []
        assert servers["local"].stats()["requests"] == 0


def test_saturated_local_gets_no_shadow(tmp_path: Path) -> None:
    with sims(tmp_path) as (config, servers):
        rows = Rows()
        states = {"local": BackendState(saturated=True)}
        shadow, backends = shadow_of(config, rows, states=lambda: states)
        for _ in range(5):
            shadow.offer(cloud_record(), QUESTION, Reply("\\boxed{5555}"))
        asyncio.run(close_all(backends))
        assert shadow.queue.qsize() == 0 and shadow.counts["dropped_saturated"] == 5
        assert servers["local"].stats()["requests"] == 0


def test_bounded_queue_counts_drops(tmp_path: Path) -> None:
    with sims(tmp_path, queue_size=2) as (config, _):
        shadow, backends = shadow_of(config, Rows())
        for _ in range(5):
            shadow.offer(cloud_record(), QUESTION, Reply("x"))
        asyncio.run(close_all(backends))
        assert shadow.queue.qsize() == 2 and shadow.counts["dropped_queue_full"] == 3
        shadow.close()
        assert shadow.counts["dropped_shutdown"] == 2


def test_workers_never_exceed_max_concurrency(tmp_path: Path) -> None:
    with sims(tmp_path, max_concurrency=2) as (config, servers):
        servers["local"].control("faults", {"fault": "slow_first_token:0.2"})
        shadow, backends = shadow_of(config, Rows())
        for _ in range(6):
            shadow.offer(cloud_record(), QUESTION, Reply("\\boxed{5555}"))
        peak = _peak_while_replaying(shadow, backends, compared=6)
        assert shadow.counts["compared"] == 6
        assert peak == 2


def test_queue_size_and_max_concurrency_follow_the_running_config(tmp_path: Path) -> None:
    """What a hot reload changes: both are read from the running config for each job."""
    with sims(tmp_path, queue_size=2, max_concurrency=1) as (config, servers):
        servers["local"].control("faults", {"fault": "slow_first_token:0.2"})
        running = [config]
        backends = {b.name: backend_factory.create(b) for b in config.backends}
        shadow = Shadow(lambda: running[0], backends, rows=Rows(), pricing=Pricer(config))
        for _ in range(4):
            shadow.offer(cloud_record(), QUESTION, Reply("\\boxed{5555}"))
        assert shadow.queue.qsize() == 2 and shadow.counts["dropped_queue_full"] == 2
        bigger = config.shadow.model_copy(update={"queue_size": 6, "max_concurrency": 3})
        running[0] = config.model_copy(update={"shadow": bigger})
        for _ in range(4):
            shadow.offer(cloud_record(), QUESTION, Reply("\\boxed{5555}"))
        assert shadow.queue.qsize() == 6 and shadow.counts["dropped_queue_full"] == 2
        peak = _peak_while_replaying(shadow, backends, compared=6)
        assert shadow.counts["compared"] == 6
        assert peak == 3


def _peak_while_replaying(shadow: Shadow, backends: dict[str, Any], compared: int) -> int:
    """Run the pool until `compared` replays were compared (4 s at most); the most replays
    that were in flight at once."""
    peak = 0

    async def go() -> None:
        nonlocal peak
        runner = asyncio.create_task(shadow.run())
        for _ in range(400):
            peak = max(peak, shadow.in_flight)
            if shadow.counts["compared"] == compared:
                break
            await asyncio.sleep(0.01)
        runner.cancel()
        await close_all(backends)

    asyncio.run(go())
    return peak


def _judged(tmp: Path, value: float) -> tuple[dict[str, Any], str]:
    with sims(tmp, judge=True, judge_backend="localjudge") as (config, servers):
        shadow, backends = shadow_of(config, Rows(), rng=FixedRandom(value))

        async def go() -> dict[str, Any]:
            shadow.offer(cloud_record(), QUESTION, Reply("LIVE-ANSWER \\boxed{5555}"))
            try:
                return await replayed(shadow, await taken(shadow))
            finally:
                await close_all(backends)

        row = asyncio.run(go())
        return row, str(servers["localjudge"].stats()["last_request"])


def test_judge_is_asked_blind_in_random_order(tmp_path: Path) -> None:
    """The simulator picks the first enum value ("A"): the verdict follows the shown order."""
    live_first, asked = _judged(tmp_path, 0.1)
    assert live_first["judge"] == "live"
    assert asked.index("LIVE-ANSWER") < asked.index("Answer B")
    shadow_first, asked = _judged(tmp_path, 0.9)
    assert shadow_first["judge"] == "shadow"
    assert asked.index("Answer B") < asked.index("LIVE-ANSWER")
    assert "cloud" not in asked.lower().replace("localjudge-model", "")


def test_a_judge_that_is_the_live_backend_is_not_asked(tmp_path: Path) -> None:
    """A judge would grade its own answer. (The privacy rule for a cloud judge, which a
    judge that is the live backend never reaches: `test_shadow_judge_privacy`.)"""
    with sims(tmp_path, judge=True, judge_backend="cloud") as (config, servers):
        shadow, backends = shadow_of(config, Rows())

        async def go() -> dict[str, Any]:
            shadow.offer(cloud_record(), QUESTION, Reply("\\boxed{5555}"))
            try:
                return await replayed(shadow, await taken(shadow))
            finally:
                await close_all(backends)

        row = asyncio.run(go())
        assert row["judge"] is None and servers["cloud"].stats()["requests"] == 0


class Slots:
    """A replay observer: the slots each backend's replays hold now, and at most."""

    def __init__(self) -> None:
        self.now: dict[str, int] = {}
        self.peak: dict[str, int] = {}

    def replay_started(self, backend: str) -> Callable[[], None]:
        self.now[backend] = self.now.get(backend, 0) + 1
        self.peak[backend] = max(self.peak.get(backend, 0), self.now[backend])

        def finished() -> None:
            self.now[backend] -= 1

        return finished


def test_the_judges_call_holds_a_slot_and_a_full_judge_is_not_asked(tmp_path: Path) -> None:
    """The judge's call is shadow load too: counted while it runs, and not made on a judge
    that live traffic and replays fill (the comparison keeps its row, without a verdict)."""
    with sims(tmp_path, judge=True, judge_backend="localjudge") as (config, servers):
        full: dict[str, BackendState] = {}
        slots = Slots()
        shadow, backends = shadow_of(config, Rows(), states=lambda: full, observers=[slots])

        async def go() -> list[dict[str, Any]]:
            rows = []
            for state in (BackendState(), BackendState(saturated=True)):
                full["localjudge"] = state
                shadow.offer(cloud_record(), QUESTION, Reply("\\boxed{5555}"))
                rows.append(await replayed(shadow, await taken(shadow)))
            await close_all(backends)
            return rows

        free, busy = asyncio.run(go())
        assert servers["localjudge"].completions() == 1
    assert (free["judge_backend"], free["judge_tokens"] > 0) == ("localjudge", True)
    assert (busy["judge"], busy["judge_backend"], busy["judge_tokens"]) == (None, None, None)
    assert slots.peak == {"localjudge": 1} and slots.now == {"localjudge": 0}


class Hung:
    """A shadow backend whose replies never come: replays stay in flight."""

    def __init__(self) -> None:
        self.asked = 0

    async def send(self, *_: Any) -> Any:
        self.asked += 1
        await asyncio.Event().wait()


def test_the_queue_holds_queue_size_jobs_and_shutdown_counts_every_one(tmp_path: Path) -> None:
    """`run` took a job off the queue before it had a slot for it: with a replay in flight,
    `queue_size + 1` jobs waited, and at shutdown that job and the replay in flight were
    lost uncounted (found in review). Every sampled job is now compared or counted."""
    nowhere = Running("http://127.0.0.1:9/v1", "http://127.0.0.1:9")
    shadow_settings = {"rates": {"math": 1.0}, "queue_size": 2, "max_concurrency": 1}
    config = config_for({"local": nowhere, "cloud": nowhere}, tmp_path, shadow=shadow_settings)
    hung = Hung()
    shadow = Shadow(config, {"local": hung}, rows=Rows())

    async def settle() -> None:  # let the replay loop take what it can (no I/O anywhere)
        for _ in range(20):
            await asyncio.sleep(0)

    async def go() -> None:
        runner = asyncio.create_task(shadow.run())
        shadow.offer(cloud_record(), QUESTION, Reply("\\boxed{5555}"))
        await settle()
        assert (shadow.in_flight, hung.asked) == (1, 1)
        for _ in range(3):
            shadow.offer(cloud_record(), QUESTION, Reply("\\boxed{5555}"))
            await settle()
        assert shadow.queue.qsize() == 2 and shadow.counts["dropped_queue_full"] == 1
        runner.cancel()  # what the router's shutdown does to its background jobs
        with contextlib.suppress(asyncio.CancelledError):
            await runner
        shadow.close()

    asyncio.run(go())
    assert shadow.counts["sampled"] == 4
    assert shadow.counts["dropped_queue_full"] == 1 and shadow.counts["dropped_shutdown"] == 3
    assert hung.asked == 1


def test_a_requests_tests_run_under_the_shared_sandbox_bound(tmp_path: Path) -> None:
    """The shadow ran a client's tests in the sandbox beside the canary's and evals'
    programs, outside the one-per-CPU bound they share on the loop (found in review)."""
    tests = "```python\nassert dedupe([2, 1, 2]) == [1, 2]\n```"
    body = {
        "model": "auto",
        "messages": [{"role": "user", "content": f"Write a function dedupe.\n{tests}"}],
    }
    live = "```python\ndef dedupe(items):\n    return sorted(set(items))\n```"
    record = dataclasses.replace(cloud_record(), intent="coding", route="coding")
    with sims(tmp_path, rates={"coding": 1.0}, run_request_tests=True) as (config, _):
        held: list[bool] = []

        async def go() -> dict[str, Any]:
            slots = sandbox_slots()
            for _ in range(SANDBOX_SLOTS - 1):  # the rest busy: the shadow takes the last
                await slots.acquire()

            def execute(source: str) -> RunOutcome:
                held.append(slots.locked())
                return run_python(source)

            shadow, backends = shadow_of(config, Rows(), execute=execute)
            shadow.offer(record, orjson.dumps(body), Reply(live))
            try:
                return await replayed(shadow, await taken(shadow))
            finally:
                await close_all(backends)

        row = asyncio.run(go())
    assert (row["agreed"], row["method"]) == (True, "code_tests")
    assert held == [True, True]  # live's and the shadow's run, each holding a slot
