"""What the classifier reads of an ask is what `explain` measures and the conversation key
hashes (`classifier.ask_text.ask_content`): an agent's fixed words around the ask (crush's
title text, Aider's ask or context mode's reminder) are left out by all three.

Each cleaned the ask apart, and they disagreed (found in review): `explain` said an ask the
classifier read whole was cut (`latest_cut`: the fixed words took it past the bound), the
key hashed crush's title text with the ask (two title calls whose asks differ only past
its first 1,996 characters were one conversation), and the classifier read an Aider mode's
reminder ending a first ask that is no longer the latest message, which the key left out.
Real sockets, the official SDK, the simulators as backends.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from classifier.crush import TITLE_OPENING, TITLE_SYSTEM_END, TITLE_TAIL
from router.conversation import conversation_key
from tests.agent_apis.agent_stack import explained, streamed_headers
from tests.agent_shapes.aider import aider_body, reminded
from tests.harness import Collect, RunningRouter

TITLE_SYSTEM = "you will generate a short title based on the first message" + TITLE_SYSTEM_END
# An ask read whole (2,000 bytes is the bound), its fixed words around it past the bound
LONG = ("Refactor the parser so that every token keeps its source span. " * 40)[:1990]
FIRST = "explain what sync_dir does"
LOG = ("2026-05-01 12:00:00 ERROR sync_dir: permission denied on /srv/data\n" * 40)[:2000]


def title_call(ask: str) -> dict[str, Any]:
    """crush's title call for a session whose first ask is `ask` (`classifier.crush`)."""
    text = f"{TITLE_OPENING}{ask}{TITLE_TAIL}"
    messages = [{"role": "system", "content": TITLE_SYSTEM}, {"role": "user", "content": text}]
    return {"model": "auto", "messages": messages, "max_tokens": 40, "stream": True}


@pytest.mark.parametrize(
    "body",
    [title_call(LONG), aider_body(LONG, None, "ask"), aider_body(LONG, None, "context")],
    ids=["crush-title", "aider-ask", "aider-context"],
)
def test_explain_says_an_ask_read_whole_is_not_cut(
    proxy: RunningRouter, body: dict[str, Any]
) -> None:
    """The classifier read the 1,990 characters of the ask; `explain` measured them with
    the fixed words around them and said they were cut."""
    read = explained(proxy, body)["classifier"]["read"]
    assert (read["latest_chars"], read["latest_cut"]) == (len(LONG), False)


def test_crush_title_calls_are_keyed_by_the_ask_inside(proxy: RunningRouter) -> None:
    """Two title calls whose asks differ only at their ends, each served: the key read
    crush's opening in place of the asks' last characters, and made them one conversation."""
    records = Collect()
    proxy.components.gateway.sinks.append(records)
    keys: list[str] = []
    try:
        for question in ("why does sync_dir fail here?", "how do I retry sync_dir?"):
            streamed_headers(proxy, records, title_call(f"{LOG}\n{question}"))
            keys.append(records.records[-1].conversation)
    finally:
        proxy.components.gateway.sinks.remove(records)
    assert keys[0] != keys[1]
    plain = copy.deepcopy(title_call(LOG))
    plain["messages"][1]["content"] = LOG  # the ask as the classifier reads it
    assert conversation_key(title_call(LOG), {}, "c") == conversation_key(plain, {}, "c")


def test_a_first_ask_is_read_as_the_key_reads_it(proxy: RunningRouter) -> None:
    """A first ask that kept Aider's ask-mode reminder in the history (no Aider version
    seen does; a client that stores the current message as sent would): the key left the
    reminder out, the classifier read it as the ask's words."""
    body = aider_body(FIRST, "and what calls it?", "ask")
    kept = copy.deepcopy(body)
    (asked,) = (m for m in kept["messages"] if m["content"] == FIRST)
    asked["content"] = reminded(FIRST, "ask")
    plain, read = (explained(proxy, b)["classifier"]["read"] for b in (body, kept))
    assert read["first_chars"] == plain["first_chars"] == len(FIRST)
    assert conversation_key(kept, {}, "c") == conversation_key(body, {}, "c")
