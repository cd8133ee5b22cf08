"""A chat message's one text: what an agent's fixed messages are matched against.

Agents' fixed user and assistant messages (Aider's pairs and examples, opencode's and Qwen
Code's own: `classifier.aider`, `classifier.opencode`, `classifier.qwen`) are one text each,
sent as a string or as one text part (an SDK may send it so, Qwen Code does, and Aider
when it marks a message for Anthropic's prompt cache). Each module read it with a helper
of its own, two of them alike but for what they gave back for no text; one reads it now.
"""

from __future__ import annotations


def one_text(message: object) -> str | None:
    """A message's content when it is one text: a string, or the text of its one text
    part; None otherwise (no content, several parts, a part of no text)."""
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list) and len(content) == 1 and isinstance(content[0], dict):
        content = content[0].get("text") if content[0].get("type") == "text" else None
    return content if isinstance(content, str) else None
