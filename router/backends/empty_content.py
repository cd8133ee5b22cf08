"""A chat body's assistant turns of tool calls only, written with an empty content array:
sent with null content, for a backend not taken for vLLM.

rigging 3.3.5 writes every message's content as parts (`rigging/message.py`,
`Message.to_openai`), so an assistant turn that only called tools comes back to the model as
`{"role": "assistant", "tool_calls": [...], "content": []}` (recorded in a live review, its
native tool loop); Kimi CLI 1.51.0 sends the same (`tests/fixtures/kimi-cli-1.51.0`).
OpenAI's chat API refuses it with a 400 ("Invalid 'messages[2].content': empty array.
Expected an array with minimum length 1, but got an empty array instead.",
langchain-ai/langchainjs#11416, n8n-io/n8n#38526), and no fallback follows a 400: every
turn of such a tool loop after its first call that the router sent to an OpenAI cloud
failed. Null is what an assistant turn of calls alone carries in OpenAI's own replies, and
what the client meant: no text (langchain-ai/langchainjs#11419 sends it so).

Only an assistant message with tool calls: null content there is OpenAI's "no text", and
anywhere else it is a missing field, so an empty array elsewhere (a user's, an assistant's
without calls) goes as sent, for the backend to refuse in its own words. Not for vLLM
(`router.vllm_fields.is_vllm`), which takes the body as it came: it reads null content as
an empty array of parts (0.32, `_parse_chat_message_content` in `renderers/chat_utils.py`),
so the two are one there. Pure: the client's body is not changed (the ledger and the
classifier read it, and another backend of the plan may take it as sent).
"""

from __future__ import annotations

from typing import Any


def without_empty_content(body: dict[str, Any]) -> dict[str, Any]:
    """The chat `body` with null content in each assistant message that has tool calls and
    an empty content array; `body` itself when there is none."""
    messages = body.get("messages")
    # nearly every body has none: no copy of its messages on every attempt at a backend not
    # taken for vLLM (as `router.backends.tool_result_ids.with_call_ids` looks first too)
    if not isinstance(messages, list) or not any(map(_calls_alone_empty, messages)):
        return body
    nulled = [{**m, "content": None} if _calls_alone_empty(m) else m for m in messages]
    return {**body, "messages": nulled}


def _calls_alone_empty(message: Any) -> bool:
    """Whether `message` is an assistant's tool calls alone under `content: []`."""
    if not (isinstance(message, dict) and message.get("role") == "assistant"):
        return False
    calls = message.get("tool_calls")
    return message.get("content") == [] and isinstance(calls, list) and bool(calls)
