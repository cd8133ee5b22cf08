"""An Anthropic prefill on a chat backend: the request's last turn is the assistant's, and
Anthropic continues its text (a prefill of `{` forces JSON; the reply holds what follows the
`{`, not the `{` again).

Chat has no such thing by default: a chat template closes the last assistant message and
opens a new turn, so the prefill was sent and ignored, and the client asked for `{…` got a
whole new reply (found in review). vLLM continues the last message when asked
(`CONTINUE`), and answers the new text alone (without `echo`): nothing to strip. OpenAI's
chat API has no prefill and refuses an argument it does not know, so no other backend gets
the fields (`router.vllm_fields.is_vllm`); there the prefill ends the chat
messages as sent, and the model writes a new turn after it.

A Responses input that ends with an assistant message is not a prefill: neither OpenAI's
Responses API nor vLLM's own continues it (both write a new output message after it), so
its translation asks for nothing either.
"""

from __future__ import annotations

from typing import Any

CONTINUE: dict[str, Any] = {"continue_final_message": True, "add_generation_prompt": False}
"""What asks vLLM to continue the last message. Both are sent: `add_generation_prompt`
defaults to true, and vLLM refuses the two true at once ("Cannot set both
`continue_final_message` and `add_generation_prompt` to True.", its chat request model's
`check_generation_prompt`)."""


def prefilled(messages: list[dict[str, Any]]) -> bool:
    """Whether translated chat messages end with a prefill: an assistant message of text
    (not only spaces) and no tool calls. A turn of calls is the agent's history, not a start
    of text to go on from, and no chat template leaves it open."""
    last = messages[-1] if messages else {}
    content = last.get("content")
    return (
        last.get("role") == "assistant"
        and not last.get("tool_calls")
        and isinstance(content, str)
        and bool(content.strip())
    )
