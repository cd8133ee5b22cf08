"""Cases that load and run as smf-bench runs them, yet are likely not what their author meant.

Unlike ``evals.suite_flaws`` (mistakes that make a case N/A), these cases are sent and graded
as written, and each load warns of them (``Case.warnings``, shown where those are): both
``prompt`` and ``prompt_template``. FORMAT.md makes ``prompt`` the user message and any key it
does not name metadata, and smf-bench's runner sends ``prompt`` (it has no use for the
template). We send the prompt too, so results compare with smf-bench's; but the prompt went
out with no word that the template was left unused.

A warning names keys only, never their values: a suite file holds prompts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

RUNS = "runs as written, but check:"
"""How each warning begins (``evals.suite_flaws.NOT_RUN`` begins those of N/A cases)."""


def notes(raw: Mapping[str, Any], where: str) -> list[str]:
    """The warnings of a case that runs as written, each naming the file and case (``where``)
    and the field; ``raw`` is the case as written."""
    found: list[str] = []
    if "prompt" in raw and "prompt_template" in raw:
        found.append(
            f"{RUNS} {where} has both 'prompt' and 'prompt_template': 'prompt' is sent, as"
            " smf-bench sends it (FORMAT.md: it is the user message, and the template unused"
            " metadata); drop the one not meant"
        )
    return found
