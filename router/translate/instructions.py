"""A Responses request's instructions as chat's one system message, first. Pure.

Responses gives instructions in `instructions` and in `developer` (or `system`) message items
anywhere in `input`. Codex sends both on every turn: `instructions`, a developer item (its
permissions) before the first user item, and more developer items later in the conversation
when a setting changes. Each became a system message where it stood, and the official chat
templates of Qwen3.5 and 3.6 refuse any system message but the first ("System message must
be at the beginning.", vllm#41114): such a turn failed on vLLM. So:

- `instructions` and the developer and system items before any other item are one system
  message, the first, their texts a blank line apart (`leading`);
- a developer or system item after another item is a user message where it stands
  (`LATER_ROLE`), or, when it came between tool calls and their outputs, right after the
  last of them: chat wants nothing between (`router.translate.after_results`).

Not hoisted into the first message (as litellm's proposed fix does, BerriAI/litellm#39282):
an instruction given mid-conversation would then be read as given before the turns it
followed, and the first message would change whenever one is added, so a backend's prefix
cache would miss on the whole conversation; in place, the prompt only grows at its end.
Neither vLLM's own Responses endpoint nor litellm's bridge helps here: both pass such items
on in place, as developer or system messages, to the same template. A user message in place
is also how the Messages translation reads a system turn within `messages`.
"""

from __future__ import annotations

from typing import Any

from router.translate.text_parts import content_text

INSTRUCTING = ("developer", "system")
LATER_ROLE = "user"


def instructs(item: Any) -> bool:
    """Whether an input item is a developer or system message."""
    return (
        isinstance(item, dict)
        and item.get("type", "message") == "message"
        and item.get("role") in INSTRUCTING
    )


def leading(body: dict[str, Any], items: list[Any]) -> tuple[list[dict[str, Any]], int]:
    """The leading system message (none when there is no text for it) and how many of
    `items`, from the first, it holds."""
    texts = [body["instructions"]] if isinstance(body.get("instructions"), str) else []
    held = 0
    while held < len(items) and instructs(items[held]):
        texts.append(content_text(items[held].get("content")))
        held += 1
    joined = "\n\n".join(text for text in texts if text)
    return ([{"role": "system", "content": joined}] if joined else []), held


def without_later(items: list[Any]) -> list[Any]:
    """`items` without the developer and system items after the leading ones: what the
    classifier's view leaves out (`router.translate.view`). It reads the first system message
    and user turns; as user turns, Codex's permissions would read as the user's ask, where
    as system messages the classifier passed over them."""
    start = 0
    while start < len(items) and instructs(items[start]):
        start += 1
    return items[:start] + [item for item in items[start:] if not instructs(item)]
