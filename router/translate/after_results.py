"""What a translation to chat holds until the tool results end. Pure.

Chat wants an assistant's tool calls followed by their `tool` messages, nothing between
them (OpenAI refuses the request; litellm to Anthropic joins the messages after the calls
into one user turn in their order, and Anthropic wants the results first in it). What the
client gave among the results goes right after the last of them, in its order:

- a tool output's images and files (`IMAGES`, on the tool message), which a chat tool
  message cannot carry: one user turn of them all, as Anthropic's tool results carry them;
- a message the translation marks `HELD`: a Responses developer or system item after the
  conversation began (Codex's, when a setting changes while a tool runs, can come between a
  `function_call` and its output) and a Messages system turn, both user messages in chat
  (`router.translate.instructions`). In place, such a message between the calls and their
  results was a user message between them (found in review).

Anywhere else, a held message stays where it stood: it waits only for the tool messages
right after it.
"""

from __future__ import annotations

from typing import Any

IMAGES = "_images"
"""A tool message's attachments, for the user turn after the results."""
HELD = "_held"
"""Marks a message that waits for the tool messages after it."""


def held(message: dict[str, Any]) -> dict[str, Any]:
    """`message`, marked to wait for the tool messages after it."""
    message[HELD] = True
    return message


def after_tool_results(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`messages` with the attachments of tool messages and the held messages moved past
    the tool messages after them, and the marks removed."""
    out: list[dict[str, Any]] = []
    images: list[dict[str, Any]] = []
    waiting: list[dict[str, Any]] = []
    for message in messages:
        if message.pop(HELD, False):
            waiting.append(message)
            continue
        if message.get("role") != "tool":
            out += _given(images, waiting)
            images, waiting = [], []
        images.extend(message.pop(IMAGES, ()))
        out.append(message)
    return out + _given(images, waiting)


def _given(images: list[dict[str, Any]], waiting: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The user turn of the results' attachments, if any, then the held messages."""
    turn = [{"role": "user", "content": images}] if images else []
    return turn + waiting
