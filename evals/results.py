"""Results: one ``CaseResult`` per case, per-suite summaries and the stable JSON file format.

Schema ``smf-evals-results/1`` is documented in ``docs/evals.md``; add fields, never rename.
Pass rates count graded cases only (passed + failed): errors and N/A are reported beside them,
and failure kinds count failures only (errors have kinds of their own). A run that stopped
before its end (Ctrl-C, a bug) is saved with the cases that finished and ``run.partial``:
``{"stopped_by": "SIGINT" or the error, "not_run": how many cases did not finish}``, beside
the file asked for (``partial_path``); it is no baseline to learn canary floors from.
"""

from __future__ import annotations

import errno
import json
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

SCHEMA = "smf-evals-results/1"

Status = Literal["pass", "fail", "error", "n/a"]
STATUSES: tuple[Status, ...] = ("pass", "fail", "error", "n/a")


@dataclass(frozen=True)
class CaseResult:
    """The outcome of one case against one endpoint."""

    id: str
    suite: str
    difficulty: str
    status: Status
    failure_kind: str | None = None
    detail: str = ""
    latency_s: float | None = None
    answer: str | None = None
    evaluator: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    completion_tokens: int | None = None


def percentile(values: Sequence[float], q: float) -> float | None:
    """Nearest-rank percentile (``q`` in 0..100); None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def _rate(passed: int, failed: int) -> float | None:
    graded = passed + failed
    return None if graded == 0 else round(passed / graded, 4)


def _counts(results: Sequence[CaseResult]) -> dict[str, Any]:
    by = Counter(r.status for r in results)
    return {
        "total": len(results),
        "passed": by["pass"],
        "failed": by["fail"],
        "errors": by["error"],
        "n/a": by["n/a"],
        "pass_rate": _rate(by["pass"], by["fail"]),
    }


def _latency(results: Sequence[CaseResult]) -> dict[str, float | None]:
    values = [r.latency_s for r in results if r.latency_s is not None]
    out: dict[str, float | None] = {f"p{q}": percentile(values, q) for q in (50, 90, 99)}
    out["max"] = max(values) if values else None
    out["mean"] = round(sum(values) / len(values), 4) if values else None
    return out


def summarize_suite(results: Sequence[CaseResult]) -> dict[str, Any]:
    """Counts, pass rate, per-difficulty counts, latency, and the kinds of failures (the
    model's) and of errors (no verdict: a request timeout is not the model's timeout)."""
    difficulties: dict[str, list[CaseResult]] = {}
    for r in results:
        difficulties.setdefault(r.difficulty, []).append(r)
    kinds = Counter(r.failure_kind or "other" for r in results if r.status == "fail")
    errors = Counter(r.failure_kind or "other" for r in results if r.status == "error")
    return {
        **_counts(results),
        "by_difficulty": {d: _counts(rs) for d, rs in difficulties.items()},
        "failure_kinds": dict(sorted(kinds.items())),
        "error_kinds": dict(sorted(errors.items())),
        "latency_s": _latency(results),
    }


def summarize(results: Iterable[CaseResult]) -> dict[str, dict[str, Any]]:
    """Per-suite summaries, suites in first-seen order."""
    suites: dict[str, list[CaseResult]] = {}
    for r in results:
        suites.setdefault(r.suite, []).append(r)
    return {name: summarize_suite(rs) for name, rs in suites.items()}


def to_document(results: Sequence[CaseResult], run: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON document: ``schema``, ``run`` (settings, no secrets), ``cases``, ``summary``."""
    return {
        "schema": SCHEMA,
        "run": dict(run),
        "cases": [asdict(r) for r in results],
        "summary": summarize(results),
    }


def write(path: Path | str, document: Mapping[str, Any]) -> None:
    """Write a results document (atomically: temp name, then rename; no temp file is left
    behind when writing fails).

    Text that is not valid Unicode (an unpaired surrogate: ``--model`` given bytes that are
    not UTF-8) is written as its JSON escape, ``\\udcff``, which reads back as the same
    text: the file of an hours-long run is never lost to one character."""
    target = Path(path)
    if not_a_file(target):
        raise OSError(errno.EEXIST, "not a regular file", str(target))
    tmp = target.with_name(target.name + ".tmp")
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    data = text.encode("utf-8", "backslashreplace")  # surrogates occur only inside strings
    try:
        tmp.write_bytes(data)
        tmp.replace(target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def not_a_file(path: Path) -> bool:
    """Whether ``path`` is there and is no regular file (a device, a fifo, ``/dev/stdout``):
    the rename of ``write`` would replace it (as root, ``--out /dev/stdout`` replaced the
    device itself with the file, found in review)."""
    return path.exists() and not path.is_file()


def partial_note(document: Mapping[str, Any]) -> str | None:
    """What a partial run's document says of itself ("partial run (stopped by SIGINT): 2
    cases finished, 9 not run"), for every reader of one; None for a finished run."""
    run = document.get("run")
    partial = run.get("partial") if isinstance(run, Mapping) else None
    if not isinstance(partial, Mapping):
        return None
    cases = document.get("cases")
    finished = len(cases) if isinstance(cases, list) else 0
    return (
        f"partial run (stopped by {partial.get('stopped_by')}): {finished} cases finished,"
        f" {partial.get('not_run')} not run"
    )


def partial_path(out: Path) -> Path:
    """Where a run that stopped early is saved when asked for ``out``: beside it, never over
    it (``r.json`` → ``r.partial.json``), so an earlier finished run there is kept."""
    return out.with_name(f"{out.stem}.partial.json")


class ResultsError(ValueError):
    """A file that is not a readable results document; the message names the file."""


REQUIRED = ("id", "suite", "difficulty", "status")
"""The fields every case of a results document has (as strings)."""


def read(path: Path | str) -> dict[str, Any]:
    """Read a results document, checking that it is one: a missing or unreadable file, text
    that is not JSON, another schema, or cases without their fields raise ``ResultsError``."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ResultsError(f"{path}: no such file") from None
    except OSError as exc:
        raise ResultsError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise ResultsError(f"{path}: not UTF-8 text") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ResultsError(f"{path}: not JSON ({exc})") from None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        schema = doc.get("schema") if isinstance(doc, dict) else None
        raise ResultsError(f"{path}: not a {SCHEMA} file (schema={schema!r})")
    cases = doc.get("cases")
    if not isinstance(cases, list) or not all(_is_case(c) for c in cases):
        raise ResultsError(f"{path}: 'cases' must be a list of results with {', '.join(REQUIRED)}")
    return doc


def _is_case(item: Any) -> bool:
    return (
        isinstance(item, dict)
        and all(isinstance(item.get(k), str) for k in REQUIRED)
        and item["status"] in STATUSES
    )


def results_of(document: Mapping[str, Any]) -> list[CaseResult]:
    """The ``CaseResult`` list back from a parsed document."""
    fields = set(CaseResult.__dataclass_fields__)
    return [CaseResult(**{k: v for k, v in c.items() if k in fields}) for c in document["cases"]]
