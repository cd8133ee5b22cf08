"""Applicability: whether a case can run on an endpoint, and the answer budget it gets there.

A case that needs a modality or capability the endpoint lacks, or whose prompt leaves too
little of the endpoint's context window for an answer, is N/A there instead of failing it
(``docs/evals.md``, Gating). Apart from ``evals.suite``, which loads the cases.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from evals.suite import Case

TEXT_MODALITIES = frozenset({"text"})
TEXT_CAPABILITIES = frozenset({"reasoning", "writing", "tool_calling", "coding", "instruction"})


@dataclass(frozen=True)
class Capabilities:
    """What an endpoint can do; a case needing more is N/A there, not a failure."""

    modalities: frozenset[str] = TEXT_MODALITIES
    capabilities: frozenset[str] = TEXT_CAPABILITIES
    context_window: int | None = None  # tokens of prompt and answer together, when known


MIN_ANSWER_TOKENS = 256
"""Below this an answer budget cut to fit a small window would grade the window, not the model."""

TEMPLATE_TOKENS = 64
"""The chat template's framing around the prompt."""


def prompt_tokens_at_most(case: Case) -> int:
    """An upper bound on the prompt's tokens without a tokenizer: one token per two UTF-8
    bytes over-counts English (~4 characters a token), code, and CJK (3 bytes a token)."""
    size = len(case.prompt.encode())
    if case.tools:
        size += len(json.dumps(case.tools).encode())
    return size // 2 + TEMPLATE_TOKENS


def answer_budget(case: Case, caps: Capabilities) -> int:
    """The case's ``max_tokens``, cut so that prompt and answer fit the context window: a
    backend rejects a request whose prompt plus ``max_tokens`` exceeds it, even when the
    answer would have been short."""
    if caps.context_window is None:
        return case.max_tokens
    return min(case.max_tokens, caps.context_window - prompt_tokens_at_most(case))


def not_applicable(case: Case, caps: Capabilities) -> str | None:
    """Why ``case`` cannot run on an endpoint with ``caps``, or None when it can."""
    if case.not_runnable is not None:
        return case.not_runnable
    missing = [m for m in case.requires_modalities if m not in caps.modalities]
    if missing:
        return f"endpoint lacks modality {', '.join(missing)}"
    lacking = [c for c in case.requires_capabilities if c not in caps.capabilities]
    if lacking:
        return f"endpoint lacks capability {', '.join(lacking)}"
    if answer_budget(case, caps) < min(MIN_ANSWER_TOKENS, case.max_tokens):
        return f"prompt and answer do not fit the {caps.context_window}-token context window"
    return None
