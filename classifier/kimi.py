"""Kimi CLI's own user message: its follow-up to a subagent's reply it finds too brief.

Kimi CLI (1.51.0, `kimi_cli/subagents/runner.py`) runs a subagent's task as a conversation
of its own. When the subagent's last reply is under 200 characters (`SUMMARY_MIN_LENGTH`),
it asks once more with `SUMMARY_CONTINUATION_PROMPT` as a user message, right after that
reply: "Your previous response was too brief. Please provide a more comprehensive summary
that includes:" and three numbered points. Read as the ask, its subagent's next step was
writing 0.76-0.89, where the task was "write a python function is_prime" or "explain what
sync_dir does in utils.py" (found in a live review: served on the cloud, or on the local
backend by the writing route).

So it is passed over (`passed_over`), as mini-swe-agent's answer to a reply it could not
run is (`classifier.mini_swe_agent`): the task before it is read, and the request reads as
a coding agent's session (`classifier.rules.agent_session`), which Kimi CLI's is. Told by
the whole text, exactly as Kimi CLI sends it (one string), after an assistant's reply and
after the request's first user message (the subagent's task: Kimi CLI sends its task
first, always), in Kimi CLI's request (`framed`: its system prompt opens with its name,
`IDENTITY`). A user who types or pastes the same words as a session's first message, with
other words of their own, or into another app's chat, is read as written.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from classifier.message import System, after_first_user, one_text

# `SUMMARY_CONTINUATION_PROMPT`, as Kimi CLI sends it (its triple-quoted text, stripped)
SUMMARY_CONTINUATION = (
    "Your previous response was too brief. Please provide a more comprehensive summary that"
    " includes:\n\n1. Specific technical details and implementations\n2. Detailed findings"
    " and analysis\n3. All important information that the parent agent should know"
)

# How Kimi CLI's system prompt opens, its main agent's and its subagents' alike
# (`kimi_cli/agents/default/system.md`, the recorded bodies `tests/fixtures/kimi-cli-1.51.0/`)
IDENTITY = "You are Kimi Code CLI, "


def passed_over(messages: Sequence[Any], index: int, system: System) -> bool:
    """Whether the user message `messages[index]` is Kimi CLI's follow-up to a reply too
    brief (`SUMMARY_CONTINUATION`): that text alone, right after an assistant's message, in
    Kimi CLI's request (`framed` of `system`, its system prompt), and after the request's
    first user message, which is not (`after_first_user`)."""
    if not (_is_continuation(messages[index]) and index > 0):
        return False
    before = messages[index - 1]
    if not (isinstance(before, dict) and before.get("role") == "assistant"):
        return False
    return framed(system) and after_first_user(messages, index, _is_continuation)


def framed(system: System) -> bool:
    """Whether a request is Kimi CLI's: its system prompt (`system`) opens with
    `IDENTITY`."""
    text = system.prompt
    return text is not None and text.startswith(IDENTITY)


def _is_continuation(message: object) -> bool:
    """Whether `message` is one text, Kimi CLI's follow-up."""
    return one_text(message) == SUMMARY_CONTINUATION
