"""The canary's case counters (`smf_router_canary_cases_total`): every configured backend ×
suite at 0 before a round counts, and a backend or suite that leaves the config (a reload)
takes its series with it, counted or not, as its other canary series."""

from __future__ import annotations

from evals.results import CaseResult
from router.canary_judge import Judge
from router.config_sections import CanarySettings
from router.gating import GateBook
from router.metrics import Metrics

CASES = "smf_router_canary_cases_total"
SETTINGS = CanarySettings(floors={"math": 0.5})


def _series(metrics: Metrics) -> set[tuple[str, str]]:
    """(backend, suite) of each case series there is."""
    return {labels[:2] for labels in metrics.case_outcomes.values}


def _count(metrics: Metrics, backend: str, suite: str, status: str, kind: str) -> float | None:
    labels = {"backend": backend, "suite": suite, "status": status, "error_kind": kind}
    return metrics.registry.get_sample_value(CASES, labels)


def _judge(metrics: Metrics, backends: list[str], suites: set[str] | None) -> Judge:
    return Judge(GateBook(SETTINGS.floors), metrics, lambda: backends, lambda: suites)


def test_every_outcome_of_each_backend_and_suite_starts_at_0() -> None:
    """`other` too: an error kind outside the runner's set (a ledger row of another version,
    read by a follower) is counted as `other`, and born at 1 its first round showed no
    increase."""
    metrics = Metrics()
    _judge(metrics, ["local"], {"math"}).show_open_gates()
    kinds = ["timeout", "transport", "sandbox", "case", "grader", "canary", "other"]
    expected = [("passed", ""), ("failed", ""), *(("error", kind) for kind in kinds)]
    assert sorted(labels[2:] for labels in metrics.case_outcomes.values) == sorted(expected)
    assert _count(metrics, "local", "math", "error", "other") == 0


def test_a_backend_and_a_suite_leaving_the_config_take_their_counted_series() -> None:
    """A reload that removes a backend and a suite: their series go, counted or not; a suite
    whose cases were all errors has no gate window, and its counted series went too."""
    metrics = Metrics()
    backends, suites = ["local", "cloud"], {"math", "coding"}
    judge = _judge(metrics, backends, suites)
    judge.show_open_gates()
    judge.judge("cloud", [CaseResult("m-1", "math", "", "pass")], 1.0)
    judge.judge("local", [CaseResult("c-1", "coding", "", "error", "transport")], 1.0)
    judge.judge("local", [CaseResult("m-1", "math", "", "fail")], 1.0)
    assert _count(metrics, "cloud", "math", "passed", "") == 1
    assert _count(metrics, "local", "coding", "error", "transport") == 1
    assert _series(metrics) == {(b, s) for b in backends for s in suites}

    backends.remove("cloud")
    suites.discard("coding")
    judge.prepare(SETTINGS, SETTINGS, {"math"})()

    assert _series(metrics) == {("local", "math")}
    assert _count(metrics, "local", "math", "failed", "") == 1  # what stays keeps its count
    assert _count(metrics, "local", "math", "passed", "") == 0


def test_a_follower_that_counted_every_suite_keeps_those_the_job_runs() -> None:
    """Before a follower knows the job's suites (they did not load) it counts every suite
    its rounds hold; a reload that loads them drops the others' series."""
    metrics = Metrics()
    known: set[str] | None = None
    judge = Judge(GateBook(SETTINGS.floors), metrics, lambda: ["local"], lambda: known)
    judge.show_open_gates()
    assert _series(metrics) == set()  # no suites known: none created
    judge.judge("local", [CaseResult("c-1", "coding", "", "error", "sandbox")], 1.0)
    judge.judge("local", [CaseResult("m-1", "math", "", "pass")], 1.0)
    assert _series(metrics) == {("local", "coding"), ("local", "math")}

    known = {"math"}
    judge.prepare(SETTINGS, SETTINGS, known)()

    assert _series(metrics) == {("local", "math")}
    assert _count(metrics, "local", "math", "passed", "") == 1
