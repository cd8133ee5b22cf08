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

An ask a tool call already followed is answered (`Latest.answered`): the simulator answered
only a tool result last as after a tool ran, and Claude Code 2.1.337 runs a subagent in the
background and, when it finishes, sends a turn whose last user message is its
`<task-notification>` (no ask: the latest is still the user's), or hands a subagent its own
subagent's report with its agents' list after the result. The simulator called `Agent`
again at each: 2,417 requests and 889 subagents for one ask (a live review of demo mode).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from classifier import frameworks
from classifier.ask_text import read_ask
from classifier.asks import user_messages
from classifier.claude_code_turns import own_turn
from classifier.clip import clip
from classifier.message import read_system, scanned_texts
from router.simulator.turns import called


class Latest(NamedTuple):
    """What `latest_ask` reads: the ask's text (None where it is the last user message's as
    sent, or none asks) and whether a tool call follows it in the conversation."""

    text: str | None
    answered: bool


def latest_ask(
    messages: Sequence[Any], body: Mapping[str, Any], user: str, system: object = None
) -> Latest:
    """The latest ask of `messages` as the classifier reads it (a head and a tail of a long
    one, as the keyword rules read `Prompt.user`: `prompt.ends`); None where none asks, or
    where that reading is the last user message's text as sent (`user`), clipped or whole:
    that text is then the ask, whole, as before (a custom tool's input quotes all of a long
    one). And whether a tool call follows that ask (`_called_after`): the model has acted on
    it, and answers as after a tool's result whatever came after the call (a result, an
    agent's notification, its system turn). `system`: a system prompt sent beside the
    messages (Messages' `system`, Responses' `instructions`), read as the chat system
    message the router's view makes of it; Claude Code's own system turns, user messages on
    a chat backend, are passed over as the router's view leaves them out
    (`classifier.claude_code_turns`); `body` tells the frameworks that frame their asks by
    their request (`classifier.frameworks.framed`)."""
    chat = [message for message in messages if not _claude_codes_turn(message)]
    if system:
        chat.insert(0, {"role": "system", "content": system})
    read = read_system(chat)
    asks = user_messages(chat, read, frameworks.framed(body, read))
    if asks.latest is None:
        return Latest(None, False)
    text = read_ask(asks.latest, chat, read, asks.aiders)[0]
    return Latest(None if text == clip(user) else text, _called_after(chat, asks.latest))


def _called_after(chat: Sequence[Any], latest: object) -> bool:
    """Whether a message after `latest` (one of `chat`, told by identity) holds a tool call
    (`turns.called`). Read from the end, as the classifier found the latest ask (within a
    bounded scan from there); False where `latest` is none of the messages (an ask a
    framework's template holds, read out of it)."""
    seen = False
    for message in reversed(chat):
        if message is latest:
            return seen
        seen = seen or (isinstance(message, dict) and called(message) is not None)
    return False


def _claude_codes_turn(message: object) -> bool:
    """Whether `message` is a user message that holds one of Claude Code's own system turns
    (`classifier.claude_code_turns`): the translation's of one, as a chat backend gets it."""
    if not isinstance(message, dict) or message.get("role") != "user":
        return False
    content = message.get("content")
    texts = [content] if isinstance(content, str) else [t for t in scanned_texts(content) if t]
    return own_turn(texts)
