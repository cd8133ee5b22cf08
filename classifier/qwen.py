"""Qwen Code's own user messages: texts it sends as a user's, which ask nothing.

Qwen Code (0.15.10, its bundle's `environmentContext.ts`, `chatCompressionService.ts` and
`nextSpeakerChecker.ts`) puts three kinds of text of its own in user turns:

- every session opens with its setup message, "This is the Qwen Code. We are setting up
  the context for our chat." with the date, the operating system, the working directory
  and its folder tree, answered by its own assistant turn `SETUP_REPLY`. Read as the first
  ask, it keyed every session a caller ran in one directory on one day as one conversation
  (six sessions, a resumed one and demo runs alike: one session's cloud turn pinned all
  later ones to the cloud), and read with the ask it made "write a haiku about autumn
  leaves" coding (found in review). Gemini CLI, which Qwen Code forks, opens with the same
  sentence in its own name (google-gemini/gemini-cli `environmentContext.ts`): its older
  versions with the same reply, its current ones in `<session_context>` tags and with no
  reply, a harness block (`classifier.harness`);
- after a compression, the history opens with the model's summary as a user message,
  answered by `SUMMARY_REPLY`: the summary is the model's words, not an ask;
- its next-speaker check (a request of its own after a reply, the history then
  `NEXT_SPEAKER_START`... through `NEXT_SPEAKER_END`) asks whether the model goes on.

Each is passed over as an agent's text (`classifier.asks`): the ask after it is read
and keys the conversation, and the request reads as an agent's session
(`classifier.rules.agent_session`), as opencode's own are (`classifier.opencode`). The
first two by their exact reply after them: a user who types the same words is answered
otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from classifier.message import one_text
from classifier.templates import framed

# How the setup message starts: Qwen Code's, and the older Gemini CLI's it came from
SETUP_OPENINGS = (
    "This is the Qwen Code. We are setting up the context for our chat.",
    "This is the Gemini CLI. We are setting up the context for our chat.",
)
# `STARTUP_CONTEXT_MODEL_ACK`: the assistant turn after the setup message
SETUP_REPLY = "Got it. Thanks for the context!"
# The assistant turn after a compression's summary
SUMMARY_REPLY = "Got it. Thanks for the additional context!"
# `CHECK_PROMPT`'s first and last sentences: its rules between them are fixed too
NEXT_SPEAKER_START = (
    "Analyze *only* the content and structure of your immediately preceding response (your"
    " last turn in the conversation history)."
)
NEXT_SPEAKER_END = "In this case, the **'user'** should speak next."


def passed_over(messages: Sequence[Any], index: int) -> bool:
    """Whether the user message `messages[index]` is one of Qwen Code's own: its setup
    message or a compression's summary, each with its fixed reply after it, or its
    next-speaker check."""
    text = one_text(messages[index])
    if text is None:
        return False
    if framed(text, NEXT_SPEAKER_START, NEXT_SPEAKER_END) is not None:
        return True
    reply = _reply(messages, index + 1)
    return reply == SUMMARY_REPLY or (reply == SETUP_REPLY and text.startswith(SETUP_OPENINGS))


def _reply(messages: Sequence[Any], index: int) -> str | None:
    """The text of `messages[index]` when it is an assistant's, else None."""
    if index >= len(messages):
        return None
    message = messages[index]
    if not (isinstance(message, dict) and message.get("role") == "assistant"):
        return None
    return one_text(message)
