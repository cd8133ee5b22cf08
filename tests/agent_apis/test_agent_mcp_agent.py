"""A request a reader of the router's conversation key fails on is served, keyed by its
messages as sent: mcp-agent's fan-in with a content literal Python cannot read, and any
reader's bug (`classifier.mcp_agent`, `router.conversation`).

The fan-in reader unescaped a literal its pattern took and `ast.literal_eval` refused (a
`\\Uffffffff`, a raw CR or NUL): the classifier's guard sent the request the default route,
but the conversation key raised, and the client got a 500 "internal router error" (found in
review). Real sockets, the official SDK, the simulators as backends.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from router import conversation
from router.conversation import conversation_key, prompt_text
from tests.classifier.test_classifier_mcp_agent import UNREADABLE, with_literal
from tests.harness import RunningRouter, collected, sdk

# The openai SDK sends JSON as UTF-8, which cannot hold a lone surrogate
SENT = {name: literal for name, literal in UNREADABLE.items() if name != "raw surrogate"}


def served(proxy: RunningRouter, body: dict[str, Any]) -> str:
    """The whole reply's content to `body`, sent by the official SDK through the router."""
    raw = sdk(proxy).chat.completions.with_raw_response.create(
        model="auto", messages=body["messages"]
    )
    assert raw.status_code == 200
    content = raw.parse().choices[0].message.content
    assert content
    return content


@pytest.mark.parametrize("literal", SENT.values(), ids=list(SENT))
def test_a_fan_in_python_cannot_read_is_served(default_proxy: RunningRouter, literal: str) -> None:
    """A 500 before."""
    served(default_proxy, with_literal(literal))


def broken(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("a reader's bug")


ASK = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Sort a list."}]
OTHER = [ASK[0], {"role": "user", "content": "Write a haiku."}]


def test_a_readers_bug_keys_the_request_by_its_messages_as_sent(
    default_proxy: RunningRouter, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Served, and keyed as sent: one opening one conversation, another another."""
    monkeypatch.setattr(conversation, "first_ask", broken)
    turns = (ASK, [*ASK, {"role": "assistant", "content": "ok"}, OTHER[1]], OTHER)
    first, second, other = (keyed(default_proxy, messages) for messages in turns)
    assert first == second != other


def keyed(proxy: RunningRouter, messages: list[Any]) -> str:
    """The conversation key of `messages` served through the router, as its record holds it
    (each waited for: no record of an earlier request is taken for this one's)."""
    records = collected(proxy)
    served(proxy, {"messages": messages})
    key: str = records.wait(10).conversation
    return key


def test_a_readers_bug_is_logged_and_the_prompt_kept_as_sent(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The key and the ledger's prompt text alike; logged by kind and place, not text."""
    body = {"messages": ASK}
    read = conversation_key(body, {}, "c")
    monkeypatch.setattr(conversation, "ask_content", broken)
    with caplog.at_level(logging.WARNING, logger="smf_router"):
        sent = conversation_key(body, {}, "c")
        assert prompt_text(body) == "Sort a list."
    assert sent != read and sent == conversation_key(body, {}, "c")
    logged = [r.getMessage() for r in caplog.records if "could not read" in r.getMessage()]
    assert logged and all("RuntimeError" in line and "Sort" not in line for line in logged)
