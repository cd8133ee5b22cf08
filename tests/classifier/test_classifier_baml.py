"""BAML's requests: a prompt sent as a lone system message is the ask
(`classifier.system_ask`), and the output-format block BAML writes into a typed function's
prompt is no part of it (`classifier.baml`).

Found running baml-py 0.226.3 against the router: "Write a short essay on the history of the
printing press." as a lone system message (BAML's default, a prompt without
`{{ _.role("user") }}`) took the default route, unknown, where as a user message it was
writing 0.99; and with "Answer in JSON using this schema: ..." after it, a poem ask was
instruction 0.77 (local) where alone it was prose 0.99. The bodies are BAML's
(`tests/fixtures/baml-py-0.226.3.md`).
"""

from __future__ import annotations

from typing import Any

import pytest

from classifier import classify
from classifier.asks import first_ask
from classifier.baml import format_block, without_format
from classifier.decision import explain
from classifier.request import view
from router.conversation import conversation_key
from tests import recorded as recordings

RECORDED = recordings.FIXTURES / "baml-py-0.226.3"
POEM = "Write a four-line poem about autumn rain on a tin roof."
ESSAY = "Write a short essay on the history of the printing press."
SCHEMA = "Answer in JSON using this schema:\n{\n  title: string,\n  lines: string[],\n}"


def recorded(name: str) -> dict[str, Any]:
    """A request BAML sent, as recorded."""
    return recordings.body(RECORDED / name)


def alone(role: str, content: str) -> dict[str, Any]:
    return {"model": "auto", "messages": [{"role": role, "content": content}]}


@pytest.mark.parametrize(
    ("name", "ask", "label"),
    [
        ("prose-plain.json", ESSAY, "writing"),
        ("poem-no-role.json", POEM, "prose"),
        ("math-no-role.json", "Solve step by step: If 3x + 7 = 25, what is x squared?", "math"),
    ],
)
def test_a_lone_system_message_is_the_ask(name: str, ask: str, label: str) -> None:
    """Each was unknown, the default route: no user message, nothing read. Read as the
    latest ask, and not again as the system prompt: as the same words sent as a user."""
    body = recorded(name)
    seen = view(body)
    assert (seen.latest, seen.first, seen.system) == (ask, "", "")
    intent = classify(body)
    assert (intent.label, intent.source) == (label, "model")
    as_user = alone("user", body["messages"][0]["content"])
    assert intent == classify(as_user)
    assert first_ask(body["messages"]) is body["messages"][0]


@pytest.mark.parametrize(
    "persona",
    [
        "You are a helpful assistant.",
        "You are helpful",
        "You're an expert. Be concise.",
        "Act as a tutor.",
    ],
)
def test_a_persona_alone_asks_nothing(persona: str) -> None:
    """Who the model is says no task: read, "You are helpful" was tool_calling 0.73 by its
    length bucket. Still the default route, nothing read."""
    body = alone("system", persona)
    assert classify(body).source == "default"
    shown = explain(body)
    assert (shown["intent"], shown["read"]["latest_chars"]) == ("unknown", 0)
    assert first_ask(body["messages"]) is None


def test_a_system_message_beside_a_user_message_is_no_ask() -> None:
    """Only a request of system messages alone asks by them: a user message is the ask."""
    body = recorded("review-code.json")
    seen = view(body)
    assert seen.system == "You are a senior Python engineer."
    assert seen.latest.startswith("Find the bugs in this Python function and fix it:")
    assert classify(body).label == "coding"
    persona_then_task = {
        "messages": [
            {"role": "system", "content": "You are a poet."},
            {"role": "system", "content": POEM},
        ]
    }
    assert view(persona_then_task).latest == POEM


@pytest.mark.parametrize(
    ("name", "ask", "label"),
    [
        ("poem-user.json", POEM, "prose"),
        ("poem-no-role.json", POEM, "prose"),
        (
            "solve-math.json",
            "Solve step by step: If 3x + 7 = 25, what is x? Then compute x squared.",
            "math",
        ),
        (
            "classify-review.json",
            "Classify the sentiment of this product review:\n"
            "The blender broke after two days and support never answered.",
            None,
        ),
    ],
)
def test_the_output_format_block_is_not_read(name: str, ask: str, label: str | None) -> None:
    """The poem was instruction 0.77 (local) with its schema read; the block says how to
    answer, never what is asked."""
    body = recorded(name)
    assert view(body).latest == ask
    if label is not None:
        assert classify(body).label == label
    assert explain(body)["read"]["latest_chars"] == len(ask)


def test_the_key_of_a_lone_system_message_is_its_asks() -> None:
    """Keyed by the ask as read, as the same words sent as a user message; was keyed by the
    system prompt as sent, its schema and all."""
    system = conversation_key(recorded("poem-no-role.json"), {}, "c")
    assert system == conversation_key(alone("user", POEM), {}, "c")
    assert system == conversation_key(alone("system", f"{POEM}\n{SCHEMA}"), {}, "c")
    assert system != conversation_key(alone("system", ESSAY), {}, "c")


@pytest.mark.parametrize(
    ("block", "schema"),
    [
        (SCHEMA, "{\n  title: string,\n  lines: string[],\n}"),
        ("Answer with a JSON Array using this schema:\nstring[]", "string[]"),
        (
            "Answer with a JSON Array using this schema:\n[\n  {\n    a: int,\n  }\n]",
            "[\n  {\n    a: int,\n  }\n]",
        ),
        ("Answer as an int", ""),
        (
            "Answer with any of the categories:\nColor\n----\n- Red\n- Green: the green one",
            "Color\n----\n- Red\n- Green: the green one",
        ),
        ("Answer using this specific value:\n'yes'", "'yes'"),
        (
            "Answer in JSON using any of these schemas:\n{\n  a: int,\n} or {\n  b: string,\n}",
            "{\n  a: int,\n} or {\n  b: string,\n}",
        ),
        ("Answer in JSON using this schema: Node", "Node"),
        (
            "Answer in JSON using this schema:\n{\n  // Represents a user\n\n  name: string,\n}",
            "{\n  // Represents a user\n\n  name: string,\n}",
        ),
    ],
)
def test_each_of_bamls_blocks_is_cut(block: str, schema: str) -> None:
    """BAML's prefixes for a class, an array, a primitive, an enum, a literal, a union, a
    hoisted class; the words before and after the block kept, a blank line apart."""
    text = f"{POEM}\n\n{block}\n\nThink before you answer."
    found = format_block(text)
    assert found is not None and found.schema == schema
    assert without_format(text) == f"{POEM}\n\nThink before you answer."
    assert without_format(f"{POEM}\n{block}") == POEM


def test_text_without_a_block_or_with_it_alone_is_read_as_sent() -> None:
    assert without_format(POEM) is None
    assert without_format(SCHEMA) is None
    assert without_format("Answer in JSON, please: what is 2 + 2?") is None


def test_only_the_end_of_a_text_is_searched() -> None:
    """BAML writes its block at the prompt's end: only the last 32 KB are searched
    (`classifier.baml._TAIL`), so a long ask is not searched whole twice a request. A block
    at the end of a 300 KB ask is cut (it was read as sent past 256 KB); one with 40 KB of
    words after it is read as written."""
    words = "The rain keeps falling on the roof. " * 8_500
    assert without_format(f"{words}\n{POEM}\n{SCHEMA}") == f"{words}\n{POEM}".strip()
    far = f"{POEM}\n{SCHEMA}\n{words[:40_000]}"
    assert format_block(far) is None
    assert without_format(far) is None
    assert view(alone("user", far)).latest.startswith(f"{POEM}\n{SCHEMA}")


@pytest.mark.parametrize(
    "after",
    [[], [{"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}]],
)
def test_the_block_in_a_text_part_is_not_read(after: list[dict[str, Any]]) -> None:
    """An ask sent as a text part, an image beside it or not, was read with its schema: only
    a string content was cut. The request's own parts are not changed."""
    part = {"type": "text", "text": f"Write a poem.\n\n{SCHEMA}"}
    body = {"model": "auto", "messages": [{"role": "user", "content": [part, *after]}]}
    assert view(body).latest == "Write a poem."
    assert explain(body)["read"]["latest_chars"] == len("Write a poem.")
    assert body["messages"][0]["content"] == [part, *after]
    assert part["text"] == f"Write a poem.\n\n{SCHEMA}"
