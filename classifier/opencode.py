"""opencode's own user messages: fixed texts it sends as a user's, which ask nothing.

opencode (1.18.33, its binary's `SessionPrompt` and `SessionCompaction`) puts three texts
of its own in user turns:

- its title call (a request of its own after a session's first ask, no tools, its title
  prompt as the system message) sends `TITLE_ASK` as a user message before the history:
  read as the first ask, it keyed every session's title call as one conversation (one
  session's cloud title pinned all later ones), and the request looked like no agent's,
  so "explain what sync_dir does" was reasoning and went to the cloud;
- after a compaction, the history starts with `COMPACTED`, a user message of its own with
  the summary as the assistant's reply: every compacted session's first ask was the same;
- the compaction request itself is one user message, its conversation between
  `COMPACTION_START` and its template's fixed last rule (`COMPACTION_END`).

Each is passed over as an agent's text (`classifier.asks`): the ask after it is read
and keys the conversation, and the request reads as an agent's session
(`classifier.rules.agent_session`). The first two only in opencode's own requests, as
the first message after the system prompt that is opencode's (`TITLE_SYSTEM`, `AGENT_SYSTEM`)
and with a message after it: matched in any request, a user who typed "What did we do so
far?" in a tool loop or to open a chat had the ask read from another message, and the
chat was taken for an agent's session (found in review). A user who types the same words
as the latest message is asking them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from classifier.harness import has_words
from classifier.message import System, one_text

# `SessionPrompt`'s title call: `{role: "user", content: "Generate a title for this
# conversation:\n"}`, then the history up to the first ask
TITLE_ASK = "Generate a title for this conversation:\n"
# `toModelMessages`: the text part a compaction part becomes
COMPACTED = "What did we do so far?"
# How each system prompt opens: the title call's, and the agent's in each of its variants
# ("You are opencode, an interactive CLI tool…", "You are OpenCode, the best coding agent…"),
# Kilo Code's CLI (7.7.7, a fork of opencode's: "You are Kilo, a highly skilled software
# engineer…") among them
TITLE_SYSTEM = "You are a title generator."
AGENT_SYSTEM = ("you are opencode", "you are kilo,")
# `SessionCompaction`'s prompt: the conversation in tags, then the orders and the template,
# whose rules end every version of it (a prior summary's too)
COMPACTION_START = "Here is the conversation so far:\n\n<conversation>\n"
COMPACTION_END = "- Do not mention the summary process or that context was compacted."


def passed_over(messages: Sequence[Any], index: int, system: System) -> bool:
    """Whether the user message `messages[index]` is one of opencode's own: its title
    call's or a compacted history's fixed text with a message after it, or a compaction
    request's prompt. `system`: the system prompt of `messages`."""
    text = one_text(messages[index])
    if text is None:  # parts read only where opencode's would stand: not each message's
        if index != 1 or not _system_opens(system, AGENT_SYSTEM):
            return False
        return _first_of_parts(messages[index]) == COMPACTED
    if text in (TITLE_ASK, COMPACTED):
        opens = TITLE_SYSTEM if text == TITLE_ASK else AGENT_SYSTEM
        return index == 1 and index + 1 < len(messages) and _system_opens(system, opens)
    end = text[-2 * len(COMPACTION_END) :].rstrip()  # a bounded read: the prompt may be long
    return text.startswith(COMPACTION_START) and end.endswith(COMPACTION_END)


def titles(messages: Sequence[Any], system: System) -> bool:
    """Whether `messages` are opencode's title call: its title prompt, `TITLE_ASK`, then the
    history (`classifier.side_request`). `system`: their system prompt."""
    return (
        len(messages) > 2
        and one_text(messages[1]) == TITLE_ASK
        and _system_opens(system, TITLE_SYSTEM)
    )


def _first_of_parts(message: object) -> str | None:
    """The first text part of a message whose other parts hold no words of the user's: Kilo
    Code sends "What did we do so far?" with its `<environment_details>` block as a second
    part (`classifier.harness`), which one text never matched."""
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list) or not content:
        return None
    texts = [p.get("text") for p in content if isinstance(p, dict) and p.get("type") == "text"]
    strings = [t for t in texts if isinstance(t, str)]
    if len(strings) != len(content):
        return None
    first, *rest = strings
    return None if any(has_words(t) for t in rest) else first


def _system_opens(system: System, opening: str | tuple[str, ...]) -> bool:
    """Whether the request's system prompt `system` opens with `opening` (one of them), in
    any case (a string, or its first text part: opencode may send it in two;
    `System.opening`)."""
    content = system.opening
    openings = (opening,) if isinstance(opening, str) else opening
    return content is not None and content[:64].lower().startswith(
        tuple(o.lower() for o in openings)
    )
