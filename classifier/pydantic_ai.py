"""pydantic-ai's retry feedback: a user message of its own after a response it could not use.

When a model's output fails validation (or an output validator raises `ModelRetry`),
pydantic-ai sends its feedback as the next user message. 2.78.0 (`messages.py`:
`RetryFeedbackPart.model_response`, `_fenced_retry_feedback`) sends `RETRY_FRAMING`, then the
errors in `<pyai:validation_errors>` or the validator's message in `<pyai:retry_feedback>`
(`FENCES`); 1.x sent them bare (`RetryPromptPart.model_response`, which 2.78.0 keeps
deprecated): "Validation feedback:\\n" and the message, or "1 validation error:" and the errors
in a JSON fence, each then `BARE_END`. Read as the ask, the retry of "What is the largest
city in France?" went from reasoning 0.775 to instruction 0.689 (found in a review of agent
frameworks). Passed over as no ask (`classifier.request`), as Aider's reflections are
(`classifier.aider`): the user's ask before it is read. A tool call's retry is the tool's
result (a `tool` message), never an ask.

Told by its exact wording, right after the assistant's response it answers (past the system
messages 2.78.0 may put between: its note on text that looks like its frames): a message that
quotes one among words of its own, or that follows no response, is read as written.
pydantic-ai is no coding agent: its feedback, passed over, does not make the request an
agent's session (`classifier.rules.agent_session`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from classifier.message import one_text

# `_RETRY_FEEDBACK_FRAMING`, on a line of its own before the fence
RETRY_FRAMING = (
    "Your previous response failed the application's validation (this is automated feedback,"
    " not a message from the user):\n"
)
# `frame(VALIDATION_ERRORS_TAG, ...)` and `frame(RETRY_FEEDBACK_TAG, ...)`: openings, closings
FENCES = (
    ("<pyai:validation_errors>", "</pyai:validation_errors>"),
    ("<pyai:retry_feedback>", "</pyai:retry_feedback>"),
)
# 1.x: how the bare feedback starts, and its fixed end
_BARE_START = re.compile(r"Validation feedback:\n|\d{1,6} validation errors?:\n```json\n")
BARE_END = "\n\nFix the errors and try again."
# System messages looked past, at most, back to the response the feedback answers
_BETWEEN = 4


def passed_over(messages: Sequence[Any], index: int) -> bool:
    """Whether the user message `messages[index]` is pydantic-ai's retry feedback: one of its
    texts, after an assistant message (system messages between)."""
    text = one_text(messages[index])
    if text is None or not (_fenced(text) or (text.endswith(BARE_END) and _BARE_START.match(text))):
        return False
    for back in range(index - 1, max(index - 2 - _BETWEEN, -1), -1):
        role = messages[back].get("role") if isinstance(messages[back], dict) else None
        if role not in ("system", "developer"):
            return role == "assistant"
    return False


def _fenced(text: str) -> bool:
    """Whether `text` is 2.78.0's feedback: `RETRY_FRAMING`, then one of `FENCES` to its end."""
    if not text.startswith(RETRY_FRAMING):
        return False
    start = len(RETRY_FRAMING)
    return any(text.startswith(op, start) and text.endswith(cl) for op, cl in FENCES)
