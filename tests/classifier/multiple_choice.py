"""inspect_ai's and evalscope's multiple-choice prompts filled as their `prompt()` fills them,
and a chat body of one user text: one place for the helpers their tests each wrote (found in
review: evalscope's test copied inspect_ai's)."""

from __future__ import annotations

from typing import Any

from classifier.inspect_ai import answer_character


def asked(text: str) -> dict[str, Any]:
    """A chat body of one user message, `text`."""
    return {"model": "auto", "messages": [{"role": "user", "content": text}]}


def prompt(template: str, question: str, choices: list[str]) -> str:
    """The tools' `prompt()`: the template filled with the question, its choices as
    "A) ..." lines and their letters (evalscope fills its templates as inspect_ai does)."""
    letters = ",".join(answer_character(i) for i in range(len(choices)))
    lines = "\n".join(f"{answer_character(i)}) {choice}" for i, choice in enumerate(choices))
    return template.format(question=question, choices=lines, letters=letters)
