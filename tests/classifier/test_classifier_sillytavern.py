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
from classifier.message import read_system
from classifier.sillytavern import chat_names, main_prompt
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
        assert opening.startswith(MAIN) and main_prompt(opening) is not None


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
        MAIN[:-1] + ". Dr. Watson joins them.",  # a sentence after a name, not a title's ". "
        MAIN + "\r",
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


def names_of(body: dict[str, Any]) -> tuple[str, str] | None:
    messages = body["messages"]
    return chat_names(messages, read_system(messages))


@pytest.mark.parametrize(
    ("between", "user"),
    [
        ("Seraphina", "Dr. Watson"),  # ". " after a title
        ("Seraphina", "J. R. Smith"),  # ...after initials
        ("Seraphina", "Tom and Jerry"),  # " and " in the persona's name
        ("Seraphina", "Tom and Jerry and Spike"),
        ("Tom and Jerry, Seraphina", "User"),  # ...in a group member's
        ("Tom and Jerry, Seraphina", "Mr. Hyde and Dr. Jekyll"),
    ],
)
def test_a_persona_or_a_member_named_with_and_or_a_title_is_read(between: str, user: str) -> None:
    """The persona's name is what comes after the character's (or, in a group's prompt, after
    the members holding the character), whatever " and " or title's ". " it holds: "Dr.
    Watson" and "Tom and Jerry" were not read (found in review)."""
    main = f"Write Seraphina's next reply in a fictional chat between {between} and {user}."
    body = recorded.with_system(captured("chat-turn3.json"), main)
    assert_judged_by(body, ROLEPLAY_READING, ROLEPLAY, "prose")
    assert names_of(body) == (between, user)


def test_single_user_message_is_its_whole_prompt_as_one_user_message() -> None:
    """What the recording shows the mode sends: one user message, the main prompt opening
    it, the new chat's marker a paragraph of it before the chat, the turns after their
    speakers' names."""
    messages = captured("single-user-message.json")["messages"]
    assert [message["role"] for message in messages] == ["user"]
    text = messages[0]["content"]
    assert text.startswith(MAIN + "\n\n") and "\n\n[Start a new Chat]\n\nSeraphina: " in text
    assert "\n\nUser: *I try to sit up" in text


@pytest.mark.parametrize(
    "messages",
    [
        # a plain chat the user opened with the sentence, then a turn of other work
        [
            {"role": "user", "content": MAIN + "\nSeraphina is a healer."},
            {"role": "assistant", "content": "*smiles*"},
            {
                "role": "user",
                "content": "Stop the roleplay. Write a Python function that parses"
                " a CSV file and returns the rows sorted by date.",
            },
        ],
        # its first turn: one user message, but no new chat's marker
        [{"role": "user", "content": MAIN + "\n\nSeraphina is a healer.\n\nUser: hello"}],
        [{"role": "user", "content": MAIN}],
        # the marker in words of the user's own, not a paragraph of its own
        [{"role": "user", "content": MAIN + "\n\n[Start a new Chat] with Seraphina, please."}],
    ],
)
def test_a_users_first_message_is_not_taken_for_single_user_message(
    messages: list[dict[str, Any]],
) -> None:
    """Without a system prompt the sentence is SillyTavern's only as "Single user message"
    sends it: opening a plain chat, it made the chat's later turns prose, "Write a Python
    function" too, and keyed them by its names (found in review)."""
    body = {"model": "auto", "messages": messages}
    assert classify(body).source != "rule" and names_of(body) is None


def test_two_plain_chats_opening_with_the_sentence_are_two_conversations() -> None:
    opening = {"role": "user", "content": MAIN + "\nSeraphina is a healer."}
    keys = {
        conversation_key(
            {"messages": [opening, {"role": "assistant", "content": "Hi"}, ask]}, {}, "c"
        )
        for ask in (
            {"role": "user", "content": "Write a sorting function in Go."},
            {"role": "user", "content": "Now plan my week."},
        )
    }
    assert len(keys) == 1  # one chat's turns: keyed by its first message, as any chat's
    other = {"role": "user", "content": MAIN + "\nSeraphina is a pirate."}
    assert conversation_key({"messages": [other]}, {}, "c") not in keys


def test_a_group_chat_post_processed_is_one_conversation_whoever_speaks() -> None:
    """Its marker a paragraph of the one message ("Single user message") or of the one
    system message ("Strict"): keyed by the members it names, not the speaker the main
    prompt names."""
    group = "[Start a new group chat. Group members: Seraphina, Aria]"
    for name in ("single-user-message.json", "strict-chat-a.json"):
        speakers = [renamed(captured(name)), renamed(captured(name), char="Aria")]
        for speaker in speakers:
            opening = speaker["messages"][0]
            opening["content"] = opening["content"].replace("[Start a new Chat]", group)
        assert {names_of(speaker) for speaker in speakers} == {("Seraphina, Aria", "User")}
        assert classify(speakers[1]).source == "rule"
