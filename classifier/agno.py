"""Agno's own texts: what it appends to a user's message, and its session summary's request.

Agno (3.1.10: `agno/agent/_messages.py` and `agno/team/_messages.py`, `get_user_message`)
appends to the user's message, as the same user message, the documents its knowledge base
returned for it (`REFERENCES` ... `REFERENCES_END`, with `add_knowledge_to_context`) and the
agent's dependencies as JSON (`CONTEXT` ... `CONTEXT_END`, with
`add_dependencies_to_context`), in that order, at its end. Neither is the user's words: both
are cut from the ask where they end it (`user_words`), as Agno wrote them, in any request:
Agno has no system prompt of its own to tell its requests by, and a user who types one of its
blocks is pasting data, not asking. A message that is nothing but such a block is read as
sent: cut, it asked nothing, and its words were lost to the classifier and the key alike
(found in review).

With `enable_session_summaries`, after each run Agno (`agno/session/summary.py`,
`SessionSummaryManager`) sends a request of its own: its summary prompt as the system
prompt (`SUMMARY_SYSTEM`, then the session's messages as "User: ..." and "Assistant: ..."
lines in `<conversation>` tags) and `SUMMARY_ASK` as the one user message. Read as the ask,
that sentence was writing, sent to the cloud, whatever the session was (found in a review of
agent frameworks). It is passed over (`passed_over`), as opencode's compaction request is
(`classifier.opencode`): the request asks nothing of a user's and takes the default route.
Agno is no coding agent: its texts do not make the request an agent's session
(`classifier.rules.agent_session`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from classifier.harness import has_words
from classifier.message import System, one_text

# What `get_user_message` appends: the references' opening and closing (each document list
# ends with a line break), the dependencies' (their JSON alike)
REFERENCES = "\n\nUse the following references from the knowledge base if it helps:\n<references>\n"
REFERENCES_END = "\n</references>"
CONTEXT = "\n\n<additional context>\n"
CONTEXT_END = "\n</additional context>"
# `SessionSummaryManager`: the summary prompt's opening, its conversation's, and the ask
SUMMARY_SYSTEM = (
    "Analyze the following conversation between a user and an assistant, and extract the"
    " following details:\n"
)
CONVERSATION = "<conversation>"
SUMMARY_ASK = "Provide the summary of the conversation."
# How far back an appended block's opening is looked for from its closing: past it, the
# text is read as written (a head and a tail of it, `classifier.clip`)
WITHIN = 65_536


def user_words(message: object) -> object:
    """The content of `message` without the dependencies and the references Agno appended
    to it, unless no words (`classifier.harness.has_words`) are left; any other content as
    it is (the same object)."""
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, str):
        return content
    words = _cut(_cut(content, CONTEXT, CONTEXT_END), REFERENCES, REFERENCES_END)
    return content if words == content or not has_words(words) else words


def passed_over(messages: Sequence[Any], index: int, system: System) -> bool:
    """Whether the user message `messages[index]` is the ask of Agno's session summary: its
    sentence, the only message after the summary prompt (`system`, the system prompt of
    `messages`)."""
    if index != 1 or len(messages) != 2 or one_text(messages[1]) != SUMMARY_ASK:
        return False
    prompt = system.prompt
    return (
        prompt is not None
        and prompt.startswith(SUMMARY_SYSTEM)
        and prompt.find(CONVERSATION, 0, WITHIN) >= 0
    )


def _cut(text: str, opening: str, closing: str) -> str:
    """`text` without the block from `opening` to `closing` that ends it; as it is when it
    ends with no such block."""
    if not text.endswith(closing):
        return text
    at = text.rfind(opening, max(0, len(text) - WITHIN))
    return text if at < 0 else text[:at]
