"""SillyTavern's roleplay chats (`classifier.sillytavern`): its default main prompt reads the
chat as prose whatever its turns say, and keys it by the character and persona it names.

Read by their words, one chat's turns were reasoning, tool_calling, reasoning, tool_calling,
prose, tool_calling, no tool offered; keyed by their system messages, among which World
Info entries come and go, and by a first user message that drops out of a long chat's
context, six turns were five conversations. The bodies are SillyTavern 1.19.0's
(`tests/fixtures/sillytavern-1.19.0.md`).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from classifier import classify
from classifier.fixed import ROLEPLAY, ROLEPLAY_READING
from classifier.sillytavern import MAIN_PROMPT
from router.conversation import conversation_key
from tests import recorded
from tests.classifier.fixed_readings import assert_judged_by

captured = recorded.loader(recorded.FIXTURES / "sillytavern-1.19.0")
TURNS = [f"chat-turn{n}.json" for n in range(1, 7)]
CHAT = [*TURNS, "trimmed-from-turn2.json", "trimmed-from-turn4.json", "summarize.json"]
POST_PROCESSED = ["strict-chat-a.json", "strict-chat-b.json", "single-user-message.json"]
MAIN = "Write Seraphina's next reply in a fictional chat between Seraphina and User."


def renamed(body: dict[str, Any], char: str = "Seraphina", user: str = "User") -> dict[str, Any]:
    """`body` with its character renamed `char` in every message (its main prompt, card and
    chat), and its persona `user` in its main prompt: another character's chat, or another
    persona's."""
    other = copy.deepcopy(body)
    for message in other["messages"]:
        message["content"] = message["content"].replace("Seraphina", char)
    main = f"Write {char}'s next reply in a fictional chat between {char} and {user}."
    other["messages"][0]["content"] = other["messages"][0]["content"].replace(
        f"Write {char}'s next reply in a fictional chat between {char} and User.", main
    )
    return other


def test_the_fixtures_are_sillytaverns() -> None:
    for name in CHAT + POST_PROCESSED:
        opening = captured(name)["messages"][0]["content"]
        assert opening.startswith(MAIN) and MAIN_PROMPT.match(opening)


@pytest.mark.parametrize("name", CHAT + POST_PROCESSED)
def test_a_sillytavern_chat_is_prose_by_its_main_prompt(name: str) -> None:
    """Every turn, trimmed or post-processed, and the Summarize extension's request."""
    assert_judged_by(captured(name), ROLEPLAY_READING, ROLEPLAY, "prose")


def test_its_turns_read_by_their_words_are_other_work() -> None:
    """What the rule decides: under another app's system prompt, the same turns are read by
    their words, and not all of them as prose."""
    other = "You are a helpful assistant."
    bodies = [recorded.with_system(captured(name), other) for name in TURNS]
    assert {classify(body).label for body in bodies} != {"prose"}


@pytest.mark.parametrize(
    "main",
    [
        MAIN + " Be vivid.",  # a main prompt the user wrote
        "Please: " + MAIN,
        "Write Seraphina's next reply in a fictional chat between Aria and User.",
        "Write Seraphina's next reply in a fictional chat between Aria, Mara and User.",
    ],
)
def test_only_the_default_main_prompt_is_sillytaverns(main: str) -> None:
    body = recorded.with_system(captured("chat-turn1.json"), main)
    assert body["messages"][0]["content"] == main
    assert classify(body).source != "rule"


def test_a_group_chats_main_prompt_names_its_members() -> None:
    """The prompt manager's default names the group (`{{charIfNotGroup}}`)."""
    main = "Write Aria's next reply in a fictional chat between Seraphina, Aria and User."
    body = recorded.with_system(captured("chat-turn1.json"), main)
    assert classify(body).label == "prose" and classify(body).source == "rule"


def test_a_chats_turns_are_one_conversation() -> None:
    """World Info changing, the oldest messages dropped, post-processed or not: one key for
    the character and persona."""
    assert len({conversation_key(captured(name), {}, "c") for name in CHAT + POST_PROCESSED}) == 1


def test_two_characters_or_two_personas_are_two_conversations() -> None:
    body = captured("chat-turn3.json")
    keys = {
        conversation_key(other, {}, "c")
        for other in (body, renamed(body, char="Aria"), renamed(body, user="Mara"))
    }
    assert len(keys) == 3


def test_a_group_chat_is_one_conversation_whoever_speaks() -> None:
    """Its `[Start a new group chat. ...]` marker names the members; the main prompt names
    whoever speaks next."""
    body = captured("chat-turn3.json")
    body["messages"][3]["content"] = "[Start a new group chat. Group members: Seraphina, Aria]"
    speakers = [renamed(body), renamed(body, char="Aria")]
    speakers[1]["messages"][3]["content"] = body["messages"][3]["content"]
    assert len({conversation_key(speaker, {}, "c") for speaker in speakers}) == 1
    alone = renamed(captured("chat-turn3.json"), char="Aria")
    assert conversation_key(alone, {}, "c") != conversation_key(speakers[1], {}, "c")


def test_a_session_the_request_names_still_keys_it() -> None:
    """`prompt_cache_key` set in Include Body Parameters keys as it did."""
    first, later = captured("chat-turn1.json"), captured("chat-turn4.json")
    first["prompt_cache_key"], later["prompt_cache_key"] = "st-a", "st-b"
    assert conversation_key(first, {}, "c") != conversation_key(later, {}, "c")
