"""Scoring requests: a completions request that asks for its own prompt's log probabilities.

lm-eval's multiple-choice (loglikelihood) tasks send each choice of a question as a request
of its own, the question and the choice as one prompt, `echo: true` with `logprobs` and
`max_tokens` 0 or 1 (a batch sends a list of such prompts), and compare the log
probabilities the backend gives each choice's tokens. Such a request asks no task of the
model, only a measurement of the text it is given, and the measurements compare only when
one model made them all: classified one by one, "The capital of France is Paris" went local
(instruction) and "... Berlin" to the cloud (reasoning), and the accuracy compared two
models (found running lm-eval 0.4.13). vLLM also takes `prompt_logprobs` (its own field:
the prompt's log probabilities without `echo`).

Not a scoring request: `echo` alone (generation, the prompt shown before it) and `logprobs`
alone (generation, with each generated token's log probabilities). `echo` is read as vLLM
reads it (`echo_asked`), so the router and the backend agree on what a request is.
"""

from __future__ import annotations

from typing import Any

# The strings pydantic's lax mode reads as true, in any case: vLLM's `echo: bool | None`
_TRUE_WORDS = frozenset({"1", "on", "t", "true", "y", "yes"})


def scores_prompt(body: dict[str, Any]) -> bool:
    """Whether a completions `body` asks for its prompt's log probabilities: `echo: true`
    with `logprobs`, or vLLM's `prompt_logprobs`. The gateway reads no text in it
    (`router.translate.view`): it takes `classifier.default_route`, as a request with
    nothing to read does, whatever its prompt says."""
    if _asked(body.get("prompt_logprobs")):
        return True
    return echo_asked(body) and _asked(body.get("logprobs"))


def echo_asked(body: dict[str, Any]) -> bool:
    """Whether a completions `body` asks for its prompt back, as vLLM's request model reads
    `echo` (pydantic's lax bool): `true`, `1`, `1.0`, and the strings "true", "1", "yes",
    "on", "t", "y" in any case. One it cannot read (`2`, "maybe") is no echo: the backend
    refuses it. Read as `true` alone, `echo: 1` with `logprobs` was generation here, its
    text classified (a math prompt went to the cloud), and a scoring request to vLLM; and
    with `max_tokens: 0`, which vLLM serves, a 400 (`router.request`; found in review)."""
    value = body.get("echo")
    if isinstance(value, str):
        return value.lower() in _TRUE_WORDS
    return isinstance(value, int | float) and value == 1


def _asked(value: object) -> bool:
    """A count of log probabilities, as vLLM reads one (`int | None`): any number, `false`
    too, which it takes as 0 and answers with the chosen tokens' log probabilities alone."""
    return isinstance(value, int | float)
