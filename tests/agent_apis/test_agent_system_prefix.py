"""The head of the prompt a chat backend gets for an agent's turn: the same on every turn, and
one system message, first. Real sockets: the official SDKs through the router to the `cloud`
simulator (chat only: Messages and Responses are translated), which keeps what it got.

Found in review: Claude Code's attribution block, whose `cch` changes on every request,
opened the system message, so a backend's prefix cache missed on every turn.
"""

from __future__ import annotations

from typing import Any

import orjson

from classifier import classify
from router.translate.view import chat_view
from tests.agent_apis.agent_stack import anthropic_client
from tests.agent_shapes import (
    CLAUDE_CODE_SYSTEM,
    claude_code_body,
)
from tests.harness import Running, RunningRouter

ASK = [{"role": "user", "content": "Run the tests and fix the failing one."}]


def billed(cch: str) -> list[dict[str, Any]]:
    """Claude Code's system blocks as 2.1.36 and later send them: its attribution first."""
    header = f"x-anthropic-billing-header: cc_version=2.1.120.cf9; cc_entrypoint=cli; cch={cch};"
    return [{"type": "text", "text": header}, *CLAUDE_CODE_SYSTEM]


def test_claude_codes_attribution_block_leaves_the_chat_prompt_the_same_every_turn(
    proxy: RunningRouter, servers: dict[str, Running]
) -> None:
    """Two turns that differ only in the attribution's nonce reach a chat backend as the
    same bytes, the rest of the system prompt kept; the classifier reads them as it reads
    the turn without the block."""
    sent = []
    for cch in ("543cf", "0aaa9"):
        anthropic_client(proxy).messages.create(
            model="cloud",
            max_tokens=20,
            system=billed(cch),  # type: ignore[arg-type]
            messages=ASK,  # type: ignore[arg-type]
        )
        sent.append(orjson.dumps(servers["cloud"].stats()["last_request"]["messages"]))
    assert sent[0] == sent[1]
    first = orjson.loads(sent[0])[0]
    assert first == {"role": "system", "content": "\n".join(b["text"] for b in CLAUDE_CODE_SYSTEM)}
    plain = classify(chat_view("messages", claude_code_body(ASK)))
    for cch in ("543cf", "0aaa9"):
        read = classify(chat_view("messages", claude_code_body(ASK, system=billed(cch))))
        assert (read.label, read.confidence) == (plain.label, plain.confidence)


def test_a_messages_backend_gets_the_attribution_block_as_sent(
    proxy: RunningRouter, servers: dict[str, Running]
) -> None:
    """A backend that speaks Messages itself gets the body as the client sent it: Anthropic
    reads the block, vLLM's Messages endpoint drops it itself."""
    anthropic_client(proxy).messages.create(
        model="claude",
        max_tokens=20,
        system=billed("543cf"),  # type: ignore[arg-type]
        messages=ASK,  # type: ignore[arg-type]
    )
    assert servers["claude"].stats()["last_request"]["system"] == billed("543cf")
