"""The system prompt as a conversation key reads it (`router.conversation`).

A key hashes an agent's system prompt so that two agents' sessions that open alike stay
apart, but only what stays put within one conversation: its first `KEY_CHARS` characters,
the dates and times in them read as one mark (`clockless`), and without what an agent
writes anew into it turn by turn (`unchanging`). Either, read as sent, split one session
into a conversation per turn, and its pin to one backend was lost.
"""

from __future__ import annotations

from typing import Any

from classifier import beeai
from classifier.code_puppy import without_summary
from classifier.continue_cli import without_snapshot
from classifier.mastra import without_working_memory
from router.clock_text import CLOCK_SPAN, CLOCK_TEXT
from router.keyed_content import keyed

KEY_CHARS = 2048  # of the system prompt and of the first ask, in a conversation key
CLOCK = "<clock>"


def system_texts(messages: list[Any]) -> list[str]:
    """The system prompt of `messages` as a key hashes it: each system or developer message
    before the first user message, `clockless` and without what an agent writes anew into
    it (`unchanging`)."""
    texts: list[str] = []
    for message in messages:
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        if role in ("system", "developer"):
            texts.append(clockless(unchanging(keyed(message.get("content")))))
        elif role == "user":
            break
    return texts


def unchanging(system: str) -> str:
    """A system prompt without what an agent writes anew into it within one conversation:
    the Continue CLI's date and git status at each run's start
    (`classifier.continue_cli.without_snapshot`), and Mastra's working memory, which its model
    updates during the conversation (`classifier.mastra.without_working_memory`): each
    update made the next turn another conversation, and a chat pinned to the cloud went
    local on its second turn (found in a review of agent frameworks). Nor whether a tool may
    be called now in BeeAI's RequirementAgent's (`classifier.beeai.without_flags`), read only
    as far as `clockless` reads. Nor the summary a code-puppy compaction puts before its
    prompt (`classifier.code_puppy.without_summary`): each compaction keyed the session anew,
    its pin lost (found in a live review)."""
    system = without_working_memory(without_snapshot(without_summary(system)))
    return beeai.without_flags(system, KEY_CHARS + CLOCK_SPAN)


def clockless(system: str) -> str:
    """The first `KEY_CHARS` of a system prompt, its dates and times (`CLOCK_TEXT`) each read
    as `CLOCK`: LangChain's react-agent template writes `datetime.now().isoformat()` into it on
    every model call, so each turn of one tool loop was a conversation of its own, and no pin
    held (found running it). Dates too: a session that crosses midnight stays one; two
    sessions still differ by their first ask. The cut is at the prompt's own `KEY_CHARS`th
    character, a clock text across it masked whole (`CLOCK_SPAN` more are read for it):
    cut after masking, each clock before it moved the cut, and a clock it then split changed
    the key each hour (found in review). A prompt without one keys as it always did."""
    text = system[: KEY_CHARS + CLOCK_SPAN]
    parts: list[str] = []
    done = 0  # the prompt's characters read so far
    for clock in CLOCK_TEXT.finditer(text):
        if clock.start() >= KEY_CHARS:
            break
        parts += (text[done : clock.start()], CLOCK)
        done = clock.end()
    parts.append(text[done:KEY_CHARS])
    return "".join(parts)
