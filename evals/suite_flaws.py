"""Cases that load but must not run as written: N/A, with a warning for the loader's caller.

Each of these loaded and then graded nothing true: both ``prompt`` and ``messages`` (FORMAT.md
does not say which one is sent; the prompt was, and ``messages`` dropped without a word), and
the grader fields ``evals.grader_fields.not_runnable`` names (a ``tool_call`` key the grader
never reads passed a call with any arguments; a tool the case does not offer failed every
answer). Refusing them failed the load of every other case with them, and a router's whole
canary config: ``serve`` would not start, a reload was rejected, ``canary run`` exited 2, for
an ``expected.note`` that smf-bench's own grader ignores (found in review). So such a case
loads, is N/A with the reason (``Case.not_runnable``: never asked, never graded, counted as no
pass or fail), and ``Case.warnings`` names the file, the case and the field, for the caller to
print once at load (``evals.cli``, the router's ``canary.load_cases``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evals import grader_fields

NOT_RUN = "not run (N/A until fixed):"
"""How each warning begins."""


def flaws(
    raw: Mapping[str, Any], evaluator: str, metadata: Mapping[str, Any], where: str
) -> list[tuple[str, str]]:
    """A case's mistakes that keep it from running, each as (the N/A reason, the warning
    naming file and case, ``where``, and the field); none when it may run."""
    found: list[tuple[str, str]] = []
    if "prompt" in raw and "messages" in raw:
        said = "has both 'prompt' and 'messages': give one of them (FORMAT.md says not which)"
        found.append((f"it {said}", f"{NOT_RUN} {where} {said}"))
    for reason in grader_fields.not_runnable(raw.get("expected"), evaluator, metadata):
        found.append((reason, f"{NOT_RUN} {where}: {reason}"))
    return found
