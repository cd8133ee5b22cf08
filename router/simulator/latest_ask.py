"""The user's latest ask as the classifier reads it: what the simulated model answers.

The simulator answered the last user message's whole text (`wire.last_user_text`), and an
agent's own text is in it: Claude Code's `<system-reminder>` opens its user turn, and its
in-conversation system turn (the list of its agents and skills) reaches a chat backend as a
user message after the ask (`router.translate.anthropic_request`). So the simulator called
`NotebookEdit` with `new_source` "Available agent types for the Agent" (direct), and `Agent`
with the prompt "<system-reminder> As you answer the user's" (through claude-code-router),
each subagent again (a live review of demo mode). The classifier already tells which user
message is the latest ask and what of it the user wrote (`classifier.asks.user_messages`,
`classifier.ask_text.read_ask`: past harness blocks, agents' own turns, hooks, frameworks'
frames), and the router reads a conversation's asks by it too (`router.conversation`); the
simulator reads it the same way rather than a second way.

What the ask picks and fills (the tool called, its arguments, the keyword rules) reads this
text; what shapes the answer's form (a DSPy frame's fields, a schema asked for in the
message, `prompted`) still reads the message as sent (`Prompt.user`). For a plain message
both are its text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from classifier import frameworks
from classifier.ask_text import read_ask
from classifier.asks import user_messages
from classifier.claude_code_turns import own_turn
from classifier.clip import clip
from classifier.message import read_system, scanned_texts


def latest_ask(
    messages: Sequence[Any], body: Mapping[str, Any], user: str, system: object = None
) -> str | None:
    """The latest ask of `messages` as the classifier reads it (a head and a tail of a long
    one, as the keyword rules read `Prompt.user`: `prompt.ends`); None where none asks, or
    where that reading is the last user message's text as sent (`user`), clipped or whole:
    that text is then the ask, whole, as before (a custom tool's input quotes all of a long
    one). `system`: a system prompt sent beside the messages (Messages' `system`, Responses'
    `instructions`), read as the chat system message the router's view makes of it; Claude
    Code's own system turns, user messages on a chat backend, are passed over as the
    router's view leaves them out (`classifier.claude_code_turns`); `body` tells
    the frameworks that frame their asks by their request (`classifier.frameworks.framed`)."""
    chat = [message for message in messages if not _claude_codes_turn(message)]
    if system:
        chat.insert(0, {"role": "system", "content": system})
    read = read_system(chat)
    asks = user_messages(chat, read, frameworks.framed(body, read))
    if asks.latest is None:
        return None
    text = read_ask(asks.latest, chat, read, asks.aiders)[0]
    return None if text == clip(user) else text


def _claude_codes_turn(message: object) -> bool:
    """Whether `message` is a user message that holds one of Claude Code's own system turns
    (`classifier.claude_code_turns`): the translation's of one, as a chat backend gets it."""
    if not isinstance(message, dict) or message.get("role") != "user":
        return False
    content = message.get("content")
    texts = [content] if isinstance(content, str) else [t for t in scanned_texts(content) if t]
    return own_turn(texts)
