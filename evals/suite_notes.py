"""Cases that load and run as smf-bench runs them, yet are likely not what their author meant.

Unlike ``evals.suite_flaws`` (mistakes that make a case N/A), these cases are sent and graded
as written, and each load warns of them (``Case.warnings``, shown where those are). Three kinds:

- both ``prompt`` and ``prompt_template``: FORMAT.md makes ``prompt`` the user message and any
  key it does not name metadata, and smf-bench's runner sends ``prompt`` (it has no use for
  the template). We send the prompt too, so results compare with smf-bench's; but the prompt
  went out with no word that the template was left unused.
- a key near a field the case's evaluator reads (``must_not_mach``, ``units``,
  ``expected_keyword``): FORMAT.md makes unknown keys metadata, so the misspelt key loaded,
  was never read, and the grader applied its default (no excluded pattern, lines counted,
  every keyword needed). Arbitrary metadata stays allowed: only a key within a small edit
  distance of a field the case reads and does not give is named.
- a case field in ``metadata`` (``metadata: {max_tokens: 5}``), or a key there near one
  (``temprature``): the loader reads those fields at the top level only, so the value went
  unused, the default applied.

A warning names keys only, never their values: a suite file holds prompts.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Iterable, Mapping
from typing import Any

RUNS = "runs as written, but check:"
"""How each warning begins (``evals.suite_flaws.NOT_RUN`` begins those of N/A cases)."""

GRADER_METADATA: Mapping[str, tuple[str, ...]] = {
    "regex_match": ("must_not_match",),
    "text_contains": ("expected_keywords", "min_matches"),
    "structural_count": ("unit", "op"),
    "programmatic": ("eval_type", "language", "checker"),
    "unit_test": ("language",),
}
"""The metadata (or top-level) fields each evaluator reads (``evals.graders``,
``evals.grader_fields``); ``tool_call``'s ``expected`` keys are ``evals.suite_flaws``'s."""

EVERY_CASE_METADATA = ("tools",)
"""Metadata read for every case: its tools are sent with the request."""

SMF_BENCH_FIELDS = frozenset({"messages", "prompt_template", "timeout", "weight"})
"""Top-level fields smf-bench reads and we do not: never a misspelling of ours."""

CUTOFF = 0.8
"""How alike a key and a field must be (``difflib`` ratio, compared in lower case): one
letter in ten off, or a letter missing from a short name (``ops`` for ``op``)."""


def notes(
    raw: Mapping[str, Any],
    given: Mapping[str, Any],
    metadata: Mapping[str, Any],
    evaluator: str,
    where: str,
    case_fields: Collection[str],
) -> list[str]:
    """The warnings of a case that runs as written, each naming the file and case (``where``)
    and the field. ``raw`` is the case as written, ``given`` its ``metadata`` mapping,
    ``metadata`` both merged; ``case_fields`` the top-level fields the loader reads."""
    found: list[str] = []
    if "prompt" in raw and "prompt_template" in raw:
        found.append(
            f"{RUNS} {where} has both 'prompt' and 'prompt_template': 'prompt' is sent, as"
            " smf-bench sends it (FORMAT.md: it is the user message, and the template unused"
            " metadata); drop the one not meant"
        )
    read = (*GRADER_METADATA.get(evaluator, ()), *EVERY_CASE_METADATA)
    missing = [f for f in read if f not in metadata]  # one given: a key near it is another
    own = {*case_fields, *SMF_BENCH_FIELDS}
    top = sorted(f for f in case_fields if f not in raw)
    near = [_near(key, key, missing, evaluator, top) for key in _unknown(raw, {*own, *read})]
    near += [
        _in_metadata(key, missing, evaluator, top, case_fields) for key in _unknown(given, read)
    ]
    return found + [f"{RUNS} {where}: {said}" for said in near if said]


def _unknown(fields: Mapping[str, Any], known: Collection[str]) -> Iterable[str]:
    """The keys of ``fields`` that are not ``known``: nothing reads them by name."""
    return (str(key) for key in fields if str(key) not in known)


def _in_metadata(
    key: str, grader: list[str], evaluator: str, top: list[str], case_fields: Collection[str]
) -> str:
    """A key of ``metadata`` that nothing reads there: a case field (``max_tokens``), which
    the loader reads at the top level only, so its value went unused without a word; else
    as ``_near`` names it, a case field it is near too (``temprature``)."""
    if key in case_fields:
        said = "is a case field: in metadata it is not read; give it at the top level"
        return f"'metadata.{key}' {said}"
    return _near(key, f"metadata.{key}", grader, evaluator, top)


def _near(key: str, shown: str, grader: list[str], evaluator: str, top: list[str]) -> str:
    """``key`` (named ``shown``, where it is written) as the misspelling of the field it is
    nearest: one ``evaluator``'s grader reads, else one of every case (``top``: a case field
    meant in ``metadata`` is meant at the top level); "" if none."""
    near = difflib.get_close_matches(key.lower(), [*grader, *top], n=1, cutoff=CUTOFF)
    if not near:
        return ""
    if near[0] in GRADER_METADATA.get(evaluator, ()):
        return f"{shown!r} is not a field {evaluator} reads; did you mean {near[0]!r}?"
    if near[0] in top and shown.startswith("metadata."):
        where = ", at the top level (in metadata it is not read)"
        return f"{shown!r} is not a field of a case; did you mean {near[0]!r}{where}?"
    return f"{shown!r} is not a field of a case; did you mean {near[0]!r}?"
