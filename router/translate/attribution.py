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

from typing import Any

from router.record import Api

BILLING_HEADER = "x-anthropic-billing-header"
"""How Claude Code's attribution block starts: `x-anthropic-billing-header: cc_version=…;
cc_entrypoint=cli; cch=<nonce>;`. A Messages system text block that starts so is dropped
whole, as vLLM's own Messages endpoint drops it (`startswith`, in `_convert_system_message`);
it tells the model nothing, and the classifier read its tokens as the head of the system
prompt."""
_LINE = f"{BILLING_HEADER}: cc_version="  # on chat: the block's line, as Claude Code writes it


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
    system message: its first text part when that is the block, or the first line of its
    text when that line is the block's (a gateway that joins the blocks into one text); the
    message itself when nothing else is left in it. Read narrowly, so that no one's words
    are taken for it: a line starting `x-anthropic-billing-header: cc_version=`, first.
    `body` itself when it holds none, and for any other API (a Messages body's chat view
    drops the block already, and a native Messages backend gets it as sent)."""
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
        return _after_line(content) if content.startswith(_LINE) else content
    if not (isinstance(content, list) and content and is_attribution(content[0])):
        return content
    head = content[0]
    if not head["text"].startswith(_LINE):
        return content
    rest = _after_line(head["text"])
    return [{**head, "text": rest}, *content[1:]] if rest else content[1:]


def _after_line(text: str) -> str:
    """`text` after its first line (the attribution's)."""
    return text.partition("\n")[2]
