"""The pure gating core: Wilson bounds, windows, floors, learned floors, an injected clock."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from evals import results
from evals.results import CaseResult
from router import cli
from router.canary_judge import Judge, gate_book
from router.config import ConfigError, load, parse
from router.gating import GateBook, learn_floors, samples_to_clear, wilson_interval, wilson_lower

LOCAL = {"name": "local", "tier": "local", "base_url": "http://127.0.0.1:9/v1", "model": "m"}
CLOUD = {**LOCAL, "name": "cloud", "tier": "cloud"}


@pytest.mark.parametrize(
    ("passes", "n", "low", "high"),
    [(0, 0, 0.0, 1.0), (10, 10, 0.7225, 1.0), (5, 10, 0.2366, 0.7634), (41, 100, 0.3187, 0.5080)],
)
def test_wilson_interval_matches_known_values(passes: int, n: int, low: float, high: float) -> None:
    got = wilson_interval(passes, n)
    assert got == pytest.approx((low, high), abs=1e-4)


def test_gate_closes_below_floor_and_opens_when_back() -> None:
    now = [100.0]
    book = GateBook({"math": 0.5}, window=6, min_samples=4, clock=lambda: now[0])
    assert book.observe("local", "math", [True] * 4) is None
    change = book.observe("local", "math", [False, False])
    assert change is not None and change.gated and change.at == 100.0
    assert change.passes == 4 and change.n == 6 and change.lower < 0.5
    assert book.gated() == {"local": frozenset({"math"})}
    now[0] = 200.0
    assert book.observe("local", "math", [True] * 3) is None  # window 4/6
    assert book.observe("local", "math", [True, True]) is None  # 5/6: lower 0.44 < 0.5
    assert book.observe("local", "math", [True, True]) is None  # 6/6: lower 0.61, twice
    reopened = book.observe("local", "math", [True])  # held for `hold` (3) results
    assert reopened is not None and not reopened.gated and reopened.at == 200.0
    assert book.hold == 3 and reopened.passes == reopened.n == 6
    assert book.gated() == {}


def test_no_gate_before_min_samples_or_without_floor() -> None:
    book = GateBook({"math": 0.5}, window=10, min_samples=5)
    assert book.observe("local", "math", [False] * 4) is None
    assert book.observe("local", "prose", [False] * 10) is None  # no floor for prose
    assert book.gated() == {}
    assert book.observe("local", "math", [False]) is not None


def test_learned_floor_per_backend_wins_over_config() -> None:
    book = GateBook({"coding": 0.2}, {("local", "coding"): 0.7}, window=10, min_samples=5)
    book.observe("local", "coding", ([True] * 6 + [False] * 4) * 2)  # every window 6/10
    book.observe("cloud", "coding", ([True] * 6 + [False] * 4) * 2)
    assert book.gated() == {"local": frozenset({"coding"})}
    assert book.floor("cloud", "coding") == 0.2


def test_retune_re_decides_existing_windows() -> None:
    book = GateBook({}, window=10, min_samples=5)
    book.observe("local", "math", [True] * 3 + [False] * 7)
    changes = book.retune({"math": 0.3})
    assert [(c.backend, c.intent, c.gated) for c in changes] == [("local", "math", True)]


def test_retune_keeps_learned_floors_unless_given_new_ones() -> None:
    book = GateBook({"coding": 0.2}, {("local", "coding"): 0.7}, window=10, min_samples=5)
    book.retune({"coding": 0.3}, window=12)
    assert book.floor("local", "coding") == 0.7 and book.floor("cloud", "coding") == 0.3
    book.retune({"coding": 0.3}, learned={})
    assert book.floor("local", "coding") == 0.3


def test_a_shorter_window_keeps_the_newest_results_and_re_decides() -> None:
    book = GateBook({"math": 0.3}, window=10, min_samples=3)
    book.observe("local", "math", [False] * 6 + [True] * 4)
    assert book.gated() == {"local": frozenset({"math"})}
    changes = book.retune({"math": 0.3}, window=4)  # the four newest all passed
    assert [(c.intent, c.gated) for c in changes] == [("math", False)]
    (standing,) = book.standings()
    assert (standing.passes, standing.n) == (4, 4)
    book.observe("local", "math", [False])
    assert book.standings()[0].n == 4  # the window stays at its new length


def test_a_floor_removed_opens_a_gate_and_too_few_results_do_not_close_it_again() -> None:
    book = GateBook({"math": 0.3}, window=10, min_samples=2)
    book.observe("local", "math", [False, False])
    assert book.gated() == {"local": frozenset({"math"})}
    book.retune({}, min_samples=5)
    assert book.gated() == {}  # no floor any more: the gate opens
    book.retune({"math": 0.5}, min_samples=5)
    book.observe("local", "math", [False, False])
    assert book.gated() == {}  # four results: not enough to close again


def test_a_gate_left_with_too_few_results_by_a_reload_opens(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A gate closed on 4 results stayed closed after a reload asked for 6: until the window
    held 6, for good when no more came, and for the book's own sake whatever `min_samples`
    (above the window, none ever would), while a restart on the same ledger had it open
    (found in review). Fewer than `min_samples` results are no verdict: the gate opens,
    and says why, and closes again once the window holds enough failures."""
    book = GateBook({"math": 0.3}, window=10, min_samples=4)
    judge = Judge(book, None, lambda: ["local"])
    book.observe("local", "math", [False] * 4)
    assert book.gated() == {"local": frozenset({"math"})}
    (change,) = book.retune({"math": 0.3}, min_samples=6)
    assert (change.gated, change.n, change.needed) == (False, 4, 6)
    assert book.gated() == {} and not book.standings()[0].gated
    with caplog.at_level(logging.WARNING, "smf_router.canary"):
        judge.announce(change)
    assert "routes to local again (4 results in the window, fewer than the 6" in caplog.text
    assert "6 canary.min_samples a gate needs to close: no verdict; 0/4 recent" in caplog.text
    assert book.observe("local", "math", [False]) is None  # 5 of 6
    closed = book.observe("local", "math", [False])
    assert closed is not None and closed.gated and closed.n == 6

    book.retune({"math": 0.3}, min_samples=11)  # more than the window holds: never closed
    assert book.gated() == {}
    book.retune({"math": 0.3}, min_samples=4)
    assert book.gated() == {"local": frozenset({"math"})}
    # a 0.8 floor needs 16 (10 here, the window) > 6 held, but 0 of 6 is under it still
    assert book.retune({"math": 0.8}, min_samples=4) == []
    assert book.gated() == {"local": frozenset({"math"})}


def test_a_raised_floor_keeps_a_gate_closed_on_results_still_under_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Raising a floor raises the results a gate needs: a backend that failed all 12 of its
    cases had its gate opened by a reload to 0.8 (16 needed), after a regression, when the
    floor went up (found in re-review). With fewer results than the lower bound needs, a
    gate is closed while even their upper bound is under the floor, and opens once it
    reaches it; fewer than `min_samples` close no gate."""
    book = GateBook({"math": 0.5}, window=20, min_samples=5)
    judge = Judge(book, None, lambda: ["local"])
    book.observe("local", "math", [False] * 12)
    assert book.observe("cloud", "math", [False] * 4) is None  # under `min_samples`: open
    assert book.gated() == {"local": frozenset({"math"})}
    assert book.retune({"math": 0.8}) == []  # 0/12: upper bound 0.24 < 0.8
    assert book.gated() == {"local": frozenset({"math"})}
    book.observe("local", "math", [True] * 2)
    closed = book.observe("cloud", "math", [False] * 11)  # 0/15 < 16, upper bound 0.20
    assert closed is not None and closed.gated and (closed.n, closed.needed) == (15, 16)
    with caplog.at_level(logging.WARNING, "smf_router.canary"):
        judge.announce(closed)
    assert "no longer auto-routes to cloud (pass-rate upper bound 0.20 < floor 0.80" in caplog.text
    assert book.gated() == {"local": frozenset({"math"}), "cloud": frozenset({"math"})}
    caplog.clear()

    recovering = GateBook({"math": 0.5}, window=20, min_samples=4)
    recovering.observe("local", "math", [False] * 4)
    assert recovering.retune({"math": 0.8}) == []
    for _ in range(8):  # up to 4 failures and 4 passes: upper bound 0.78, "closed" 5 times
        assert recovering.observe("local", "math", [True]) is None  # then "open", too few
    opened = recovering.observe("local", "math", [True])  # 9 of 13: "open" 5 times of 10
    assert opened is not None and not opened.gated and (opened.n, opened.needed) == (13, 16)
    with caplog.at_level(logging.WARNING, "smf_router.canary"):
        judge.announce(opened)
    assert "(13 results in the window, fewer than the 16" in caplog.text
    assert "upper bound 0.87 >= floor 0.80: no verdict; 9/13 recent cases passed" in caplog.text


def test_learn_floors_is_baseline_lower_bound_minus_margin() -> None:
    floors = learn_floors({"coding": (8, 10), "math": (0, 0)}, margin=0.1)
    assert floors == {"coding": pytest.approx(wilson_lower(8, 10) - 0.1, abs=1e-4)}


def test_standings_report_every_window() -> None:
    book = GateBook({"math": 0.5}, window=4, min_samples=2)
    book.observe("cloud", "math", [False, False, True, False, False, False])
    (standing,) = book.standings()
    assert (standing.backend, standing.passes, standing.n, standing.gated) == ("cloud", 1, 4, True)


def test_a_backend_that_passed_everything_is_never_gated_for_too_few_results() -> None:
    """5 of 5 has a lower bound of 0.57: with the Kubernetes floor of 0.6 and the default
    min_samples of 5, a perfect backend's coding traffic went to the cloud until its sixth
    result (found in review)."""
    book = GateBook({"coding": 0.6}, window=20, min_samples=5)
    for _ in range(20):
        assert book.observe("local", "coding", [True]) is None
    assert samples_to_clear(0.6) == 6 and wilson_lower(6, 6) >= 0.6 > wilson_lower(5, 5)


def test_a_failing_backend_is_gated_once_a_perfect_record_could_have_cleared_the_floor() -> None:
    """Before that (6 for 0.6), only an upper bound under the floor closes a gate: 0 of 5
    does (0.43), 2 of 5 (0.77) is no verdict."""
    book = GateBook({"coding": 0.6}, window=20, min_samples=5)
    assert book.observe("local", "coding", [True] * 2 + [False] * 3) is None  # 5 cannot clear 0.6
    assert book.observe("local", "coding", [False]) is None  # "closed" once, "open" once
    change = book.observe("local", "coding", [False])  # most windows say "closed"
    assert change is not None and change.gated and change.n == 7
    assert change.lower < 0.6 <= change.upper
    failed = GateBook({"coding": 0.6}, window=20, min_samples=5)
    assert failed.observe("local", "coding", [False] * 4) is None  # under `min_samples`
    early = failed.observe("local", "coding", [False])
    assert early is not None and early.gated and early.n == 5 and early.upper < 0.6


def test_a_restarted_book_agrees_with_the_running_one_after_a_reload() -> None:
    """A gate closed on 0 of 12 stayed closed in the running router when a reload raised
    the floor from 0.5 to 0.8 (16 needed), but a router restarted on the raised floor, or a
    new replica, replayed the same rounds from the ledger into an open gate: whether a gate
    was closed depended on whether it had been (found in re-review). A fresh book fed the
    same results under the new settings now has the same gates, whatever they went through."""
    rounds = [[False] * 3] * 4 + [[True] * 3, [False, True, True], [True] * 3]
    retunes = [
        ({"math": 0.8}, {}),
        ({"math": 0.3}, {"min_samples": 6}),
        ({"math": 0.6}, {"min_samples": 4, "window": 8}),
        ({"math": 0.5}, {"min_samples": 11}),
        ({"math": 0.7}, {"min_samples": 3}),
    ]
    for floors, settings in retunes:
        for upto in range(1, len(rounds) + 1):
            running = GateBook({"math": 0.5}, window=20, min_samples=5)
            for passed in rounds[:upto]:
                running.observe("local", "math", passed)
            running.retune(floors, **settings)
            restarted = GateBook(floors, window=20, min_samples=5)
            restarted.retune(floors, **settings)
            for passed in rounds[:upto]:
                restarted.observe("local", "math", passed)
            assert restarted.gated() == running.gated(), (floors, settings, upto)
            got = [(s.passes, s.n, s.gated) for s in restarted.standings()]
            assert got == [(s.passes, s.n, s.gated) for s in running.standings()]


def test_a_floor_no_window_can_clear_is_a_config_error() -> None:
    canary = {"floors": {"coding": 0.9}, "window": 20}
    with pytest.raises(ConfigError, match=r"canary.floors.coding: 0.9 is out of reach.*35"):
        parse({"backends": [LOCAL, CLOUD], "canary": canary})
    assert parse({"backends": [LOCAL, CLOUD], "canary": canary | {"window": 35}})
    whole = {"floors": {"coding": 1.0}}  # it said: raise the window to 4611686018427387904
    with pytest.raises(ConfigError, match=r"lower bound never reaches 1.*lower the floor"):
        parse({"backends": [LOCAL, CLOUD], "canary": whole})


def test_a_learned_floor_out_of_reach_is_capped_and_said(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A baseline of 99 of 100 with a margin of 0.1 learns 0.8455, above the 0.839 that 20
    passes of 20 show: a perfect backend was gated for good (found in review). The floor is
    capped at what a perfect window shows, with a warning naming backend and intent."""
    cases = [CaseResult(f"m{i}", "math", "easy", "pass" if i else "fail") for i in range(100)]
    baseline = tmp_path / "baseline.json"
    results.write(baseline, results.to_document(cases, {"model": "m"}))
    canary = {"baselines": {"cloud": str(baseline)}, "floor_margin": 0.1, "window": 20}
    config = parse({"backends": [LOCAL, CLOUD], "canary": canary})
    with caplog.at_level(logging.WARNING, logger="smf_router.canary"):
        book = gate_book(config.canary)
    assert book.learned[("cloud", "math")] > wilson_lower(20, 20)
    assert book.floor("cloud", "math") == wilson_lower(20, 20)
    (warning,) = [r.getMessage() for r in caplog.records]
    assert "cloud" in warning and "math" in warning and "canary.window of 22" in warning
    for _ in range(30):
        assert book.observe("cloud", "math", [True]) is None  # a perfect backend stays
    # and a failure still closes the gate, once it held for half a window of results
    assert book.observe("cloud", "math", [False]) is None
    for _ in range(book.hold - 2):
        assert book.observe("cloud", "math", [True]) is None
    change = book.observe("cloud", "math", [True])
    assert change is not None and change.gated and change.passes == 19


def test_a_baseline_for_no_backend_is_a_config_error_at_its_line(tmp_path: Path) -> None:
    """A mistyped backend (`locl`) was accepted: its floors were learnt for no backend and
    the canary gated with the configured floors, without a word (found in review)."""
    baseline = tmp_path / "baseline.json"
    results.write(baseline, results.to_document([CaseResult("c", "coding", "easy", "pass")], {}))
    path = tmp_path / "router.yaml"
    config = {"backends": [LOCAL, CLOUD], "canary": {"baselines": {"locl": str(baseline)}}}
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    with pytest.raises(ConfigError, match=r"canary\.baselines\.locl \(line \d+\): unknown backend"):
        load(path, env={})


def test_a_partial_baseline_is_a_config_error_naming_backend_and_file(tmp_path: Path) -> None:
    """A results file of a run stopped by Ctrl-C (`run.partial`) was taken as a baseline:
    floors were learned from the cases that happened to finish, and `config check` and
    `serve` said nothing (found in review)."""
    cases = [CaseResult(f"m{i}", "math", "easy", "pass") for i in range(2)]
    baseline = tmp_path / "r.partial.json"
    partial = {"stopped_by": "SIGINT", "not_run": 9}
    results.write(baseline, results.to_document(cases, {"model": "m", "partial": partial}))
    path = tmp_path / "router.yaml"
    config = {"backends": [LOCAL, CLOUD], "canary": {"baselines": {"cloud": str(baseline)}}}
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    said = rf"canary\.baselines\.cloud \(line \d+\): {re.escape(str(baseline))} holds a partial"
    with pytest.raises(ConfigError, match=rf"{said} run \(stopped by SIGINT\): 2 cases finished"):
        load(path, env={})
    checked = CliRunner().invoke(cli.app, ["config", "check", "--config", str(path)])
    assert checked.exit_code == 2
    assert re.search(said, " ".join(checked.output.split()))
    results.write(baseline, results.to_document(cases, {"model": "m"}))  # a finished run
    assert load(path, env={}).canary.baselines == {"cloud": str(baseline)}


def test_the_docs_say_how_many_results_a_gate_waits_for() -> None:
    """The metric docs, the alert's comment and the dashboard said a gate acts once the
    window holds `min_samples` results, and that 5 of 5 closes a 0.6 floor; a gate waits
    for as many as a record of all passes needs to clear its floor (found in review). Each
    says so now, and every "N for 0.x" they quote is `samples_to_clear`."""
    repo = Path(__file__).resolve().parents[2]
    for name in ("README.md", "docs/metrics.md", "deploy/prometheus/alerts.yml"):
        text = " ".join((repo / name).read_text(encoding="utf-8").split())
        claims = re.findall(r"(\d+) for (?:a floor of )?(0\.\d+)", text)
        assert claims, f"{name} does not say how many results a gate waits for"
        for count, floor in claims:
            assert int(count) == max(5, samples_to_clear(float(floor))), (name, count, floor)
    panels = (repo / "grafana/dashboards/smf-quality.json").read_text(encoding="utf-8")
    assert "6 for a floor of 0.6" in panels
