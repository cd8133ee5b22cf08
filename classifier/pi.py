"""The pi coding agent's own texts: its summarization requests, and the summaries it sends in
a user turn after a compaction or a return from a branch.

pi (`@mariozechner/pi-coding-agent` 0.73.1; `core/compaction/compaction.js`,
`branch-summarization.js`, `utils.js`, `core/messages.js`) compacts a session whose context
grows too long, and summarizes a branch the user leaves, each in a request of its own, tool-less:
its summarization system prompt (`SUMMARIZATION_SYSTEM`), then one user message, the
conversation serialized as "[User]: ...", "[Assistant]: ...", "[Assistant tool calls]: ...",
"[Tool result]: ..." entries in `<conversation>` tags, then its orders and template (the
compaction's, its update's after a `<previous-summary>`, a split turn's prefix's, a branch's:
`PROMPTS`, each with "Additional focus: ..." the user may add). Read whole, the template
decided: its "## Goal ... Preserve exact file paths, function names" made a math conversation's
compaction coding 0.549, on the local model (found in a live review). So it is read as the
conversation it summarises, as Open WebUI's tasks are (`classifier.open_webui`): its first
"[User]: " entry as the first ask and its latest as the latest (`summarized_asks`), pi's own
summaries among them passed over. An entry runs to the next entry's marker after a blank line:
a user's text holding "\\n\\n[Assistant]: " is cut there. Bounded: the first ask is looked for
in the conversation's first `ENTRY_WITHIN` characters, the latest in its last; with no user
entry (a tool loop's compaction), the conversation is read whole, clipped as any ask.

After a compaction, pi's turns open with the summary as a user message
(`COMPACTION_OPENING`, the summary, `COMPACTION_END`); after a return from a branch, with its
summary alike (`BRANCH_OPENING`, `BRANCH_END`). They hold no words of the user's: read as the
first ask, the summary of a coding session (its code) read a follow-up turn. Passed over when a
user message follows it, as pydantic-ai's and opencode's summaries are
(`classifier.pydantic_ai`, `classifier.opencode`): the turn is read by its latest ask. A
summary with no user message after it (a split turn compacted mid-run) is the only trace of
the task left, and is read as written. pi is a coding agent: a summary passed over makes the
request an agent's session (`classifier.asks`), its summarization request not (read by the
conversation's asks, a math conversation's stays math).

Only pi's exact texts: its system prompt and the template around the conversation whole, a
summary message whole (opening and end).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from classifier.message import (
    AskPair,
    System,
    ask_pair,
    one_text,
    per_text,
    role,
    user_after,
    windowed_asks,
)
from classifier.templates import framed

# `SUMMARIZATION_SYSTEM_PROMPT` (`core/compaction/utils.js`)
SUMMARIZATION_SYSTEM = (
    "You are a context summarization assistant. Your task is to read a conversation between a"
    " user and an AI coding assistant, then produce a structured summary following the exact"
    " format specified.\n\nDo NOT continue the conversation. Do NOT respond to any questions in"
    " the conversation. ONLY output the structured summary."
)
CONVERSATION_OPENING = "<conversation>\n"
CONVERSATION_END = "\n</conversation>\n\n"
PREVIOUS_OPENING = "<previous-summary>\n"  # the update's, before its prompt
PREVIOUS_END = "\n</previous-summary>\n\n"
FOCUS = "\n\nAdditional focus: "  # the user's custom instructions after a prompt
_FORMAT_END = (
    "Keep each section concise. Preserve exact file paths, function names, and error messages."
)
# `SUMMARIZATION_PROMPT`, `UPDATE_SUMMARIZATION_PROMPT` (`compaction.js`)
SUMMARIZATION_PROMPT = (
    "The messages above are a conversation to summarize. Create a structured context checkpoint"
    " summary that another LLM will use to continue the work.\n\nUse this EXACT format:\n\n"
    "## Goal\n[What is the user trying to accomplish? Can be multiple items if the session covers"
    " different tasks.]\n\n## Constraints & Preferences\n- [Any constraints, preferences, or"
    ' requirements mentioned by user]\n- [Or "(none)" if none were mentioned]\n\n## Progress\n'
    "### Done\n- [x] [Completed tasks/changes]\n\n### In Progress\n- [ ] [Current work]\n\n"
    "### Blocked\n- [Issues preventing progress, if any]\n\n## Key Decisions\n- **[Decision]**:"
    " [Brief rationale]\n\n## Next Steps\n1. [Ordered list of what should happen next]\n\n"
    "## Critical Context\n- [Any data, examples, or references needed to continue]\n"
    '- [Or "(none)" if not applicable]\n\n' + _FORMAT_END
)
UPDATE_PROMPT = (
    "The messages above are NEW conversation messages to incorporate into the existing summary"
    " provided in <previous-summary> tags.\n\nUpdate the existing structured summary with new"
    " information. RULES:\n- PRESERVE all existing information from the previous summary\n"
    "- ADD new progress, decisions, and context from the new messages\n- UPDATE the Progress"
    ' section: move items from "In Progress" to "Done" when completed\n- UPDATE "Next Steps"'
    " based on what was accomplished\n- PRESERVE exact file paths, function names, and error"
    " messages\n- If something is no longer relevant, you may remove it\n\nUse this EXACT"
    " format:\n\n## Goal\n[Preserve existing goals, add new ones if the task expanded]\n\n"
    "## Constraints & Preferences\n- [Preserve existing, add new ones discovered]\n\n"
    "## Progress\n### Done\n- [x] [Include previously done items AND newly completed items]\n\n"
    "### In Progress\n- [ ] [Current work - update based on progress]\n\n### Blocked\n"
    "- [Current blockers - remove if resolved]\n\n## Key Decisions\n- **[Decision]**: [Brief"
    " rationale] (preserve all previous, add new)\n\n## Next Steps\n1. [Update based on current"
    " state]\n\n## Critical Context\n- [Preserve important context, add new if needed]\n\n"
    + _FORMAT_END
)
# `TURN_PREFIX_SUMMARIZATION_PROMPT` (`compaction.js`): a split turn's prefix
TURN_PREFIX_PROMPT = (
    "This is the PREFIX of a turn that was too large to keep. The SUFFIX (recent work) is"
    " retained.\n\nSummarize the prefix to provide context for the retained suffix:\n\n"
    "## Original Request\n[What did the user ask for in this turn?]\n\n## Early Progress\n"
    "- [Key decisions and work done in the prefix]\n\n## Context for Suffix\n- [Information"
    " needed to understand the retained recent work]\n\nBe concise. Focus on what's needed to"
    " understand the kept suffix."
)
# `BRANCH_SUMMARY_PROMPT` (`branch-summarization.js`)
BRANCH_PROMPT = (
    "Create a structured summary of this conversation branch for context when returning later."
    "\n\nUse this EXACT format:\n\n## Goal\n[What was the user trying to accomplish in this"
    " branch?]\n\n## Constraints & Preferences\n- [Any constraints, preferences, or requirements"
    ' mentioned]\n- [Or "(none)" if none were mentioned]\n\n## Progress\n### Done\n- [x]'
    " [Completed tasks/changes]\n\n### In Progress\n- [ ] [Work that was started but not"
    " finished]\n\n### Blocked\n- [Issues preventing progress, if any]\n\n## Key Decisions\n"
    "- **[Decision]**: [Brief rationale]\n\n## Next Steps\n1. [What should happen next to"
    " continue this work]\n\n" + _FORMAT_END
)
PROMPTS = (SUMMARIZATION_PROMPT, UPDATE_PROMPT, TURN_PREFIX_PROMPT, BRANCH_PROMPT)
# `COMPACTION_SUMMARY_PREFIX`/`_SUFFIX`, `BRANCH_SUMMARY_PREFIX`/`_SUFFIX` (`messages.js`)
COMPACTION_OPENING = (
    "The conversation history before this point was compacted into the following summary:"
    "\n\n<summary>\n"
)
COMPACTION_END = "\n</summary>"
BRANCH_OPENING = (
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
)
BRANCH_END = "</summary>"
# How far from the text's end the conversation's end is looked for: the update's previous
# summary (at most ~13k tokens of the model's) and the user's focus come after it
END_WITHIN = 131072
# How much of the conversation's start and of its end is read for its user entries
ENTRY_WITHIN = 65536
# `serializeConversation`'s entries: each after a blank line, the first at the start
_ENTRY = re.compile(
    r"(?:^|\n\n)\[(User|Assistant|Assistant thinking|Assistant tool calls|Tool result)\]: "
)


def summarized_asks(messages: Sequence[Any], system: System) -> AskPair | None:
    """The first and the latest ask of the conversation when `messages` (of the system
    prompt `system`) are pi's summarization request; None for any other request."""
    read = _request_asks(messages, system)
    return None if read is None else ask_pair(*read)


def task_ask(message: object, messages: Sequence[Any], system: System) -> object:
    """The conversation's latest ask when `message` is pi's summarization request's user
    message: what the ledger keeps as the prompt; else the content as sent (the very
    object)."""
    sent = message.get("content") if isinstance(message, dict) else None
    if len(messages) != 2 or messages[1] is not message:
        return sent
    read = _request_asks(messages, system)
    return read[1] if read is not None else sent


def passed_over(messages: Sequence[Any], index: int) -> bool:
    """Whether the user message `messages[index]` is pi's summary of a compaction or of a
    branch, whole, with a user message after it."""
    text = one_text(messages[index])
    if text is None or not _summary(text):
        return False
    return user_after(messages, index)


def _summary(text: str) -> bool:
    """Whether `text` is one of pi's summary messages, its opening and its end (`framed`:
    a text shorter than both, the opening's newline read again as the end's, is none)."""
    return any(
        framed(text, opening, end) is not None
        for opening, end in ((COMPACTION_OPENING, COMPACTION_END), (BRANCH_OPENING, BRANCH_END))
    )


def _request_asks(messages: Sequence[Any], system: System) -> tuple[str, str] | None:
    """`_conversation_asks` of the user message of pi's summarization request: its system
    prompt, then that one message; None for any other request. The prompt comes in a system
    message, or a developer message when the model is marked reasoning (pi's
    `openai-completions` provider): the same request."""
    if (
        len(messages) != 2
        or system.prompt != SUMMARIZATION_SYSTEM
        or role(messages[0]) not in ("system", "developer")
    ):
        return None
    text = one_text(messages[1]) if role(messages[1]) == "user" else None
    return _conversation_asks(text) if text is not None else None


@per_text
def _conversation_asks(text: str) -> tuple[str, str] | None:
    """The first and the latest ask of the conversation in a summarization request's text
    (`_conversation`); None when the text is not pi's template whole. Read once for a request
    (`classifier.message.per_text`: the classifier, the conversation key and the ledger)."""
    conversation = _conversation(text)
    if conversation is None:
        return None
    return windowed_asks(conversation, ENTRY_WITHIN, _user_entries)


def _conversation(text: str) -> str | None:
    """The conversation inside pi's template, when `text` is one whole: the opening, the
    conversation, its end, the update's previous summary, then one of `PROMPTS` alone or
    with the user's focus after it; else None."""
    if not text.startswith(CONVERSATION_OPENING):
        return None
    end = text.rfind(CONVERSATION_END, max(0, len(text) - END_WITHIN))
    if end < len(CONVERSATION_OPENING):  # not found, or its newline the opening's own
        return None
    after = end + len(CONVERSATION_END)
    if text.startswith(PREVIOUS_OPENING, after):
        closing = text.find(PREVIOUS_END, after)
        after = closing + len(PREVIOUS_END) if closing >= 0 else -1
    if after < 0 or not any(_prompt_ends(text, after, prompt) for prompt in PROMPTS):
        return None
    return text[len(CONVERSATION_OPENING) : end]


def _prompt_ends(text: str, at: int, prompt: str) -> bool:
    """Whether `prompt` runs from `at` to `text`'s end, or to the user's focus after it."""
    if not text.startswith(prompt, at):
        return False
    rest = len(text) - at - len(prompt)
    return rest == 0 or text.startswith(FOCUS, at + len(prompt))


def _user_entries(conversation: str, start: int, end: int) -> tuple[str, str] | None:
    """The first and the last user entry of `conversation[start:end]` that is no summary of
    pi's (`_summary`): each runs to the next entry's marker, or to `end`. None when no such
    entry is there. Bounded: one pass over the markers within `end - start` characters."""
    first: str | None = None
    last = ""
    opened: tuple[str, int] | None = None  # the open entry's role and where its text starts
    for marker in _ENTRY.finditer(conversation, start, end):
        if opened is not None and opened[0] == "User":
            first, last = _kept(conversation[opened[1] : marker.start()], first, last)
        opened = (marker.group(1), marker.end())
    if opened is not None and opened[0] == "User":
        first, last = _kept(conversation[opened[1] : end], first, last)
    return (first, last) if first is not None else None


def _kept(entry: str, first: str | None, last: str) -> tuple[str | None, str]:
    """The first and the last user entry so far, `entry` read after them unless it is pi's
    summary or white space alone."""
    if not entry.strip() or _summary(entry):
        return first, last
    return (entry if first is None else first), entry
