"""A user message that only greets or asks for help, with no task yet, asks nothing
(`classifier.greeting`, `classifier.asks`): "Hi! Can you help me?" was read tool_calling
0.91 and served on that route (users' probes). It is read as no ask: intent `unknown`,
source `default`, and `explain` says why; a chat's first ask, which keys its conversation,
is its first task, so two chats opening with "hi" are two conversations."""

from __future__ import annotations

from typing import Any

import pytest

from classifier import classify, explain, greeting, request
from classifier.asks import first_ask
from classifier.decision import GREETED, UNKNOWN
from classifier.greeting import GREETING_CHARS, greets
from router.conversation import conversation_key

GREETINGS = [
    "Hi! Can you help me?",
    "hello",
    "hey, you there?",
    "good morning!",
    "Hi there 👋",
    "Hey Claude, quick question",
    "I have a question",
    "Hi, I need some help",
    "hey there! I’ve got a question",
    "hola, ¿me ayudas?",
    "Hallo, kannst du mir helfen?",
    "Bonjour ! Tu peux m'aider ?",
    "Olá, pode me ajudar?",
    "Ciao! Puoi aiutarmi?",
    "你好，能帮我吗？",
    "你好能帮我吗",
    "こんにちは！",
]
TASKS = [
    "Hi! Can you help me understand recursion?",
    "hi, what is 2+2?",
    "Hello world in Python",
    "help me write a poem",
    "I have a question about Python",
    "Hola, ¿me ayudas con mi tarea?",
    "你好，请帮我写一首诗",
    "Can you help me debug this?",
    "hello.py",
    "say hello",
    "thanks!",
]
MATH = "Prove that the square root of 2 is irrational."


def chat(*turns: str, system: str = "You are a helpful assistant.") -> dict[str, Any]:
    """A chat body of the user's `turns`, an assistant's reply between each two."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": system}]
    for n, turn in enumerate(turns):
        if n:
            messages.append({"role": "assistant", "content": "Sure, what is it?"})
        messages.append({"role": "user", "content": turn})
    return {"model": "auto", "messages": messages}


@pytest.mark.parametrize("text", GREETINGS)
def test_a_greeting_alone_is_one_in_every_language(text: str) -> None:
    assert greets(text)


@pytest.mark.parametrize("text", TASKS)
def test_a_greeting_with_a_topic_word_is_a_task(text: str) -> None:
    assert not greets(text)


def test_names_alone_or_a_long_text_are_no_greeting() -> None:
    """ "there" or "please" alone greets no one; a text past the bound is never a greeting,
    and a long run of greeting words and an odd end is rejected at once (a split that could
    go many ways took 0.3 s before the separators were made exclusive)."""
    assert not greets("there") and not greets("please") and not greets("")
    assert not greets("hi " * (GREETING_CHARS // 3 + 1))
    assert not greets("你好" * 59 + "x") and not greets("help me " * 14 + "x")


@pytest.mark.parametrize("text", ["Hi! Can you help me?", "hola, ¿me ayudas?", "你好"])
def test_a_greeting_alone_is_read_as_no_ask_and_explain_says_why(text: str) -> None:
    assert classify(chat(text)) == UNKNOWN
    why = explain(chat(text))
    assert (why["intent"], why["source"], why["rule"]) == ("unknown", "default", GREETED)
    assert why["top_intents"] == []


def test_a_greeting_in_parts_is_one_and_beside_an_image_is_not() -> None:
    parts = {"role": "user", "content": [{"type": "text", "text": "hello!"}]}
    assert classify({"messages": [parts]}) == UNKNOWN
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
    beside = {"role": "user", "content": [{"type": "text", "text": "hello!"}, image]}
    assert explain({"messages": [beside]})["rule"] != GREETED


def test_the_task_after_a_greeting_is_read_and_is_the_first_ask() -> None:
    body = chat("Hi! Can you help me?", MATH)
    assert classify(body).label == "math"
    assert first_ask(body["messages"]) is body["messages"][3]
    assert explain(body)["rule"] is None
    later = chat("Hi! Can you help me?", MATH, "hi")  # a greeting after it: still the task
    assert classify(later).label == "math"


def test_two_chats_opening_with_the_same_greeting_are_two_conversations() -> None:
    """Keyed by the first ask, both chats were one conversation (one pin) from their second
    turn on; keyed by the first task, each is its own, and each turn of one keeps its key."""
    one = chat("hi", MATH)
    two = chat("hi", "Write a haiku about autumn leaves.")
    assert conversation_key(one, {}, "alice") != conversation_key(two, {}, "alice")
    on = chat("hi", MATH, "And the cube root of 3?")
    assert conversation_key(on, {}, "alice") == conversation_key(one, {}, "alice")


def test_a_greeting_alone_keys_by_its_first_user_message() -> None:
    """With no ask, a request keys by its first user message, as a request asking nothing
    did: the greeting turn is a conversation of its own, which pins nothing
    (`router.sticky_pins.pins`)."""
    assert conversation_key(chat("hi"), {}, "alice") == conversation_key(chat("hi"), {}, "alice")
    assert conversation_key(chat("hi"), {}, "alice") != conversation_key(chat("hello"), {}, "alice")


@pytest.mark.parametrize(
    ("body", "read"),
    [
        ({"messages": [{"role": "user", "content": "hello there!"}]}, 1),
        (
            {"messages": [{"role": "user", "content": [{"type": "text", "text": "hello there!"}]}]},
            1,
        ),
        (chat("hello there!", "hi"), 2),
        (chat("Hi! Can you help me?", MATH), 2),
    ],
)
def test_each_user_message_is_told_a_greeting_once_a_view(
    body: dict[str, Any], read: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whether a user message asks, holds an agent's text or greets, and in both scans (for
    the latest ask and for the first), it is told a greeting once: a lone "hello there!"
    was told five times a view (found in review)."""
    told: list[str] = []

    def counted(text: str) -> bool:
        told.append(text)
        return greets(text)

    monkeypatch.setattr(greeting, "greets", counted)
    request.view(body)
    assert len(told) == read
