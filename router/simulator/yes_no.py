"""A prompt that ends asking for Yes or No gets one word.

NeMo Guardrails' self-check rails ask the model a yes/no question: its documented
`self_check_input` prompt lists a policy ("should not contain code or ask to execute code")
and ends "Question: Should the user message be blocked (Yes or No)?\\nAnswer:". NeMo reads
the answer for "yes" or "no" (`is_content_safe`) and blocks on neither; the simulator
answered the policy's "code" with a Python block, so every message was blocked in demo mode
(found in a live review).

Which word is a fixed choice, the one that lets a demo conversation through the check: "No"
where the question asks whether something is wrong (should be blocked or refused, is unsafe,
violates a policy, `_FLAGGED`), "Yes" where it asks whether something is right (complies, is
safe, is grounded in the evidence). The simulator reads no policy; a demo that refused
everything would show nothing of the app behind the rail.

Only the end of the text is read (`_TAIL`, its last `_LINES` lines): a question earlier in
a prompt is not the one the answer must be.
"""

from __future__ import annotations

import re

_TAIL = 400  # characters of the text's end read for the question
_LINES = 2  # the question and an answer's label ("Answer:")
# "(Yes or No)", "yes/no", "Answer yes or no", "Reply with Yes/No", "'yes' or 'no'"
_ASKED = re.compile(r"""\byes\b["'*]?\s*(?:or|/)\s*["'*]?no\b""", re.I)
# a question asking whether something is wrong: "No" lets the conversation through
_FLAGGED = re.compile(
    r"\b(?:block\w*|refus\w*|reject\w*|unsafe|harmful|violat\w*|jailbreak\w*|toxic"
    r"|offensive|inappropriate|hallucinat\w*|malicious|flag\w*)\b",
    re.I,
)


def yes_or_no(text: str) -> str | None:
    """The word answering where `text`'s last lines ask for Yes or No (`_ASKED`): "No"
    where they ask whether something is wrong (`_FLAGGED`), else "Yes"; None where they ask
    for neither."""
    lines = [line for line in text[-_TAIL:].splitlines() if line.strip()]
    question = "\n".join(lines[-_LINES:])
    if not _ASKED.search(question):
        return None
    return "No" if _FLAGGED.search(question) else "Yes"
