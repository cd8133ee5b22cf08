"""NeMo Guardrails' dialog-rail prompts are read and keyed by the session's asks after its
sample conversation (`classifier.nemo_guardrails`).

Read as written (NeMo Guardrails 0.24.1 against the router), their fixed head, longer than
the key's 2,048 characters in the text prompts and opening with the sample's "Hello there!"
in the chat prompts, made every user's calls one conversation, and a math ask's bot message
writing. The bodies are the ones NeMo sent (`tests/fixtures/nemoguardrails-0.24.1.md`).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from classifier import classify
from classifier.nemo_guardrails import CURRENT, dialog_asks
from router.conversation import conversation_key
from tests import recorded

FIXTURES = recorded.FIXTURES / "nemoguardrails-0.24.1"
CODE = "Write a Python function that reverses a linked list."
ALICE = "What is the integral of x^2 dx? (alice)"
BOB = "What is the integral of x^2 dx? (bob)"
CHAT_MATH = "What is the integral of x^2 * sin(x) dx?"

captured = recorded.loader(FIXTURES)


def key(name: str) -> str:
    return conversation_key(captured(name), {}, "nemo")


@pytest.mark.parametrize(
    ("name", "label"),
    [
        ("text-intent-coding.json", "coding"),
        ("text-bot-message-coding.json", "coding"),
        ("text-intent-alice.json", "math"),
        ("text-bot-message-alice.json", "math"),
        ("text-intent-bob.json", "math"),
        ("text-bot-message-bob.json", "math"),
        ("chat-intent-a.json", "coding"),
        ("chat-next-steps-a.json", "coding"),
        ("chat-bot-message-a.json", "coding"),
        ("chat-intent-b.json", "math"),
        ("chat-bot-message-b.json", "math"),
        ("chat-intent-b-turn2.json", "math"),
    ],
)
def test_a_call_is_read_by_the_users_ask(name: str, label: str) -> None:
    """The user intent, the next steps and the bot message go where the ask goes: a math
    user's bot message was writing 0.32-0.42, read by the sample and the model's intents."""
    assert classify(captured(name)).label == label


@pytest.mark.parametrize(
    ("name", "first", "latest"),
    [
        ("text-intent-alice.json", ALICE, ALICE),
        ("text-bot-message-bob.json", BOB, BOB),
        ("chat-bot-message-b.json", CHAT_MATH, CHAT_MATH),
        ("chat-intent-b-turn2.json", CHAT_MATH, "And of x*cos(x)?"),
    ],
)
def test_the_asks_are_the_sessions_after_the_sample(name: str, first: str, latest: str) -> None:
    """The session's first user message after the sample's two turns, and its latest: not
    the sample's "Hello there!" nor its "What can you do for me?"."""
    asks = dialog_asks(captured(name)["messages"])
    assert asks is not None
    assert (asks.first["content"], asks.latest["content"]) == (first, latest)


def test_a_text_next_steps_call_is_read_by_its_intents() -> None:
    """`generate_next_steps` sends no user message in its text prompt: its intent lines."""
    asks = dialog_asks(captured("text-next-steps-alice.json")["messages"])
    assert asks is not None and asks.first is asks.latest
    # the simulator's reply to the intent call, read as the user's intent
    assert asks.latest["content"].startswith("Cost agents wait and fallback")


def test_two_users_are_two_conversations() -> None:
    """One caller, two users: each user's intent and bot message one conversation, the two
    users' apart (they were one: the fixed head filled the key's characters)."""
    alice = {key("text-intent-alice.json"), key("text-bot-message-alice.json")}
    bob = {key("text-intent-bob.json"), key("text-bot-message-bob.json")}
    coding = {key("text-intent-coding.json"), key("text-bot-message-coding.json")}
    assert len(alice) == len(bob) == len(coding) == 1
    assert len(alice | bob | coding) == 3


def test_two_chat_users_are_two_conversations() -> None:
    """The chat prompts: a user's three calls and next turn one conversation, another user's
    another (every call of every user had one key, the sample's "Hello there!")."""
    a = {key(f"chat-{name}-a.json") for name in ("intent", "next-steps", "bot-message")}
    b = {key(name) for name in ("chat-intent-b.json", "chat-bot-message-b.json")}
    b.add(key("chat-intent-b-turn2.json"))
    assert len(a) == len(b) == 1 and a != b


def test_a_sample_not_repeated_whole_is_read_as_written() -> None:
    """The sample's turns after `CURRENT` must be its section's opening: a prompt whose turns
    there differ is no NeMo dialog prompt of the known shape."""
    body = copy.deepcopy(captured("text-intent-alice.json"))
    text: str = body["messages"][0]["content"]
    at = text.index(CURRENT) + len(CURRENT)
    body["messages"][0]["content"] = text[:at] + text[at:].replace("Hello there!", "Hi!", 1)
    assert dialog_asks(body["messages"]) is None


def test_a_chat_sample_not_repeated_whole_is_read_as_written() -> None:
    body: dict[str, Any] = copy.deepcopy(captured("chat-intent-b.json"))
    messages = body["messages"]
    current = max(i for i, m in enumerate(messages) if m["role"] == "system")
    messages[current + 1]["content"] = "Hi!"
    assert dialog_asks(messages) is None
