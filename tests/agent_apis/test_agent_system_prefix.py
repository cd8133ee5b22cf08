"""The head of the prompt a chat backend gets for an agent's turn: the same on every turn, and
one system message, first. Real sockets: the official SDKs through the router to the `cloud`
simulator (chat only: Messages and Responses are translated), which keeps what it got.

Found in review: Claude Code's attribution block, whose `cch` changes on every request,
opened the system message, so a backend's prefix cache missed on every turn; Codex's
`instructions` and developer items each became a system message, which Qwen3.5's and 3.6's
chat templates refuse anywhere but first (vllm#41114).
"""

from __future__ import annotations

from typing import Any

import orjson

from classifier import classify
from router.translate.view import chat_view
from tests.agent_apis.agent_stack import anthropic_client, openai_client
from tests.agent_shapes import (
    AGENTS_MD_NEW,
    CLAUDE_CODE_SYSTEM,
    CODEX_INSTRUCTIONS,
    ENVIRONMENT,
    claude_code_body,
    codex_body,
    user_item,
)
from tests.harness import Running, RunningRouter

ASK = [{"role": "user", "content": "Run the tests and fix the failing one."}]
PERMISSIONS = "<permissions instructions>sandbox: workspace-write</permissions instructions>"
CHANGED = "<permissions instructions>sandbox: read-only</permissions instructions>"


def billed(cch: str) -> list[dict[str, Any]]:
    """Claude Code's system blocks as 2.1.36 and later send them: its attribution first."""
    header = f"x-anthropic-billing-header: cc_version=2.1.120.cf9; cc_entrypoint=cli; cch={cch};"
    return [{"type": "text", "text": header}, *CLAUDE_CODE_SYSTEM]


def developer_item(text: str) -> dict[str, Any]:
    return {**user_item(text), "role": "developer"}


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


def test_codex_instructions_reach_a_chat_backend_as_one_system_message_first(
    proxy: RunningRouter, servers: dict[str, Running]
) -> None:
    """`instructions` and the developer item before the first user item are one system
    message; a developer item later in the conversation is a user message where it stood:
    no system message after the first, as Qwen's chat templates require."""
    items = [
        developer_item(PERMISSIONS),
        user_item(AGENTS_MD_NEW),
        user_item(ENVIRONMENT),
        user_item("List the files."),
        {"type": "function_call", "call_id": "c1", "name": "shell", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "a.py"},
        {"role": "assistant", "content": "a.py"},
        developer_item(CHANGED),
        user_item("Now read a.py."),
    ]
    body = codex_body(items)
    openai_client(proxy).responses.create(
        model="cloud",
        instructions=body["instructions"],
        input=items,  # type: ignore[arg-type]
        tools=body["tools"],
        store=False,
    )
    sent = servers["cloud"].stats()["last_request"]["messages"]
    roles = ["system", "user", "user", "user", "assistant", "tool", "assistant", "user", "user"]
    assert [m["role"] for m in sent] == roles
    assert sent[0]["content"] == f"{CODEX_INSTRUCTIONS}\n\n{PERMISSIONS}"
    assert sent[-2] == {"role": "user", "content": CHANGED}


def test_the_classifier_reads_no_later_developer_item_as_the_ask() -> None:
    """A developer item after the conversation began reaches the backend as a user message;
    the classifier's view leaves it out, as it passed over it as a system message."""
    opening = [developer_item(PERMISSIONS), user_item(AGENTS_MD_NEW), user_item(ENVIRONMENT)]
    asked = [*opening, user_item("Write a haiku about autumn rain")]
    alone = classify(chat_view("responses", codex_body(asked)))
    changed = classify(chat_view("responses", codex_body([*asked, developer_item(CHANGED)])))
    assert (changed.label, changed.confidence) == (alone.label, alone.confidence)
    view = chat_view("responses", codex_body([*asked, developer_item(CHANGED)]))
    assert [m["role"] for m in view["messages"]] == ["system", "user", "user", "user"]
