"""HolmesGPT's requests: the paragraph on time, and the skill block, it appends to a question.

HolmesGPT (0.45.0, Apache-2.0: `holmes/plugins/prompts/base_user_prompt.jinja2`, rendered by
`generate_user_prompt` in `holmes/core/prompt.py`) renders the first user message of an
`ask` or an investigation as the question (with any `-f` file's `<attached-file>` block),
then, when skills exist, a "# Skill Selection" block (its catalog and how to fetch a skill),
then a fixed paragraph:

    When querying tools, always query for the relevant time period. The current UTC date and
    time are 2026-12-07 14:10:52.896984+00:00. The current UTC timestamp in seconds is
    1796652652.
    When users mention dates without years (e.g., 'March 25th', 'last May', etc.), assume they
    either mean the current year (2026) unless context suggests otherwise.

Read with it, some 350 characters of tools and time, the question leaned to `tool_calling`
and `coding` at a lower confidence: "Write a short haiku about on-call engineers." was prose
0.24, under `min_confidence`, and went by the default route (prose 0.99 alone), "Why is my
checkout pod in CrashLoopBackOff?" tool_calling 0.51 (reasoning 0.72 alone), "Write a
postmortem ..." coding (found in a live review). Both are HolmesGPT's, none of the user's
words: cut from the text the classifier reads (`without_appended`).

Not from the conversation key, nor the ledger's prompt (`classifier.ask_text.ask_content`
keeps them): the microsecond time is what keeps two runs of one question two
conversations, and an interactive session's later turns, which carry no paragraph, keep the
first message as sent in their history, so its key holds.

Told by HolmesGPT's system prompt, which opens "You are HolmesGPT" (after a line break), and
by the paragraph's first sentence within the message's last `NOTE_WITHIN` characters, cut
to the end, since HolmesGPT writes nothing after it; then the skill block's heading and first
line, if the text before the paragraph holds them, cut from the last of them. A question
that quotes that sentence under another system prompt is read as written. HolmesGPT is no
coding agent: nothing here makes a request an agent's session
(`classifier.rules.agent_session`).
"""

from __future__ import annotations

import re

from classifier.message import System

# How HolmesGPT's system prompt opens (`"\nYou are HolmesGPT version 0.45.0, an AI agent for
# troubleshooting ..."`), after the template's leading line break
_HOLMES_SYSTEM = re.compile(r"\s{0,16}You are HolmesGPT\b")
# The paragraph's first sentence, after the blank lines the template leaves before it
NOTE_OPENING = (
    "\n\nWhen querying tools, always query for the relevant time period. The current UTC date"
    " and time are "
)
# How far from a text's end the paragraph is looked for: some 350 characters, its time's and
# year's widths aside
NOTE_WITHIN = 1024
# The skill block's heading and first line, after a blank line
SKILLS_OPENING = (
    "\n# Skill Selection\n\nYou (HolmesGPT) have access to skills with step-by-step"
    " troubleshooting instructions.\n"
)


def is_holmes(system: System) -> bool:
    """Whether the request's system prompt is HolmesGPT's: its opening text starts "You
    are HolmesGPT" (after white space)."""
    return system.opening is not None and _HOLMES_SYSTEM.match(system.opening) is not None


def without_appended(content: object, system: System) -> object:
    """`content` without the paragraph on time, and the skill block before it, that
    HolmesGPT appends to a question (`without_note`), when `system` is HolmesGPT's
    (`is_holmes`): a string, or a part array's first text part (its API's images follow
    it). Any other content, and any other request's, as it is."""
    if not is_holmes(system):
        return content
    if isinstance(content, str):
        return without_note(content)
    if isinstance(content, list) and content and isinstance(content[0], dict):
        first = content[0]
        text = first.get("text") if first.get("type") == "text" else None
        if isinstance(text, str) and (cut := without_note(text)) is not text:
            return [{**first, "text": cut}, *content[1:]]
    return content


def without_note(text: str) -> str:
    """`text` without HolmesGPT's paragraph on time (`NOTE_OPENING`, within the last
    `NOTE_WITHIN` characters, the last one, to the end) and the skill block before it
    (`SKILLS_OPENING`, the last one), white space at the cut dropped; `text` itself when it
    holds no paragraph."""
    end = text.rfind(NOTE_OPENING, max(0, len(text) - NOTE_WITHIN))
    if end < 0:
        return text
    skills = text.rfind(SKILLS_OPENING, 0, end)
    return text[: end if skills < 0 else skills].rstrip()
