"""Canary awareness: a shipped eval prompt gets its reference answer, or a wrong one.

The simulated backend's quality per suite (default 1.0) is the probability of the right
answer, so canary pass rates — and the eval-gated routing that reads them — can be moved
on purpose in tests. Cases come from `evals.suite` when it is installed (guarded import:
the simulator must run without it), or are given directly.
"""

from __future__ import annotations

import json
import logging
import random
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from router.simulator.arithmetic import boxed
from router.simulator.prompt import Prompt, Reply, ToolCall
from router.simulator.tool_calls import tool_call

log = logging.getLogger(__name__)
_BOXED = re.compile(r"\\boxed\{\s*\\?\$?\s*([^{}]*?)\s*\}")


class CaseLike(Protocol):
    @property
    def prompt(self) -> str: ...
    @property
    def suite(self) -> str: ...
    @property
    def reference(self) -> Any: ...


@dataclass(frozen=True, slots=True)
class Case:
    prompt: str
    suite: str
    reference: Any


def shipped_cases() -> list[CaseLike]:
    """Every case shipped with `evals`, or none when that package is not there yet."""
    try:
        from evals.suite import SHIPPED, load
    except ImportError:
        return []
    cases: list[CaseLike] = []
    try:
        sources = SHIPPED if isinstance(SHIPPED, list | tuple) else [SHIPPED]
        for source in sources:
            loaded = load(source)
            cases.extend(getattr(loaded, "cases", loaded))
    except Exception:  # a broken suite must not take the backend down with it
        log.exception("could not load the shipped eval suites; canary answers are off")
        return []
    return cases


class CanaryBook:
    """Prompt → case, with a per-suite quality that tests may change at runtime."""

    def __init__(self, cases: Iterable[CaseLike] | None, quality: dict[str, float]) -> None:
        """`cases=None` loads the shipped suites lazily, on the first lookup (start fast)."""
        self._given = cases
        self._cases: dict[str, CaseLike] | None = None
        self.quality = quality  # shared with the runtime control state, not copied

    @property
    def cases(self) -> dict[str, CaseLike]:
        if self._cases is None:
            given = shipped_cases() if self._given is None else self._given
            self._cases = {c.prompt.strip(): c for c in given if c.reference is not None}
        return self._cases

    def find(self, user: str) -> CaseLike | None:
        cases = self.cases
        return cases.get(user.strip()) if cases else None

    def answer(self, case: CaseLike, prompt: Prompt, rng: random.Random) -> Reply:
        right = rng.random() < self.quality.get(case.suite, 1.0)
        return right_reply(case, prompt) if right else wrong_reply(case, prompt)


def right_reply(case: CaseLike, prompt: Prompt) -> Reply:
    ref = _maybe_json(case.reference) if case.suite == "tool_calling" else case.reference
    if isinstance(ref, dict) and "name" in ref:
        args = ref.get("arguments", {})
        return Reply(tool_calls=(ToolCall(str(ref["name"]), _json(args)),))
    text = str(ref)
    if case.suite == "math" and "\\boxed" not in text:
        return Reply(text=boxed(text))
    if case.suite == "coding" and "```" not in text:
        return Reply(text=f"```python\n{text.rstrip()}\n```")
    if case.suite == "tool_calling" and prompt.tools:
        return Reply(tool_calls=(tool_call(prompt),))
    return Reply(text=text)


def wrong_reply(case: CaseLike, prompt: Prompt) -> Reply:
    ref = str(case.reference)
    if case.suite == "math":
        found = _BOXED.findall(ref)
        right = found[-1] if found else ref.strip()
        try:
            return Reply(text=boxed(str(int(float(right)) + 1)))
        except ValueError:
            return Reply(text=boxed("0"))
    if case.suite == "coding":  # Laguna's typical failure: code that does not parse
        return Reply(text="```python\ndef solution(:\n    return None\n```")
    if case.suite == "tool_calling":
        return Reply(text="I cannot call a tool for this.")
    return Reply(text="I am not sure about that.")


def _maybe_json(ref: Any) -> Any:
    if isinstance(ref, str) and ref.lstrip().startswith("{"):
        try:
            return json.loads(ref)
        except ValueError:
            return ref
    return ref


def _json(args: Any) -> str:
    return args if isinstance(args, str) else json.dumps(args)
