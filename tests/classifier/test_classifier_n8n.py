"""n8n's Information Extractor, Text Classifier and Sentiment Analysis, and its output
parser's fix-up, are instruction whatever their text is about (`classifier.n8n`).

n8n 2.41.1 puts each node's task in its system prompt and the item's text alone in the user
message: read by the text, the Sentiment Analysis of a release's praise was reasoning 0.42 on
the cloud, the Information Extractor on an invoice math 0.30 (the default route), the Text
Classifier on a billing complaint tool_calling 0.47 with no tool offered (found running n8n
against the router). The bodies are the ones it sent, over Responses (its default) and chat
completions (`tests/fixtures/n8n-2.41.1.md`); a Responses body is read as the router reads
it, through its chat view.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from classifier.fixed import FIXED_FORM_READING
from classifier.n8n import FIX_PARTS, NAIVE_FIX, OPENINGS
from classifier.request import view
from classifier.rules import FIXED_FORM
from router.translate.view import chat_view
from tests import recorded
from tests.classifier.fixed_readings import (
    assert_decided_by,
    assert_explained_by,
    assert_read_by_model,
)

FIXTURES = recorded.FIXTURES / "n8n-2.41.1"
NODES = ("extractor", "classifier", "sentiment")
CAPTURED = [f"{name}-{api}.json" for name in (*NODES, "fixup") for api in ("responses", "chat")]
SENTIMENT_TEXT = "The new release is fantastic, setup took two minutes and everything just worked."


def captured(name: str) -> dict[str, Any]:
    return recorded.body(FIXTURES / name)


def chat(body: dict[str, Any]) -> dict[str, Any]:
    """`body` as the classifier reads it: a Responses body through the router's chat view."""
    return chat_view("responses", body) if "input" in body else body


def messages_of(name: str) -> list[dict[str, Any]]:
    """The chat messages of the captured `name`, a copy."""
    return copy.deepcopy(list(chat(captured(name))["messages"]))


def instruction_by_rule(body: dict[str, Any]) -> None:
    """`body` (a chat body) is instruction by `FIXED_FORM`."""
    assert_decided_by(body, FIXED_FORM_READING, FIXED_FORM, "instruction", 0.97)
    assert_explained_by(body, FIXED_FORM, "instruction")


def read_as_written(body: dict[str, Any]) -> None:
    """`body` is no request of n8n's nodes: no rule decides it, the model does."""
    assert_read_by_model(body, FIXED_FORM_READING)


@pytest.mark.parametrize("name", CAPTURED)
def test_every_captured_request_is_instruction_by_the_rule(name: str) -> None:
    instruction_by_rule(chat(captured(name)))


def test_both_apis_sent_the_same_texts() -> None:
    """n8n's Responses and chat requests differ in shape alone: the system prompt an item of
    `input` or the first message, the text the user message."""
    for name in (*NODES, "fixup"):
        responses = [item["content"] for item in captured(f"{name}-responses.json")["input"]]
        sent = [message["content"] for message in captured(f"{name}-chat.json")["messages"]]
        assert responses == sent


@pytest.mark.parametrize("node", NODES)
def test_the_system_prompt_as_instructions_or_a_developer_item(node: str) -> None:
    """Over Responses the system prompt may come as `instructions`, or as a developer item
    in input text parts: the router's chat view reads either as the system prompt."""
    system, user = captured(f"{node}-responses.json")["input"]
    as_instructions = {"model": "auto", "instructions": system["content"], "input": [user]}
    instruction_by_rule(chat(as_instructions))
    parts = [{"type": "input_text", "text": system["content"]}]
    developer = {**system, "role": "developer", "content": parts}
    instruction_by_rule(chat({"model": "auto", "input": [developer, user]}))


@pytest.mark.parametrize(
    ("node", "data"),
    [
        ("extractor", "Invoice 4471 from Acme GmbH: 3 laptops at 1,250.00 EUR each."),
        ("sentiment", "Solve x^2 - 5x + 6 = 0 and explain each step."),
        ("classifier", "Write a haiku about autumn leaves."),
        ("sentiment", "Write a Python function that reverses a string."),
    ],
)
def test_the_datas_topic_does_not_route_it(node: str, data: str) -> None:
    """Whatever the text holds, a math problem, a poem's ask, a coding ask: it is the data
    the node labels or extracts from."""
    messages = messages_of(f"{node}-chat.json")
    messages[1]["content"] = data
    instruction_by_rule({"model": "auto", "messages": messages})


def test_the_openings_are_what_n8n_sent() -> None:
    """Each opening opens a system prompt n8n 2.41.1 sent, and the fix-up's template is the
    one it sent filled."""
    sent = [messages_of(f"{node}-chat.json")[0]["content"] for node in NODES]
    assert all(text.startswith(opening) for text, opening in zip(sent, OPENINGS, strict=True))
    fixup = messages_of("fixup-chat.json")[0]["content"]
    assert fixup.startswith(FIX_PARTS[0]) and fixup.endswith(FIX_PARTS[-1])
    assert len(FIX_PARTS) == 4 and NAIVE_FIX.count("{") == 3


@pytest.mark.parametrize(
    "ask",
    [
        # a user's own words, no system prompt of n8n's
        f"Classify the sentiment of this text as positive, neutral or negative: {SENTIMENT_TEXT}",
        "Please classify the text provided by the user into one of the following categories:"
        " billing, technical, sales. Why did the Roman Empire fall?",
        "Extract the vendor and the total from: Invoice 4471 from Acme GmbH, 3 laptops at"
        " 1,250.00 EUR each. Then compute the VAT at 19%.",
    ],
)
def test_a_users_own_classify_or_extract_ask_is_read_as_written(ask: str) -> None:
    read_as_written({"model": "auto", "messages": [{"role": "user", "content": ask}]})


@pytest.mark.parametrize(
    "system",
    [
        "You are a helpful assistant.",
        # a node's system prompt replaced by the user (its "System Prompt Template" option)
        "You are an expert in invoices. Read the text and answer in JSON.",
        # n8n's opening, not at the prompt's start
        "Be brief.\n" + OPENINGS[2],
        # the extractor's first line alone
        "You are an expert extraction algorithm.\nExtract what you like.",
    ],
)
def test_another_system_prompt_is_read_as_written(system: str) -> None:
    messages = messages_of("sentiment-chat.json")
    messages[0]["content"] = system
    read_as_written({"model": "auto", "messages": messages})


def test_n8ns_words_in_a_user_message_are_the_users() -> None:
    """The Sentiment node's system prompt sent as a user message, the text after it: a
    user's paste, read as written."""
    system, user = messages_of("sentiment-chat.json")
    pasted = {"role": "user", "content": system["content"] + "\n" + user["content"]}
    assert view({"model": "auto", "messages": [pasted]}).fixed != FIXED_FORM_READING


def test_a_structured_output_parsers_format_instructions_are_no_template() -> None:
    """A Basic LLM Chain with a Structured Output Parser sends the user's prompt with the
    format instructions after it: the user's ask, read as written."""
    read_as_written(chat(captured("parser-chain-responses.json")))


@pytest.mark.parametrize("change", ["after-a-conversation", "cut", "words-after", "system"])
def test_the_fix_up_only_as_its_requests_one_message(change: str) -> None:
    """The fix-up template filled is instruction only as a request's one user message, the
    template whole: pasted into a conversation, cut short or followed by words of a user's,
    it is read as written."""
    (fixup,) = messages_of("fixup-chat.json")
    messages: list[dict[str, Any]] = [fixup]
    if change == "after-a-conversation":
        messages[:0] = [
            {"role": "user", "content": "Why does my parser fail?"},
            {"role": "assistant", "content": "Show me the prompt."},
        ]
    elif change == "cut":
        fixup["content"] = fixup["content"].split("\nError:\n")[0]
    elif change == "words-after":
        fixup["content"] += "\nAlso, what does this error mean?"
    else:
        messages[:0] = [{"role": "system", "content": "You are a helpful assistant."}]
    assert view({"model": "auto", "messages": messages}).fixed != FIXED_FORM_READING


def test_the_fix_up_of_any_completion_is_instruction() -> None:
    """Its placeholders filled with other texts, as LangChain's `OutputFixingParser` fills
    them for another parser."""
    text = NAIVE_FIX.format(
        instructions="Answer with a comma-separated list of three colours.",
        completion="Here is a poem about the sea.",
        error="Could not parse output",
    )
    instruction_by_rule({"model": "auto", "messages": [{"role": "user", "content": text}]})
