"""A SillyTavern chat is one conversation over its turns, and two characters are two
(`classifier.sillytavern.chat_names`).

Found in a live review of SillyTavern 1.19.0: its World Info entries, system messages before
the first user message, come and go with the keywords of the latest messages, and a long
chat's oldest messages drop out of its context, so six turns of one chat were five
conversations in the ledger and no pin held. The bodies are the ones it sent
(`tests/fixtures/sillytavern-1.19.0.md`); real sockets, the official SDK, a real DuckDB
ledger, the simulators as backends.
"""

from __future__ import annotations

from typing import Any

from tests import recorded
from tests.agent_apis.sticky_stack import conversations, sent_rows
from tests.classifier.test_classifier_sillytavern import renamed
from tests.harness import Collect, RunningRouter

captured = recorded.loader(recorded.FIXTURES / "sillytavern-1.19.0")
KEYS = {"tavern": "sk-sillytavern-chat-51e0", "two": "sk-sillytavern-two-9a4d"}


def replayed(name: str) -> dict[str, Any]:
    """The recorded body `name`, not streamed: a request sent whole has its record finished
    when its answer is read (`pinned_headers`)."""
    body = captured(name)
    body.pop("stream", None)
    return body


def test_a_chat_of_six_turns_is_one_conversation_of_prose(
    pinning: tuple[RunningRouter, Collect],
) -> None:
    """Its six turns, World Info changing, then its last turn with its oldest messages
    dropped: one conversation, each turn prose."""
    names = [f"chat-turn{n}.json" for n in range(1, 7)]
    names += ["trimmed-from-turn2.json", "trimmed-from-turn4.json"]
    rows = sent_rows(pinning, KEYS["tavern"], [replayed(name) for name in names])
    assert len({row[1] for row in rows}) == 1
    assert {row[2] for row in rows} == {"prose"}


def test_two_characters_are_two_conversations(pinning: tuple[RunningRouter, Collect]) -> None:
    seraphina = replayed("chat-turn3.json")
    bodies = [seraphina, renamed(seraphina, char="Aria"), replayed("chat-turn4.json")]
    first, other, later = conversations(pinning, KEYS["two"], bodies)
    assert first == later != other
