"""code-puppy's own texts: the summary its compaction writes at the head of its system prompt,
and its two side requests, the compaction's summarizer and the session's title.

code-puppy 0.0.946 compacts a long session with Pydantic AI Harness's `SummarizingCompaction`
(pydantic-ai-harness 0.35.0, `compaction/_summarizing_compaction.py`): the summary goes before
the agent's instructions in the one system message, `SUMMARY_OPENING`, the summary a model
wrote, a blank line, then the prompt as before, which opens with the puppy's identity
(`_IDENTITY`, `code_puppy/agents/agent_code_puppy.py`); the session's first ask is kept. The
conversation key reads the head of the system prompt (`router.conversation`): each compaction
keyed the session anew, and its pin was lost (found in a live review). So the key reads the
prompt from the identity on (`without_summary`): the compacted session keys as before it.
Only code-puppy's own agent's: another agent's prompt (agent-creator, a JSON agent) has no
known start past the summary, and keys as sent.

The summarizer is a request of its own, tool-less: the harness's instructions
(`SUMMARIZER_SYSTEM`), then one user message, its template (`SUMMARIZER_OPENING`) around the
conversation. It holds none of the session's system prompt, so it cannot key as the session
does; with the router's session header it joins the session. The title request
(`code_puppy_core_plugins/session_namer/namer.py`): its naming prompt (`TITLE_SYSTEM`, a
skills note may follow), then one user message, a digest of the session's turns ("user: ...",
"assistant: ..." lines, each cut at 240 characters) after `DIGEST_OPENING`, or the previous
title's JSON and the digest since it (`PREVIOUS_OPENING`, `SINCE`). Read whole, its template
was read (instruction 0.26, below the floor); its ask is the digest's first user entry
(`title_ask`), as Claude Code's title request is read (`classifier.claude_code`). Both are side
requests (`classifier.side_request`): neither is a turn of the session, and neither pins it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from classifier.message import System, one_text, role

# `_SUMMARY_PREFIX` (pydantic-ai-harness), before the summary in the system prompt
SUMMARY_OPENING = "Summary of previous conversation:\n\n"
# The identity line that opens code-puppy's prompt, after the summary and a blank line
_IDENTITY = re.compile(
    r"\n\n(?=You are [^\n]{1,200}?, the most loyal digital puppy, helping your owner"
    r" [^\n]{1,200}? get coding stuff done!\n)"
)
# `_DEFAULT_INSTRUCTIONS` and `_DEFAULT_SUMMARY_PROMPT`'s text before the conversation
SUMMARIZER_SYSTEM = (
    "You are a context summarization assistant. Extract the most important information from"
    " conversations."
)
SUMMARIZER_OPENING = (
    "You are a context summarization assistant.  The conversation below will be replaced by"
    " your summary, so it must carry everything needed to continue the task.\n\nWrite the"
    " summary under these exact section headings, omitting a section only if it has no"
    " content:\n\n## Intent\nThe user's overall goal and any standing constraints or"
    " preferences.\n\n## Key decisions\nChoices made and the reasoning, so they are not"
    " relitigated.\n\n## Artifacts\nFiles, paths, identifiers, commands, and APIs touched --"
    " quote exact names.\n\n## Current state\nWhat is done and what is in progress right"
    " now.\n\n## Next steps\nThe immediate actions still required to finish the task.\n\n"
    "## Open questions\nUnresolved questions or blockers.\n\nFocus on results, not a replay of"
    " completed actions.  Respond ONLY with the summary -- no preamble, no markdown fences."
    "\n\n<messages>\n"
)
# The session namer's `_INSTRUCTIONS`, and how its `build_prompt` opens the digest
TITLE_SYSTEM = (
    "You name coding-agent chat sessions for a resume picker. Given a digest of the"
    " conversation (and possibly the previous summary), reply with ONLY a JSON object:"
    ' {"title": <=8 words naming the main task, "subtitle": <=12 words of concrete detail,'
    ' "tags": up to 4 lowercase single-word topic tags}. When a previous summary is provided,'
    " refine it: keep the title stable unless the session's focus materially changed. No"
    " prose, no code fences -- just the JSON object."
)
DIGEST_OPENING = "Conversation digest:\n"
PREVIOUS_OPENING = "Previous summary:\n{"
SINCE = "}\n\nConversation since then:\n"
# A digest's entries: a role's marker at a line's start
_USER = "user: "
_ENTRY = re.compile(r"\n(?:user|assistant): ")
_DIGEST_WITHIN = 4096  # the namer's digest is at most 2400 characters, its previous title short


def without_summary(system: str) -> str:
    """`system` from code-puppy's identity on, when it opens with a compaction's summary
    (`SUMMARY_OPENING`); any other as it is. The summary is the model's text: the first
    identity line after a blank line ends it (the summarizer never sees the prompt)."""
    if not system.startswith(SUMMARY_OPENING):
        return system
    identity = _IDENTITY.search(system, len(SUMMARY_OPENING))
    return system if identity is None else system[identity.end() :]


def side_requests(messages: Sequence[Any], system: System) -> bool:
    """Whether `messages` (of system prompt `system`) are code-puppy's summarizer or title
    request (`classifier.side_request`)."""
    return titles(messages, system) or _summarizes(messages, system)


def _summarizes(messages: Sequence[Any], system: System) -> bool:
    """Whether `messages` are the compaction's summarizer request: its instructions as the
    system message, then one user message opening with its template."""
    if len(messages) != 2 or role(messages[1]) != "user" or system.prompt != SUMMARIZER_SYSTEM:
        return False
    text = one_text(messages[1])
    return text is not None and text.startswith(SUMMARIZER_OPENING)


def titles(messages: Sequence[Any], system: System) -> bool:
    """Whether `messages` are the session namer's title request (`title_ask`)."""
    return len(messages) == 2 and _digest_ask(messages[1], system) is not None


def title_ask(message: object, messages: Sequence[Any], system: System) -> object:
    """The digest's first user entry when `message` is the title request's user message,
    after the naming prompt (`system`); else its content as sent (the very object)."""
    sent = message.get("content") if isinstance(message, dict) else None
    if len(messages) != 2 or messages[1] is not message:
        return sent
    ask = _digest_ask(message, system)
    return sent if ask is None else ask


def _digest_ask(message: object, system: System) -> str | None:
    """The first user entry of the title request's digest in `message`, up to the next
    entry; None when `message` is no such request's (its system prompt `system`)."""
    if role(message) != "user" or not (system.prompt or "").startswith(TITLE_SYSTEM):
        return None
    text = one_text(message)
    if text is None or len(text) > _DIGEST_WITHIN:
        return None
    if text.startswith(DIGEST_OPENING):
        digest = text[len(DIGEST_OPENING) :]
    elif text.startswith(PREVIOUS_OPENING) and (since := text.find(SINCE)) >= 0:
        digest = text[since + len(SINCE) :]
    else:
        return None
    entry = ("\n" + digest).find("\n" + _USER)  # at the digest's start or a line's
    if entry < 0:  # no user entry: no ask to read
        return None
    start = entry + len(_USER)
    end = _ENTRY.search(digest, start)
    ask = digest[start : end.start() if end else len(digest)]
    return ask if ask.strip() else None
