"""A message's content parts are read by one part reader, within one bound
(`classifier.message.part_text`, `scanned_at`): the asks' reader's, the eval tools' template
reader's (`classifier.templates.text_of`) and browser-use's opening's
(`classifier.message.opening_text`).

Found in review: the template reader took a part of no text for a text part and failed on
it, a `KeyError` that made the router answer 500 to `[{"type": "text"}]` and to an image
part of no type, and made a math question after a system message of no text unknown; and
it read all of a message's parts, 160,000 images taking classify from 0.4 ms to 50-85 ms.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from classifier import classify, explain
from classifier.fixed import BROWSER_STEP_READING
from classifier.inspect_ai import SINGLE_ANSWER_TEMPLATE, answer_character
from classifier.message import SCAN_PARTS
from classifier.request import view
from router.conversation import conversation_key, prompt_text

MATH = "What is 17*23?"
# Parts of no text, each alone in a user message: no ask, read as nothing
NO_TEXT = [
    [{"type": "text"}],
    [{"image_url": {"url": "data:,"}}],  # no type: a text part's default, but no text
    [{"type": "input_text", "text": None}],
]


def chat(*messages: tuple[str, Any]) -> dict[str, Any]:
    return {"model": "auto", "messages": [{"role": r, "content": c} for r, c in messages]}


@pytest.mark.parametrize("content", NO_TEXT)
def test_a_part_of_no_text_is_read_as_none(content: list[dict[str, Any]]) -> None:
    """Each reader of the request takes it as no text: no error, nothing read."""
    body = chat(("user", content))
    assert classify(body).label == "unknown"
    assert explain(body)["source"] == "default"
    assert len(conversation_key(body, {}, "c")) == 16  # keyed
    assert prompt_text(body) == ""


@pytest.mark.parametrize("content", NO_TEXT)
def test_a_system_message_of_no_text_leaves_the_users_ask_read(
    content: list[dict[str, Any]],
) -> None:
    """The system message is no grader's (`promptfoo.grades`, `inspect_ai.grades`); the
    question after it reads as it does alone (math 0.93; unknown, failing, before)."""
    body = chat(("system", content), ("user", MATH))
    alone = classify(chat(("user", MATH)))
    assert classify(body) == alone and alone.label == "math"
    assert explain(body)["intent"] == "math"
    assert prompt_text(body) == MATH


def test_a_part_of_no_text_beside_a_question_leaves_the_question_read() -> None:
    """inspect_ai's question with a part of no text after it: its one text part is the
    question's, read without the directive, and only that part is rewritten."""
    text = SINGLE_ANSWER_TEMPLATE.format(
        letters="A,B", question="What is 17*23?", choices="A) 391\nB) 401"
    )
    content = [{"type": "text", "text": text}, {"type": "text"}]
    seen = view(chat(("user", content)))
    assert seen.latest == text[text.index(MATH) :]
    assert prompt_text(chat(("user", content))) == seen.latest
    assert content == [{"type": "text", "text": text}, {"type": "text"}]  # as sent


class Part(dict[str, Any]):
    """A content part that notes when it is read."""

    read: set[int] = set()  # noqa: RUF012 - the parts read, by id, across instances

    def get(self, *args: Any) -> Any:
        Part.read.add(id(self))
        return super().get(*args)

    def __getitem__(self, key: str) -> Any:
        Part.read.add(id(self))
        return super().__getitem__(key)


def test_a_messages_parts_are_read_within_the_bound_however_many() -> None:
    """A question and a thousand images: the classifier and the key read a few of them (the
    first and the last `SCAN_PARTS // 2`, smolagents' first `SCAN_PARTS`), not each (1,000
    before: 160,000 images took 50-85 ms to classify, 0.4 ms now)."""
    images = [Part(type="image_url", image_url={"url": "data:,"}) for _ in range(1000)]
    body = chat(("user", [{"type": "text", "text": MATH}, *images]))
    Part.read.clear()
    assert classify(body).label == "math"
    assert len(Part.read) < 2 * SCAN_PARTS
    Part.read.clear()
    conversation_key(body, {}, "c")
    assert len(Part.read) < 2 * SCAN_PARTS


def test_a_question_of_a_hundred_choices_is_read_and_of_more_as_written() -> None:
    """inspect_ai's letters for 100 choices run 264 characters ("A,...,Z,1,...,74"): read
    without the directive (97 at most before, the bound 256); 101 are read as written."""
    for count, read in ((100, True), (101, False)):
        letters = ",".join(map(answer_character, range(count)))
        lines = "\n".join(f"{answer_character(i)}) {i}" for i in range(count))
        text = SINGLE_ANSWER_TEMPLATE.format(letters=letters, question=MATH, choices=lines)
        latest = view(chat(("user", text))).latest
        assert latest == (text[text.index(MATH) :] if read else text), count


BROWSER_STEP = Path(__file__).parents[1] / "fixtures" / "browser-use-0.13.14" / "step-shop.json"


@pytest.mark.parametrize("kind", [None, "input_text"])
def test_a_browser_use_steps_opening_is_read_as_any_text_part(kind: str | None) -> None:
    """Its state message's first part, of no type (a text part's default) or a Responses
    input's: read as every reader reads a text part, the step is the step it is with
    `"type": "text"` (not one before: its reader took only that type)."""
    body = json.loads(BROWSER_STEP.read_text(encoding="utf-8"))
    sent = copy.deepcopy(body)
    first = body["messages"][1]["content"][0]
    del first["type"]
    if kind is not None:
        first["type"] = kind
    assert (view(body).latest, view(body).fixed == BROWSER_STEP_READING) == (
        view(sent).latest,
        True,
    )
    assert classify(body) == classify(sent)
