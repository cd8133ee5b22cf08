"""Reports: summaries per suite and difficulty, the syntax floor, and run-to-run comparison."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from evals.report import compare, compare_table, render, syntax_floor
from evals.results import CaseResult, percentile, read, summarize, to_document, write


def r(case_id: str, suite: str, status: str, kind: str | None = None, **kw: object) -> CaseResult:
    return CaseResult(case_id, suite, kw.pop("difficulty", "easy"), status, kind, **kw)  # type: ignore[arg-type]


RESULTS = [
    r("c1", "coding", "pass", latency_s=1.0),
    r("c2", "coding", "fail", "syntax_error", latency_s=2.0, difficulty="hard"),
    r("c3", "coding", "fail", "assertion", latency_s=3.0, difficulty="hard"),
    r("c4", "coding", "error", "timeout"),
    r("m1", "math", "n/a", detail="endpoint lacks modality image"),
]


def test_summary_counts_rates_difficulties_kinds_and_latency() -> None:
    s = summarize(RESULTS)
    coding = s["coding"]
    assert (coding["passed"], coding["failed"], coding["errors"], coding["n/a"]) == (1, 2, 1, 0)
    assert coding["pass_rate"] == 0.3333
    assert coding["by_difficulty"]["hard"]["pass_rate"] == 0.0
    assert coding["failure_kinds"] == {"assertion": 1, "syntax_error": 1}
    assert coding["error_kinds"] == {"timeout": 1}
    assert coding["latency_s"]["p50"] == 2.0 and coding["latency_s"]["max"] == 3.0
    assert s["math"]["pass_rate"] is None and s["math"]["n/a"] == 1
    assert percentile([], 50) is None and percentile([5.0], 99) == 5.0


def test_render_shows_every_table_and_the_syntax_floor(tmp_path: object) -> None:
    doc = to_document(RESULTS, {"model": "m"})
    buffer = io.StringIO()
    Console(file=buffer, width=160).print(render(doc))
    text = buffer.getvalue()
    for title in ("Per suite", "Per difficulty", "Failure modes", "syntax floor (coding): 1 of 2"):
        assert title in text
    assert syntax_floor({}) == "syntax floor: no coding suite in this run"


def test_a_request_timeout_is_an_error_kind_not_a_failure_mode() -> None:
    """An error row's `timeout` (no reply in time) was counted among the model's failure
    modes, shown under "Failure modes (fail)" and again under errors (found in review)."""
    rows = [
        r("c1", "coding", "error", "timeout"),
        r("c2", "coding", "error", "transport"),
        r("c3", "coding", "fail", "timeout"),
        r("c4", "coding", "error", None),  # files written before errors had kinds
    ]
    coding = summarize(rows)["coding"]
    assert coding["failure_kinds"] == {"timeout": 1}
    assert coding["error_kinds"] == {"other": 1, "timeout": 1, "transport": 1}
    buffer = io.StringIO()
    Console(file=buffer, width=200).print(render(to_document(rows, {})))
    lines = buffer.getvalue().splitlines()
    fails = lines[next(i for i, x in enumerate(lines) if "Failure modes (fail)" in x) :]
    row = next(x for x in fails if x.startswith("│ coding"))
    assert [c.strip() for c in row.strip("│ ").split("│")] == [
        "coding",
        "0",
        "0",
        "0",
        "1",
        "0",
        "0",
    ]
    errors = lines[next(i for i, x in enumerate(lines) if "Errors (not graded)" in x) :]
    header = next(x for x in errors if "suite" in x)
    row = next(x for x in errors if x.startswith("│ coding"))
    assert [c.strip() for c in header.strip("┃ ").split("┃")] == [
        "suite",
        "timeout",
        "transport",
        "other",
        "errors",
    ]
    assert [c.strip() for c in row.strip("│ ").split("│")] == ["coding", "1", "1", "1", "3"]


def test_results_file_round_trip(tmp_path: object) -> None:
    from pathlib import Path

    path = Path(str(tmp_path)) / "r.json"
    write(path, to_document(RESULTS, {"model": "m"}))
    doc = read(path)
    assert doc["schema"] == "smf-evals-results/1"
    assert [c["status"] for c in doc["cases"]] == ["pass", "fail", "fail", "error", "n/a"]
    assert set(doc["cases"][0]) >= {
        "id",
        "suite",
        "difficulty",
        "status",
        "failure_kind",
        "detail",
        "latency_s",
        "answer",
    }


def test_text_that_is_not_valid_unicode_is_written_not_lost(tmp_path: Path) -> None:
    """An unpaired surrogate (an answer cut mid-emoji, a `--model` given non-UTF-8 bytes)
    failed the encode after the whole run and left an empty `.tmp` file (found in review):
    it is written as its JSON escape and reads back as the same text."""
    path = tmp_path / "r.json"
    odd = CaseResult("c1", "math", "easy", "pass", answer="\\boxed{42} \ud83d")
    write(path, to_document([odd], {"model": "m\udcff"}))
    doc = read(path)
    assert (doc["cases"][0]["answer"], doc["run"]["model"]) == ("\\boxed{42} \ud83d", "m\udcff")
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]


def test_a_results_file_that_cannot_be_written_leaves_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "r.json"
    target.mkdir()  # the rename onto a directory fails after the temp file was written
    with pytest.raises(OSError):
        write(target, to_document(RESULTS, {}))
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]


def test_compare_lists_changed_cases_regressions_first() -> None:
    new = [
        r("c1", "coding", "fail", "assertion"),
        r("c2", "coding", "pass"),
        r("c3", "coding", "fail", "assertion"),
        r("c5", "coding", "pass"),
    ]
    changes = compare(RESULTS, new)
    assert {(c.id, c.old, c.new) for c in changes} == {
        ("c1", "pass", "fail"),
        ("c2", "fail", "pass"),
        ("c5", "absent", "pass"),
        ("c4", "error", "absent"),
        ("m1", "n/a", "absent"),
    }
    assert [c.id for c in changes if c.regression] == ["c1"]
    buffer = io.StringIO()
    old_doc, new_doc = to_document(RESULTS, {}), to_document(new, {})
    Console(file=buffer, width=160).print(compare_table(changes, old_doc, new_doc))
    text = buffer.getvalue()
    assert "Changed cases (5)" in text and text.index("c1") < text.index("c2")
