"""Claude Code's attribution block, which no backend of the router's is sent on chat.

From 2.1.36 on, Claude Code opens its system prompt with `x-anthropic-billing-header:
cc_version=…; cc_entrypoint=…;` (with a `cch=` nonce in some versions). It tells the model
nothing, and at the head of the prompt it keys a backend's prefix cache: its `cc_version`
ends differently for the main turns, the title request and each subagent, and a `cch`
differs on every request (vllm#36829, anthropics/claude-code#68900). The Messages
translation drops the block (`router.translate.anthropic_request`). A gateway that turns
Claude Code's Messages into chat itself (claude-code-router 2.0.0) sends it as the system
message's first text part, and the backend got it, the conversation key hashed it and the
classifier read it (found in a live review): `without_attribution` drops it there too.
"""

from __future__ import annotations

import re
from typing import Any

from router.record import Api

BILLING_HEADER = "x-anthropic-billing-header"
"""How Claude Code's attribution block starts: `x-anthropic-billing-header: cc_version=…;
cc_entrypoint=cli; cch=<nonce>;`. A Messages system text block that starts so is dropped
whole, as vLLM's own Messages endpoint drops it (`startswith`, in `_convert_system_message`);
it tells the model nothing, and the classifier read its tokens as the head of the system
prompt."""
# On chat: the block itself, as Claude Code writes it (`cc_version` first, then its other
# `key=value;` fields: `cc_entrypoint`, `cc_is_subagent`, `cch` ...), and the whitespace after
# it; not the rest of its line, which a gateway that joins the blocks with " " or "" fills
# with the system prompt. Each field is bounded and ends at its own `;` (no value holds a
# space or one), so no text makes the match backtrack.
_BLOCK = re.compile(
    re.escape(BILLING_HEADER)
    + r": cc_version=[^;\s]{1,64};(?: [a-z_]{1,32}=[^;\s]{0,128};){0,8}\s*"
)


def is_attribution(block: Any) -> bool:
    """Whether a Messages system block is Claude Code's attribution block (`BILLING_HEADER`)."""
    return (
        isinstance(block, dict)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
        and block["text"].startswith(BILLING_HEADER)
    )


def without_attribution(api: Api, body: dict[str, Any]) -> dict[str, Any]:
    """A chat `body` without Claude Code's attribution at the head of its first message, a
    system message: the block (`_BLOCK`) and the whitespace after it, where it opens the
    message's text or its first text part; that part, or the message, when nothing else is
    left in it. Only the block, never the rest of its line: a gateway that joins the blocks
    into one text may join them with " " or "", and an operator's own prompt may start with
    the header's words. Read narrowly, so that no one's words are taken for it:
    `x-anthropic-billing-header: cc_version=…;` first, then Claude Code's other `key=value;`
    fields. `body` itself when it holds none, and for any other API (a Messages body's chat
    view drops the block already, and a native Messages backend gets it as sent)."""
    messages = body.get("messages")
    if api != "chat" or not isinstance(messages, list) or not messages:
        return body
    first = messages[0]
    if not isinstance(first, dict) or first.get("role") != "system":
        return body
    content = _unattributed(first.get("content"))
    if content is first.get("content") or not (content or messages[1:]):
        return body  # none, or nothing but it: a body of no messages is no request
    kept = [{**first, "content": content}] if content else []
    return {**body, "messages": [*kept, *messages[1:]]}


def _unattributed(content: object) -> object:
    """A system message's content without the attribution at its head; `content` itself
    when it has none there."""
    if isinstance(content, str):
        return _after_block(content)
    if not (isinstance(content, list) and content and is_attribution(content[0])):
        return content
    head = content[0]
    rest = _after_block(head["text"])
    if rest is head["text"]:
        return content
    return [{**head, "text": rest}, *content[1:]] if rest else content[1:]


def _after_block(text: str) -> str:
    """`text` after the attribution block opening it (`_BLOCK`); `text` itself when none
    does."""
    block = _BLOCK.match(text)
    return text[block.end() :] if block else text
