"""Which parts of a Responses message's content are text, and the text each holds: the one
reading of the translation to chat (`responses_request`, `instructions`), of the prompt the
ledger keeps (`router.conversation.prompt_text`) and of the comparison of an input sent
whole with the conversation the router keeps (`router.stored_said.said`).

A text part (`input_text`, `output_text`, `text`) holds its `text`; a refusal part holds its
`refusal` (OpenAI's `ResponseOutputRefusal`, which the router makes of a chat backend's
`refusal`, `responses_items.text_item`). Their other fields (`annotations`, `logprobs`) say
how an answer was written, not what: an SDK writes them back its own way (the OpenAI Agents
SDK `logprobs: null` for `[]`, Codex none). A part of any other type, or whose text is no
string, holds no text: the translation passes it over (or as an attachment) and the
comparison takes it as it came.

There were two readings (found in review): the translation took a refusal part for text but
read its `text`, which a refusal has none of, so the router's own refusal sent back (whole,
or told again for a `previous_response_id`) reached the model as an empty assistant turn;
the comparison took it for no text at all.
"""

from __future__ import annotations

from typing import Any

# The part types whose text is their `text`; a refusal's is its `refusal`.
TEXT_PARTS = ("input_text", "output_text", "text")
REFUSAL = "refusal"


def part_text(part: Any) -> str | None:
    """The text a content part holds; None for a part that holds none (another type, a
    `type` that is no string, a text that is no string). A tuple, not a set: a list `type`
    is compared, not hashed."""
    if not isinstance(part, dict):
        return None
    kind = part.get("type")
    if kind == REFUSAL:
        text = part.get(REFUSAL)
    elif kind in TEXT_PARTS:
        text = part.get("text")
    else:
        return None
    return text if isinstance(text, str) else None


def content_text(content: Any, joined_by: str = "\n") -> str:
    """A message's `content` as text: a string as it is, a list of parts as the texts its
    parts hold (`part_text`), one a line: a user's are separate texts (a reminder, then the
    ask), which would otherwise run together."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    texts = (part_text(part) for part in content)
    return joined_by.join(text for text in texts if text is not None)
