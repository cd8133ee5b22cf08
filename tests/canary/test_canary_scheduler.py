"""The scheduler with an injected runner: rotation, saturated-local skip, rows, metrics, gates."""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

from evals.endpoint import Endpoint
from evals.results import CaseResult
from evals.suite import Case
from router.canary import Canary, rotating_sample
from router.canary_gates import GatedStates
from router.canary_judge import baseline_floors
from router.config import parse
from router.gateway_ports import NoStates
from router.gating import GateBook
from router.policy import BackendState
from tests.canary.recorded_rows import Rows


def _case(suite: str, i: int) -> Case:
    return Case(f"{suite}-{i}", f"{suite} {i}", suite, "easy", f"q{i}", "exact_match")


CASES = [_case("math", i) for i in range(5)] + [_case("coding", i) for i in range(2)]


def _config(**canary: Any) -> Any:
    backends = [
        {"name": "local", "tier": "local", "base_url": "http://127.0.0.1:9/v1", "model": "m"},
        {"name": "cloud", "tier": "cloud", "base_url": "http://127.0.0.1:9/v1", "model": "c"},
    ]
    return parse({"backends": backends, "canary": {"enabled": True, **canary}})


class Metrics:
    def __init__(self) -> None:
        self.results: list[tuple[str, str, float, float]] = []
        self.gates: list[tuple[str, str, bool]] = []

    def canary_result(
        self,
        backend: str,
        suite: str,
        *,
        pass_ratio: float,
        lower: float,
        floor: float | None,
        ts: float,
    ) -> None:
        self.results.append((backend, suite, pass_ratio, floor or 0.0))

    def route_gated(self, backend: str, intent: str, gated: bool) -> None:
        self.gates.append((backend, intent, gated))

    def canary_cases(
        self, backend: str, suite: str, status: str, error_kind: str | None, n: int = 1
    ) -> None:
        pass

    def canary_cases_expected(self, backends: Sequence[str], suites: Collection[str]) -> None:
        pass

    def canary_round_skipped(self, backend: str, reason: str) -> None:
        pass


def test_rotating_sample_walks_each_suite_and_wraps() -> None:
    offsets: dict[str, int] = {}
    first = [c.id for c in rotating_sample(CASES, 3, offsets)]
    second = [c.id for c in rotating_sample(CASES, 3, offsets)]
    assert first == ["coding-0", "coding-1", "math-0", "math-1", "math-2"]
    assert second == ["coding-0", "coding-1", "math-3", "math-4", "math-0"]


def test_saturated_local_is_skipped_and_failures_gate_cloud() -> None:
    asked: list[str] = []

    async def runner(
        cases: Sequence[Case], endpoint: Endpoint, *a: Any, **k: Any
    ) -> list[CaseResult]:
        asked.append(endpoint.model)
        status = "fail" if endpoint.model == "c" else "pass"
        return [CaseResult(c.id, c.suite, c.difficulty, status) for c in cases]  # type: ignore[arg-type]

    rows, metrics = Rows(), Metrics()
    states = {"local": BackendState(saturated=True)}
    config = _config(sample_per_suite=3, floors={"math": 0.3}, min_samples=3)
    book = GateBook(config.canary.floors, window=10, min_samples=3)
    canary = Canary(config, CASES, book, rows, metrics, states=lambda: states, runner=runner)
    asyncio.run(canary.run_once())
    assert asked == ["c"]
    runs = {r["backend"]: r for t, r in rows.rows if t == "canary_runs"}
    assert runs["local"]["skipped_reason"] == "saturated" and runs["local"]["cases"] == 0
    assert runs["cloud"]["failed"] == 5 and runs["cloud"]["skipped_reason"] is None
    assert sum(1 for t, _ in rows.rows if t == "canary_results") == 5
    assert canary.gated() == {"cloud": frozenset({"math"})}
    assert ("cloud", "math", True) in metrics.gates
    assert ("cloud", "math", 0.0, 0.3) in metrics.results
    assert canary.status()["gated"] == {"cloud": ["math"]}


def test_a_backend_waiting_out_a_429_is_skipped_and_its_gate_stands() -> None:
    """While the cloud waits out its 429's `Retry-After` (`rate_limited_for_s`), its round
    asks nothing, as for an open circuit: the row says `rate_limited`, no case is graded,
    and the gate its failures closed stays closed (a skipped round is no verdict). The
    canary asked it every round (found in review). The wait over, it is asked again."""
    asked: list[str] = []

    async def runner(
        cases: Sequence[Case], endpoint: Endpoint, *a: Any, **k: Any
    ) -> list[CaseResult]:
        asked.append(endpoint.model)
        status = "fail" if endpoint.model == "c" else "pass"
        return [CaseResult(c.id, c.suite, c.difficulty, status) for c in cases]  # type: ignore[arg-type]

    rows, states = Rows(), {"cloud": BackendState()}
    config = _config(sample_per_suite=3, floors={"math": 0.3}, min_samples=3)
    book = GateBook(config.canary.floors, window=10, min_samples=3)
    canary = Canary(config, CASES, book, rows, Metrics(), states=lambda: states, runner=runner)
    asyncio.run(canary.run_once())
    assert canary.gated() == {"cloud": frozenset({"math"})}
    states["cloud"] = BackendState(rate_limited_for_s=30.0)
    asked.clear()
    asyncio.run(canary.run_once())
    assert asked == ["m"]
    cloud = [r for t, r in rows.rows if t == "canary_runs" and r["backend"] == "cloud"][-1]
    assert (cloud["skipped_reason"], cloud["cases"]) == ("rate_limited", 0)
    assert canary.last_run["cloud"]["skipped_reason"] == "rate_limited"
    assert canary.gated() == {"cloud": frozenset({"math"})}
    states["cloud"] = BackendState()
    asyncio.run(canary.run_once())
    assert sorted(asked) == ["c", "m", "m"]


def test_errors_never_count_as_quality() -> None:
    async def runner(
        cases: Sequence[Case], endpoint: Endpoint, *a: Any, **k: Any
    ) -> list[CaseResult]:
        return [CaseResult(c.id, c.suite, c.difficulty, "error") for c in cases]

    config = _config(floors={"math": 0.3}, min_samples=1)
    canary = Canary(config, CASES, GateBook({"math": 0.3}, min_samples=1), runner=runner)
    asyncio.run(canary.run_once())
    assert canary.gated() == {} and canary.book.standings() == []


def test_a_reloaded_timeout_and_concurrency_reach_the_http_client() -> None:
    """The client was built once, on the first run: a reload raising `timeout_s` kept the
    old read timeout, so slow answers still counted as errors (found in review)."""
    seen: list[tuple[float | None, Any]] = []

    async def runner(
        cases: Sequence[Case], endpoint: Endpoint, *a: Any, **k: Any
    ) -> list[CaseResult]:
        client = k["client"]
        seen.append((client.timeout.read, client.trust_env))
        return [CaseResult(c.id, c.suite, c.difficulty, "pass") for c in cases]  # type: ignore[arg-type]

    current = {"config": _config(timeout_s=1.0)}
    canary = Canary(lambda: current["config"], CASES, GateBook({}), runner=runner)

    async def two_runs() -> None:
        await canary.run_once()
        current["config"] = _config(timeout_s=10.0)
        await canary.run_once()
        await canary.aclose()

    asyncio.run(two_runs())
    assert seen == [(1.0, False), (1.0, False), (10.0, False), (10.0, False)]


def test_gated_states_merges_gates_into_inner_states() -> None:
    gates = {"cloud": frozenset({"math"})}
    source = GatedStates(NoStates(), lambda: gates)
    assert source.states()["cloud"].gated_intents == frozenset({"math"})
    assert source.sticky("x") is None


def test_baseline_floors_from_an_eval_results_file(tmp_path: Path) -> None:
    from evals import results

    cases = [CaseResult(f"c{i}", "coding", "easy", "pass" if i < 9 else "fail") for i in range(10)]
    path = tmp_path / "baseline.json"
    results.write(path, results.to_document(cases, {"model": "m"}))
    learned = baseline_floors({"local": str(path)}, margin=0.1)
    assert set(learned) == {("local", "coding")}
    assert 0.4 < learned[("local", "coding")] < 0.6
