"""swarms' final summary request of an autonomous run, and the run's task it holds.

swarms 16.0.3 (`swarms/structs/agent.py` `_generate_final_summary`, with `max_loops="auto"`)
ends an autonomous run with one more request: without the loop's structured messages, it
sends the agent's whole history flattened into one user message
(`Conversation.return_history_as_string`), after the agent's system prompt. Each entry of
it is `[{timestamp}] {role}: {content}` (`Conversation._format_message`, the timestamp
`datetime.now().isoformat()`), entries a blank line apart: the system prompt's first
(`System`), then the run's, the user's task under the agent's `user_name` ("Human" by
default) the first of that role, and last, under that role too, `SUMMARY`
(`autonomous_loop_utils.get_summary_prompt`).

The loop's own requests open with the system prompt and the task as their first user
message; the summary's first user message is that transcript, so its conversation key was
another's: one run was two conversations, and the run's pin did not hold for its summary
(found in a live review). `run_task` reads the task back out of the transcript, for the key
only (`router.conversation.conversation_key`); the classifier reads the summary request as
sent. The demo's simulator reads a transcript's newest entry (`latest_entry`) for the tool
it names, as a model follows the last instruction (`router.simulator.tool_calls`).

Only a transcript that is the request's only and last user message, one text, opening with
the system prompt's entry and ending with `SUMMARY` as the last entry: a history that
swarms' dynamic context window cut from its head (`dynamic_auto_chunking` keeps the newest
entries) no longer opens so, and is keyed as sent, as is a summary that holds no task entry.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from classifier.message import one_text

# `get_summary_prompt()`, the transcript's last entry
SUMMARY = (
    "All subtasks are complete.\n"
    "Generate a clear, comprehensive final summary using the `complete_task` tool.\n"
    "Your summary should:\n"
    "- Restate the original task and confirm completion.\n"
    "- Outline major accomplishments and deliverables.\n"
    "- Present key results and findings (including important data or insights).\n"
    "- Briefly summarize each subtask's status (including any failures).\n"
    "- Capture notable lessons learned, challenges, and future recommendations.\n"
    "Clearly state the task's overall success or any limitations.\n"
    "Use the `complete_task` tool with: task_id, summary, success (true/false), results"
    " (optional), and lessons_learned (optional).\n"
    "Be concise, well-organized, and thorough—this is the user's final deliverable."
)
# An entry's timestamp, `datetime.isoformat()` (no fraction when its microseconds are 0)
_STAMP = r"\[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{6})?\] "
OPENING = re.compile(_STAMP + "System: ")
# The head of each entry after the first, and of the last: its role names the user
_ENTRY = re.compile(r"\n\n" + _STAMP)
_LAST = re.compile(r"\n\n" + _STAMP + r"([^\n]{1,256}): \Z")
_HEAD = re.compile(r"\n\n" + _STAMP + r"[^\n]{1,256}?: ")


def run_task(messages: Sequence[Any]) -> str | None:
    """The task of the autonomous run whose final summary request `messages` is (its
    transcript's first entry of the user's role, `transcript_task`); None for any other
    request."""
    users = [m for m in messages if isinstance(m, dict) and m.get("role") == "user"]
    if len(users) != 1 or users[0] is not messages[-1]:
        return None
    text = one_text(users[0])
    return transcript_task(text) if text is not None else None


def transcript_task(text: str) -> str | None:
    """The content of the first entry of the user's role (the role of the last entry,
    `SUMMARY`) in swarms' transcript `text`, up to the next entry; None when `text` is no
    such transcript (`OPENING`... `SUMMARY`) or the first such entry is `SUMMARY`'s own."""
    if not text.endswith(SUMMARY) or OPENING.match(text) is None:
        return None
    head = text[: len(text) - len(SUMMARY)]
    last = _LAST.search(head, max(0, len(head) - 300))
    if last is None:
        return None
    entry = re.compile(r"\n\n" + _STAMP + re.escape(last.group(1)) + ": ")
    task = entry.search(head)
    if task is None or task.start() == last.start():
        return None
    end = _ENTRY.search(head, task.end())
    return head[task.end() : end.start() if end else last.start()]


def latest_entry(text: str) -> str | None:
    """The content of the newest entry of swarms' transcript `text` (one opening with the
    system prompt's entry, `OPENING`), None for any other text or a transcript of one entry.
    What a model answering the transcript does: the final summary's is `SUMMARY`, which
    names `complete_task` (`router.simulator.tool_calls`)."""
    if OPENING.match(text) is None:
        return None
    at = text.rfind("\n\n[")
    while at > 0:
        head = _HEAD.match(text, at)
        if head is not None:
            return text[head.end() :]
        at = text.rfind("\n\n[", 0, at)
    return None
