"""atomic-agents' user turns are read by the words inside the JSON it wraps each of them in,
and its system prompt without its template's words (`classifier.atomic_agents`).

Read as written, the braces and the field's name were code: with instructor's
`Mode.JSON_SCHEMA`, "hi" was coding 0.33 (no ask alone), "List three pros and cons of remote
work." coding 0.36 (instruction unwrapped), "What is the capital of Australia?" instruction
0.40 on the local backend (reasoning, the cloud, unwrapped), found in a live review of
atomic-agents 1.1.11. The bodies are the ones it sent (`tests/fixtures/atomic-agents-1.1.11.md`);
the template's texts are quoted from its installed sources
(`atomic_agents/lib/components/system_prompt_generator.py`), not taken from the module under
test. The recorded bodies go through the router in `tests/agent_apis/test_agent_atomic_agents.py`.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from classifier import classify
from classifier.atomic_agents import system_words
from classifier.request import view
from tests.recorded import FIXTURES, loader, with_system

recorded = loader(FIXTURES / "atomic-agents-1.1.11")
BACKGROUND = "This is a conversation with a helpful and friendly AI assistant."
OUTPUT_LINES = (
    "- Always respond using the proper JSON schema.\n- Always use the available additional"
    " information and context to enhance the response."
)
# `SystemPromptGenerator().generate_prompt()`: what every default agent sends
TEMPLATE = f"# IDENTITY and PURPOSE\n- {BACKGROUND}\n\n# OUTPUT INSTRUCTIONS\n{OUTPUT_LINES}"
GENIUS = "As a genius expert, your task is to understand the content and provide"
# The asks the review compared, plain and wrapped, in atomic-agents' JSON_SCHEMA request
ASKS = [
    "Summarize the plot of Hamlet in three sentences.",
    "Translate 'good morning, how are you' into German.",
    "What is the capital of Australia?",
    "Explain the difference between TCP and UDP.",
    "Draft a polite email declining a meeting invitation.",
    "List three pros and cons of remote work.",
    "Give me a recipe for pancakes.",
    "Is 2^31-1 prime? Explain.",
    "hi",
    "Rewrite this sentence more formally: gonna be late",
]
POEM = "Write a short poem about the sea."


def field(value: object, name: str = "chat_message") -> str:
    """One field of a turn as atomic-agents sends it: `model_dump_json(include={name})`."""
    return json.dumps({name: value}, separators=(",", ":"), ensure_ascii=False)


def as_turn(name: str, content: object) -> dict[str, Any]:
    """The recorded body `name` with its last user turn's content `content`."""
    body = copy.deepcopy(recorded(name))
    body["messages"][-1]["content"] = content
    return body


def parts(*texts: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": text} for text in texts]


def test_the_bodies_hold_atomic_agents_texts() -> None:
    assert recorded("tools-poem.json")["messages"][0]["content"] == TEMPLATE
    prompt = recorded("json-schema-poem.json")["messages"][0]["content"]
    assert prompt.startswith(f"{TEMPLATE}\n\n\n        {GENIUS}\n")
    assert recorded("json-schema-poem.json")["messages"][-1]["content"] == parts(field(POEM))


@pytest.mark.parametrize(
    ("name", "latest", "first"),
    [
        ("json-schema-poem.json", POEM, ""),
        ("tools-poem.json", POEM, ""),
        ("json-schema-orchestrator.json", "What's the weather in Paris?", ""),
        (
            "json-schema-chat-turn3.json",
            "Now integrate the original from 0 to pi.",
            "What is the derivative of x^3 sin x?",
        ),
        (
            "tools-chat-turn3.json",
            "Now integrate the original from 0 to pi.",
            "What is the derivative of x^3 sin x?",
        ),
    ],
)
def test_a_recorded_turn_is_read_by_its_words(name: str, latest: str, first: str) -> None:
    seen = view(recorded(name))
    assert (seen.latest, seen.first, seen.harness_cut) == (latest, first, False)


@pytest.mark.parametrize("ask", ASKS)
def test_a_wrapped_ask_reads_as_the_plain_ask(ask: str) -> None:
    """Each of the review's asks, wrapped as atomic-agents sends it, reads as the same ask
    sent plain in its request: the same view, the same label and confidence."""
    wrapped = as_turn("json-schema-poem.json", parts(field(ask)))
    plain = as_turn("json-schema-poem.json", ask)
    assert view(wrapped) == view(plain)
    got, want = classify(wrapped), classify(plain)
    assert (got.label, got.confidence, got.source) == (want.label, want.confidence, want.source)


@pytest.mark.parametrize(
    ("ask", "label"),
    [
        ("What is the capital of Australia?", "reasoning"),  # instruction 0.40 wrapped
        ("List three pros and cons of remote work.", "instruction"),  # coding 0.36 wrapped
        ("Is 2^31-1 prime? Explain.", "math"),
    ],
)
def test_the_reviews_asks_read_as_their_work(ask: str, label: str) -> None:
    assert classify(as_turn("json-schema-poem.json", parts(field(ask)))).label == label


def test_a_wrapped_greeting_asks_nothing() -> None:
    """ "hi" wrapped was coding 0.33; alone it asks nothing yet (`classifier.greeting`)."""
    body = as_turn("json-schema-poem.json", parts(field("hi")))
    assert view(body).greeted
    assert (classify(body).label, classify(body).confidence) == ("unknown", 0.0)


def test_the_template_is_not_read_as_the_system_prompt() -> None:
    """Its words are no ask's: of a default agent's prompt, instructor's text alone is read
    in its JSON modes, nothing in its tool modes; an agent's own lines are read."""
    assert view(recorded("tools-poem.json")).system == ""
    assert view(recorded("json-schema-poem.json")).system.startswith(GENIUS)
    assert view(recorded("json-schema-orchestrator.json")).system.startswith(
        "You are an orchestrator that picks the right tool.\nDecide which tool fits the user's"
        " request.\nReturn the chosen tool's parameters.\nAs a genius expert, "
    )


def test_a_context_providers_section_is_read_without_its_heading() -> None:
    prompt = (
        f"{TEMPLATE}\n\n# EXTRA INFORMATION AND CONTEXT\n## Current date\nToday is Monday.\n\n"
        "## Search results\n1. Canberra is the capital of Australia."
    )
    assert system_words(prompt) == (
        "Current date\nToday is Monday.\n\nSearch results\n1. Canberra is the capital of Australia."
    )


def test_a_custom_input_schemas_fields_are_read_by_their_string_values() -> None:
    """A custom input schema sends a text part a field; its numbers are no words, an image
    beside them is not read."""
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
    content = [
        *parts(
            field("Prove that the square root of 2 is irrational.", "question"),
            field(150, "max_words"),
            field(["high-school students", {"level": "beginner"}], "audience"),
        ),
        image,
    ]
    assert view(as_turn("json-schema-poem.json", content)).latest == (
        "Prove that the square root of 2 is irrational.\nhigh-school students\nbeginner"
    )


@pytest.mark.parametrize(
    "text",
    [
        '{"question":"Prove it.","max_words":150}',  # two fields in one text: not its
        f"Please answer this: {field(POEM)}",
        field(150),  # no string
        field("   "),
        '{"chat_message":"Write a short poem',  # cut off
    ],
)
def test_other_texts_in_its_request_are_read_as_sent(text: str) -> None:
    assert view(as_turn("json-schema-poem.json", text)).latest == text


def test_a_turn_with_one_text_not_its_json_is_read_as_sent() -> None:
    body = as_turn("json-schema-poem.json", parts(field(POEM), "and keep it short"))
    assert view(body).latest == f"{field(POEM)}\nand keep it short"


@pytest.mark.parametrize(
    "text",
    [
        field("Summarize this. " + "word " * 20_000),  # past the bound: not parsed
        '{"chat_message":' + "[" * 30_000 + "]" * 30_000 + "}",  # too deep to parse
    ],
)
def test_a_turn_past_the_bounds_is_read_as_sent(text: str) -> None:
    assert view(as_turn("json-schema-poem.json", text)).latest.startswith('{"chat_message":')


@pytest.mark.parametrize(
    "prompt",
    [
        "You are a helpful assistant.",
        f"Be brief.\n{TEMPLATE}",
        f"# IDENTITY and PURPOSE\n- {BACKGROUND}",  # no output instructions
        f"{TEMPLATE} Answer in French.",  # its last line does not end there
    ],
)
def test_its_json_under_another_system_prompt_is_read_as_sent(prompt: str) -> None:
    body = with_system(recorded("json-schema-poem.json"), prompt)
    assert view(body).latest == field(POEM)
    assert view(body).system == prompt[:300]


def test_its_json_with_no_system_prompt_is_read_as_sent() -> None:
    body = recorded("json-schema-poem.json")
    body["messages"] = body["messages"][1:]
    assert view(body).latest == field(POEM)


def test_its_tool_modes_stay_tool_calling() -> None:
    """`Mode.TOOLS` forces its output tool: a tool call whatever the ask (the policy on a
    forced call), read by the ask's words all the same."""
    for name in ("tools-poem.json", "tools-chat-turn3.json"):
        got = classify(recorded(name))
        assert (got.label, got.source) == ("tool_calling", "rule")
