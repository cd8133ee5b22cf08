"""What a translated reply must not make up: tool ids, usage, how the answer ended.

The whole and the streamed translation of the same chat reply must agree, and what the
upstream did not say (its usage, a finished answer) must not be reported as if it had.
"""

from __future__ import annotations

import anthropic.types as at

from router.translate import anthropic_reply
from tests.agent_apis.test_agent_translation import chunk, run

CALLS = [
    {"index": 0, "type": "function", "function": {"name": "read", "arguments": '{"p": 1}'}},
    {"index": 1, "type": "function", "function": {"name": "list", "arguments": "{}"}},
]


def test_a_tool_call_without_an_id_gets_the_same_id_whole_and_streamed() -> None:
    """A chat upstream that sends no call id: the stream said `toolu_N`, the whole reply an
    empty id, which leaves Claude Code's tool_result nothing to pair with (found in review)."""
    whole = {
        "id": "c1",
        "model": "m",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {"role": "assistant", "content": None, "tool_calls": CALLS},
            }
        ],
    }
    message = at.Message.model_validate(anthropic_reply.from_chat(whole))
    whole_ids = [block.id for block in message.content if block.type == "tool_use"]
    streamed = run(
        anthropic_reply.MessagesStream(),
        [chunk({"tool_calls": [call]}) for call in CALLS] + [chunk({}, "tool_calls")],
    )
    stream_ids = [
        payload["content_block"]["id"]
        for name, payload in streamed
        if name == "content_block_start" and payload["content_block"]["type"] == "tool_use"
    ]
    assert whole_ids == stream_ids == ["toolu_0", "toolu_1"]
