"""Flowise's ChatOpenAI node names its session with `x-smf-session-id`, the router's own
session header (`router.routing_headers.session_header`).

Flowise 3.1.4's node sends only `model`, `temperature`, `stream`, `stream_options` and
`messages` (`tools` for an agent): a prediction's `sessionId` never reaches the router, and
the node adds headers (its `baseOptions`), never a body field. Its chats that opened alike
(its conversation starters make that common) were one conversation: four sessions shared one
ledger conversation and one pin (found in a live review). Real sockets, the official SDK
(`extra_headers`, as a client that can set only headers), the ledger's DuckDB files.
"""

from __future__ import annotations

from typing import Any

import openai
import pytest

from tests.agent_apis.sticky_stack import conversations
from tests.harness import Collect, RunningRouter

KEYS = {"flowise": "sk-flowise-5c1e"}
STARTER = "Write a Python function that checks whether a string is a palindrome."


def prediction(session: str | None, **extra: Any) -> dict[str, Any]:
    """A Conversation Chain's first request as the node sends it, its session (when given) in
    the header its `baseOptions` sets."""
    body: dict[str, Any] = {
        "model": "auto",
        "temperature": 0.9,
        "messages": [
            {"role": "system", "content": "The following is a friendly conversation."},
            {"role": "user", "content": STARTER},
        ],
        **extra,
    }
    if session is not None:
        body["extra_headers"] = {"x-smf-session-id": session, **body.get("extra_headers", {})}
    return body


def test_two_sessions_that_open_alike_are_two_conversations(
    pinning: tuple[RunningRouter, Collect],
) -> None:
    """Without the header the two chats are one conversation (as they were); with it, two,
    and each session's later request is its own one."""
    unnamed, again = conversations(pinning, KEYS["flowise"], [prediction(None), prediction(None)])
    assert unnamed == again
    seen = conversations(
        pinning,
        KEYS["flowise"],
        [prediction("flowise-a1"), prediction("flowise-b2"), prediction("flowise-a1")],
    )
    assert seen[0] != seen[1] and seen[0] == seen[2] and unnamed not in seen


def test_the_header_comes_before_the_apps_session_ids(
    pinning: tuple[RunningRouter, Collect],
) -> None:
    """The caller's explicit word: one header value under two `prompt_cache_key`s and two
    Open WebUI chat ids is one conversation; two values under one of each are two."""
    seen = conversations(
        pinning,
        KEYS["flowise"],
        [
            prediction(
                "flowise-c3", prompt_cache_key="k1", extra_headers={"x-openwebui-chat-id": "o1"}
            ),
            prediction(
                "flowise-c3", prompt_cache_key="k2", extra_headers={"x-openwebui-chat-id": "o2"}
            ),
            prediction(
                "flowise-d4", prompt_cache_key="k1", extra_headers={"x-openwebui-chat-id": "o1"}
            ),
        ],
    )
    assert seen[0] == seen[1] != seen[2]


@pytest.mark.parametrize(
    "value",
    ["", "s" * 257, "flowise-e5\tx", "flowise-e5, flowise-f6"],
    ids=["empty", "oversized", "unprintable", "two"],
)
def test_a_bad_header_is_refused_without_its_value(
    pinning: tuple[RunningRouter, Collect], value: str
) -> None:
    """A 400 naming the header, never quoting it: read as absent, the session would silently
    share the opening's conversation."""
    client = openai.OpenAI(base_url=pinning[0].url, api_key=KEYS["flowise"], max_retries=0)
    with pytest.raises(openai.BadRequestError) as refused:
        client.chat.completions.create(**prediction(value))
    message = str(refused.value.body)
    assert "x-smf-session-id" in message
    assert "flowise-e5" not in message and "s" * 100 not in message


def test_a_session_of_256_characters_is_read(pinning: tuple[RunningRouter, Collect]) -> None:
    longest = "s" * 256
    seen = conversations(pinning, KEYS["flowise"], [prediction(longest), prediction(longest)])
    assert seen[0] == seen[1]
