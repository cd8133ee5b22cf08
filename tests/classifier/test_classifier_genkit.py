"""Genkit's instructions for a JSON output, a user message of their own after the ask, are no
ask (`classifier.genkit`): the recorded bodies (`tests/fixtures/genkit-1.42.0.md`) on the
classifier's view of them, and the edges of the reader's scope. Genkit's text is quoted from
its installed 1.42.0 sources (`@genkit-ai/ai` `src/model/middleware.ts`,
`DEFAULT_CONSTRAINED_GENERATION_INSTRUCTIONS`), not taken from the module under test.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from classifier import classify
from classifier.asks import first_ask
from classifier.request import view
from router.translate.view import chat_view
from tests.recorded import loader

FIXTURES = Path(__file__).parents[1] / "fixtures" / "genkit-1.42.0"
ASK = "Solve 17*23 and explain briefly."
SCHEMA = '{"type":"object","properties":{"answer":{"type":"number"}},"required":["answer"]}'


def genkits(schema: str) -> str:
    """Genkit 1.42.0's instructions for `schema` (`JSON.stringify`'s text of it)."""
    return (
        "Output should be in JSON format and conform to the following schema:\n\n"
        f"```\n{schema}\n```\n"
    )


INSTRUCTIONS = genkits(SCHEMA)


captured = loader(FIXTURES)


def chat(*messages: tuple[str, str]) -> dict[str, Any]:
    return {"model": "auto", "messages": [{"role": r, "content": c} for r, c in messages]}


@pytest.mark.parametrize(
    ("name", "label"), [("structured.json", "prose"), ("structured-json.json", "math")]
)
def test_a_recorded_request_reads_as_its_ask_alone(name: str, label: str) -> None:
    """Read with the instructions as the ask, the fantasy character was coding 0.813, the
    sum instruction 0.474; alone, prose 0.998 and math 0.93."""
    body = captured(name)
    assert [m["role"] for m in body["messages"]] == ["user", "user"]
    assert body["messages"][1]["content"].startswith("Output should be in JSON format")
    alone = {**body, "messages": body["messages"][:1]}
    seen, asked = chat_view("chat", body), chat_view("chat", alone)
    assert (view(seen).latest, view(seen).first) == (view(asked).latest, "")
    assert view(seen).harness_cut is False  # Genkit is no coding agent
    assert classify(seen) == classify(asked)
    assert classify(seen).label == label
    assert first_ask(body["messages"]) is body["messages"][0]  # the conversation's key


def test_after_an_earlier_turn_and_in_a_tool_loop_the_ask_is_read() -> None:
    """History sent by `messages` (no instructions in it: the middleware adds them to each
    model call only), and a tool's call and result after them."""
    body = chat(("user", "hi"), ("assistant", "Hello!"), ("user", ASK), ("user", INSTRUCTIONS))
    assert view(body).latest == ASK
    body["messages"] += [
        {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function",
         "function": {"name": "calc", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "391"},
    ]  # fmt: skip
    assert view(body).latest == ASK
    parts = chat(("user", ASK), ("user", ""))
    parts["messages"][1]["content"] = [{"type": "text", "text": INSTRUCTIONS}]
    assert view(parts).latest == ASK


@pytest.mark.parametrize(
    "messages",
    [
        # a conversation's first message: the user's paste, all read as written
        [("user", INSTRUCTIONS)],
        [("user", INSTRUCTIONS), ("user", INSTRUCTIONS)],
        # after a reply, not right after the ask: Genkit sends them right after it
        [("user", ASK), ("assistant", "391"), ("user", INSTRUCTIONS)],
        # the user's words before or after them in the same message
        [("user", ASK), ("user", f"Why? {INSTRUCTIONS}")],
        [("user", ASK), ("user", f"{INSTRUCTIONS}What does this schema mean?")],
        # no JSON object between the fences, or one over lines (JSON.stringify's is one line)
        [("user", ASK), ("user", genkits("name, age, skills"))],
        [("user", ASK), ("user", genkits('["a", "b"]'))],
        [("user", ASK), ("user", genkits('{\n  "type": "object"\n}'))],
        # nested past the parser's depth, or longer than any schema read
        [("user", ASK), ("user", genkits('{"a":' + "[" * 50_000 + "]" * 50_000 + "}"))],
        [("user", ASK), ("user", genkits('{"a":"' + "x" * 200_000 + '"}'))],
    ],
)
def test_its_words_elsewhere_are_read_as_written(messages: list[tuple[str, str]]) -> None:
    """The last message is read as the ask (a long one by its head and tail: its head)."""
    latest = view(chat(*messages)).latest
    assert isinstance(latest, str)
    assert latest[:200] == messages[-1][1][:200]


def test_beside_an_image_they_are_the_asks_part() -> None:
    """The ask with an image: compat-oai sends its parts, the instructions among them, as one
    message, read whole (its text parts) as before."""
    content = [
        {"type": "text", "text": ASK},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
        {"type": "text", "text": INSTRUCTIONS},
    ]
    body = {"model": "auto", "messages": [{"role": "user", "content": content}]}
    assert view(body).latest == f"{ASK}\n{INSTRUCTIONS}"
