"""mcp-agent's parallel fan-in is read by its agents' answers, not the Python objects it prints
them as, and its LLM router's and intent classifier's templates are instruction by rule
(`classifier.mcp_agent`).

Read as written (mcp-agent 0.2.6 against the router), the fan-in of a grammar and style
review was coding 0.929, and the intent classifier's template coding 0.554. The bodies are
the ones mcp-agent sent (`tests/fixtures/mcp-agent-0.2.6.md`); the fan-in's objects are
printed here by the openai SDK's own `ChatCompletionMessage`, as mcp-agent prints them
(`FanIn.aggregate_agent_messages`: `f"Agent {name}: {str(msg)}"`), and its string fan-in's
text (`aggregate_agent_message_strings`) is written from mcp-agent's source, not taken from
the module under test.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from openai.types.chat import ChatCompletionMessage

from classifier import classify
from classifier.fixed import ROUTE_CHOICE, ROUTE_CHOICE_READING
from classifier.request import view
from router.conversation import conversation_key
from tests import recorded
from tests.classifier.fixed_readings import (
    assert_decided_by,
    assert_explained_by,
    assert_read_by_model,
)

captured = recorded.loader(recorded.FIXTURES / "mcp-agent-0.2.6")
HEADER = "Aggregated responses from multiple Agents:\n\n"
# The demo simulator's answer to each fan-out agent in `fan-in.json`
SIMULATED = (
    "Keeping visible failing best wait routes keeping tokens in. Best with so to failing model"
    " request request system ledger tokens so that. System to and wait model the each failing"
    " fallback failing it wait a."
)
REVIEWS = {
    "proofreader": (
        "The story has two grammar errors: 'a cat were sitting' should be 'a cat was"
        " sitting', and 'it dont want' should be 'it doesn't want'. Spelling is otherwise"
        " fine."
    ),
    "style": (
        "The tone is light and whimsical, which suits a children's story. The APA guide does"
        " not apply to fiction; consider varying sentence length for rhythm."
    ),
}
GRADER = "Compile the reviews into one structured report with a grade."
REQUEST = "Request: please show me notes.txt\n"


def printed(content: str | None, **fields: Any) -> str:
    """An assistant message as mcp-agent prints it: the openai SDK object's `str`."""
    return str(ChatCompletionMessage(content=content, role="assistant", **fields))


def fan_in(text: str) -> dict[str, Any]:
    """`fan-in.json` with the user message `text`."""
    body = captured("fan-in.json")
    body["messages"][1]["content"] = text
    return body


def as_strings(answers: dict[str, str]) -> str:
    """The fan-in mcp-agent sends for `answers` as strings (`aggregate_agent_message_strings`)."""
    return HEADER + "\n\n".join(f"Agent {name}: {said}" for name, said in answers.items())


def as_objects(answers: dict[str, str]) -> str:
    """The fan-in mcp-agent sends for `answers` as messages (`aggregate_agent_messages`)."""
    return HEADER + "\n\n".join(f"Agent {n}: {printed(said)}" for n, said in answers.items())


def test_the_recorded_fan_in_reads_as_its_string_fan_in() -> None:
    """Read with the objects, coding 0.929; read now as the same answers sent as strings."""
    body = captured("fan-in.json")
    assert body["messages"][1]["content"] == as_objects(dict.fromkeys(REVIEWS, SIMULATED))
    strings = fan_in(as_strings(dict.fromkeys(REVIEWS, SIMULATED)))
    assert view(body).latest == view(strings).latest
    assert classify(body) == classify(strings)
    assert view(body).harness_cut is False  # mcp-agent is no coding agent


def test_reviews_printed_as_objects_read_as_the_reviews() -> None:
    """A grammar and style review's fan-in is prose, as its reviews sent as strings are (coding
    0.42 with the objects read)."""
    body, strings = fan_in(as_objects(REVIEWS)), fan_in(as_strings(REVIEWS))
    assert classify(strings).label == "prose"
    assert classify(body) == classify(strings)
    assert conversation_key(body, {}, "c") == conversation_key(strings, {}, "c")


@pytest.mark.parametrize(
    "said",
    [
        'It\'s "quoted" both ways,\nover two lines, a back\\slash and a tab\t.',
        'Only "double" quotes',
        "Non-ASCII é ü 漢字, a bell \x07 and a zero-width \u200b space",
        "",
    ],
)
def test_a_content_is_read_unescaped_as_python_reads_it(said: str) -> None:
    """Each content string, whatever Python's `repr` escaped in it, is read as it was said."""
    answers = {"proofreader": said, "style": REVIEWS["style"]}
    assert view(fan_in(as_objects(answers))).latest == view(fan_in(as_strings(answers))).latest


def test_a_tool_call_message_is_left_out_and_a_functions_line_kept() -> None:
    """An agent's call of a tool (no content) says nothing; a fan-out function's own string,
    not an object, is read as it is."""
    call = {"id": "c1", "type": "function", "function": {"name": "read", "arguments": '{"p": ")"}'}}
    lines = [
        f"Agent proofreader: {printed(None, tool_calls=[call])}",
        f"Agent proofreader: {printed(REVIEWS['proofreader'])}",
        "",
        f"Agent style: {REVIEWS['style']}",
    ]
    body = fan_in(HEADER + "\n".join(lines))
    assert view(body).latest == view(fan_in(as_strings(REVIEWS))).latest


def test_tool_call_messages_anywhere_are_left_out_with_their_lines() -> None:
    """At the start, one after another, between answers and at the end: the answers read
    as the string fan-in sends them, a blank line apart."""
    call = {"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{}"}}
    calls = {name: f"Agent {name}: {printed(None, tool_calls=[call])}" for name in REVIEWS}
    answers = {name: f"Agent {name}: {printed(said)}" for name, said in REVIEWS.items()}
    lines = [*[calls["proofreader"]] * 2, answers["proofreader"], calls["proofreader"]]
    lines += ["", answers["style"], calls["style"]]
    body = fan_in(HEADER + "\n".join(lines))
    assert view(body).latest == view(fan_in(as_strings(REVIEWS))).latest


ONE = as_objects({"style": REVIEWS["style"]})  # one agent's fan-in


@pytest.mark.parametrize(
    "text",
    [
        ONE.removeprefix(HEADER),  # no heading: not mcp-agent's fan-in
        ONE.replace("Agents:", "sources:", 1),
        ONE.removesuffix(")"),  # an object cut short
        ONE.replace("role='assistant'", "role='user'"),
        ONE.replace("content=", "content=u", 1),  # no `repr` of Python's
        ONE.replace("Agent style:", "Agent style: note: "),  # a name of a colon
    ],
)
def test_objects_not_in_mcp_agents_fan_in_are_read_as_sent(text: str) -> None:
    """Only a whole assistant message on its line under mcp-agent's heading is read inside."""
    assert "ChatCompletionMessage(content=" in view(fan_in(text)).latest


# Literals `repr` never writes, each of which `ast.literal_eval` refuses: a `\U` past U+10FFFF,
# a raw CR (Python's tokenizer ends the line there), a raw NUL, a raw lone surrogate (which
# UTF-8 cannot encode). Each failed the conversation key: a 500 (found in review).
UNREADABLE = {
    "big U": r"'x\Uffffffffy'",
    "raw CR": "'x\ry'",
    "raw NUL": "'x\x00y'",
    "raw surrogate": "'x\ud800y'",
}


def with_literal(literal: str) -> dict[str, Any]:
    """The fan-in of one agent's message whose content is written `literal`."""
    line = printed("x").replace("content='x'", f"content={literal}", 1)
    return fan_in(f"{HEADER}Agent style: {line}")


@pytest.mark.parametrize("literal", UNREADABLE.values(), ids=list(UNREADABLE))
def test_a_literal_python_cannot_read_is_read_as_sent(literal: str) -> None:
    """The line is no message of mcp-agent's: read as sent, and keyed so."""
    body = with_literal(literal)
    assert "ChatCompletionMessage(content=" in view(body).latest
    assert conversation_key(body, {}, "c") != conversation_key(with_literal("'xy'"), {}, "c")


def test_the_highest_code_point_is_read() -> None:
    """`repr` writes U+10FFFF, not printable, as `\U0010ffff`."""
    assert view(with_literal(r"'\U0010ffff'")).latest.endswith("Agent style: \U0010ffff")


def test_a_fan_in_longer_than_read_is_read_as_sent() -> None:
    """A fan-in of 300,000 characters is not scanned line by line."""
    text = as_objects({f"agent{i}": REVIEWS["style"] * 4 for i in range(500)})
    assert len(text) > 300_000
    assert "ChatCompletionMessage(" in view(fan_in(text)).latest


def instruction_by_rule(body: dict[str, Any]) -> None:
    """`body` is instruction by `ROUTE_CHOICE`."""
    assert_decided_by(body, ROUTE_CHOICE_READING, ROUTE_CHOICE, "instruction", 0.97)
    assert_explained_by(body, ROUTE_CHOICE, "instruction")


def with_request(name: str, request: str) -> dict[str, Any]:
    """The recorded template `name` asking to place `request`."""
    body = captured(name)
    text = body["messages"][-1]["content"]
    at = text.index("\nRequest: ") + 1
    end = text.index("\n", at) + 1
    body["messages"][-1]["content"] = f"{text[:at]}Request: {request}\n{text[end:]}"
    return body


@pytest.mark.parametrize("name", ["router.json", "intent-classifier.json"])
def test_the_recorded_templates_are_instruction_by_the_rule(name: str) -> None:
    """The intent classifier's was coding 0.554, the router's instruction 0.590 by chance."""
    instruction_by_rule(captured(name))


@pytest.mark.parametrize("name", ["router.json", "intent-classifier.json"])
@pytest.mark.parametrize(
    "request_",
    ["Prove that the square root of 2 is irrational.", "Write a haiku about autumn leaves."],
)
def test_the_request_placed_does_not_route_it(name: str, request_: str) -> None:
    """Placing a proof or a poem among the labels is the same work as placing a file read."""
    body = with_request(name, request_)
    assert request_ in body["messages"][-1]["content"]
    instruction_by_rule(body)


@pytest.mark.parametrize("name", ["router.json", "intent-classifier.json"])
def test_the_system_prompt_of_an_llm_given_to_the_router_is_not_read(name: str) -> None:
    """The router keeps the instruction of an LLM the user gave it; its template is the same."""
    instruction_by_rule(recorded.with_system(captured(name), "You are a helpful assistant."))


@pytest.mark.parametrize("name", ["router.json", "intent-classifier.json"])
def test_a_template_of_the_users_own_is_read_as_written(name: str) -> None:
    """A `routing_instruction` or `classification_instruction` of the user's: its words
    changed, or words after mcp-agent's end."""
    reworded = captured(name)
    reworded["messages"][-1]["content"] = reworded["messages"][-1]["content"].replace(
        "\nYou are a ", "\nYou are an extremely ", 1
    )
    read_as_written(reworded)
    appended = captured(name)
    appended["messages"][-1]["content"] += "Answer in French.\n"
    read_as_written(appended)


def read_as_written(body: dict[str, Any]) -> None:
    """`body` is no template of mcp-agent's: the model reads it."""
    assert_read_by_model(body, ROUTE_CHOICE_READING)


def test_a_turn_after_the_template_is_read_as_written() -> None:
    """The template in a chat's history, and the user's next ask after it."""
    body = captured("intent-classifier.json")
    history = copy.deepcopy(body["messages"])
    body["messages"] = [
        *history,
        {"role": "assistant", "content": '{"classifications": []}'},
        {"role": "user", "content": "Write a haiku about autumn leaves."},
    ]
    read_as_written(body)
    assert REQUEST in history[-1]["content"]
