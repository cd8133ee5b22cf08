"""langroid's requests on the classifier's view alone (`classifier.langroid`): the tools it
lists in its system prompt's text offered by name, a tool's result it sends as a user message
read as one (not as the ask), and its blocks (tools, a structured output's schema) not read
as the system prompt.

Found in a live review of langroid 0.69.16: with its default tools in text, "What is 1234 *
5678? Use the multiply tool." was math 0.72 (cloud) where the same ask with its tools in
`tools` (`use_functions_api=True`) is tool_calling 0.90 (local); the tool's result "7006652"
was read as the new ask, no tool's result.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from classifier import classify, langroid
from classifier.langroid import OUTPUT_SCHEMA, TOOLS, TOOLS_END
from classifier.request import view
from tests import recorded

FIXTURES = recorded.FIXTURES / "langroid-0.69.16"
MULTIPLY = "What is 1234 * 5678? Use the multiply tool."
PROOF = "Prove that the square root of 2 is irrational."
SYSTEM = "You are a helpful assistant."
CODE = "Write a Python function that parses a CSV file into a list of dicts."
PROSE_RESULT = (
    "The product has been computed. It is a fairly large number, well over seven million,"
    " and the calculation finished without any trouble at all."
)

captured = recorded.loader(FIXTURES)


def after_result(body: dict[str, Any], ask: str, result: str) -> dict[str, Any]:
    """The tool loop's second request `body` with its ask `ask` and its tool's result
    `result`."""
    other = copy.deepcopy(body)
    other["messages"][1]["content"] = ask
    other["messages"][-1]["content"] = result
    return other


def test_langroids_texts_are_the_ones_it_sends() -> None:
    """Its tools block and its structured output's instructions, as recorded; no `tools`."""
    for name in ("tool-turn1.json", "tool-turn2.json", "tool-poem.json", "proof-tool.json"):
        body = captured(name)
        system = body["messages"][0]["content"]
        assert TOOLS in system and system.endswith(TOOLS_END) and "tools" not in body
    assert OUTPUT_SCHEMA in captured("struct.json")["messages"][0]["content"]


def test_the_tools_it_lists_are_offered_by_name() -> None:
    """The ask names the listed tool: tool_calling by the offered-tool-by-name rule (math
    0.72 on the cloud, before), as with its tools sent in `tools`."""
    seen = view(captured("tool-turn1.json"))
    assert (seen.tool_names, seen.has_tools, seen.system) == ("multiply", True, SYSTEM)
    intent = classify(captured("tool-turn1.json"))
    assert (intent.label, intent.source) == ("tool_calling", "rule")
    proof = view(captured("proof-tool.json"))
    assert (proof.tool_names, proof.has_tools) == ("proof", True)


def test_an_ask_naming_no_tool_is_read_by_its_words() -> None:
    """A tool listed, an ask that does not name it: prose, as the ask alone."""
    body = captured("tool-poem.json")
    assert view(body).has_tools
    assert classify(body).label == "prose"


def test_a_tools_result_is_no_ask() -> None:
    """The user message after the reply `TOOL: {"request": "multiply", ...}` is the tool's
    result: the ask before it is read, after a tool's result ("7006652" was the ask,
    before)."""
    seen = view(captured("tool-turn2.json"))
    assert (seen.latest, seen.first, seen.after_tool_result) == (MULTIPLY, "", True)
    assert classify(captured("tool-turn2.json")).label == "tool_calling"


def test_a_prose_result_does_not_change_a_coding_turn() -> None:
    """A coding ask, its tool's result in prose: still the coding ask read."""
    body = after_result(captured("tool-turn2.json"), CODE, PROSE_RESULT)
    seen = view(body)
    assert (seen.latest, seen.after_tool_result) == (CODE, True)
    assert classify(body).label == "coding"


def test_a_requests_other_shapes_and_other_replies() -> None:
    """A plain JSON request, in a code fence, with no "TOOL:": a tool's result too; a reply
    that requests a tool langroid does not list, or no tool, leaves the next message an ask."""
    body = captured("tool-turn2.json")
    fenced = copy.deepcopy(body)
    fenced["messages"][2]["content"] = '```json\n{"a": 1234, "b": 5678, "request": "multiply"}\n```'
    assert view(fenced).latest == MULTIPLY
    for reply in ('TOOL: {"request": "divide", "a": 1}', "1234 * 5678 = 7006652", "{not json"):
        other = copy.deepcopy(body)
        other["messages"][2]["content"] = reply
        assert view(other).latest == "7006652"


def test_outside_langroids_requests_a_json_reply_is_no_tool_request() -> None:
    """The same conversation under a system prompt listing no tools: the user message after
    the reply is the ask, as sent."""
    body = recorded.with_system(captured("tool-turn2.json"), SYSTEM)
    seen = view(body)
    assert (seen.latest, seen.after_tool_result, seen.has_tools) == ("7006652", False, False)


def test_the_structured_outputs_schema_is_not_read() -> None:
    """`agent[Answer]`: its system prompt read without "=== OUTPUT FORMAT INSTRUCTIONS ==="
    and the schema after it."""
    seen = view(captured("struct.json"))
    assert (seen.system, seen.latest) == (SYSTEM, PROOF)


@pytest.mark.parametrize(
    "block",
    [
        langroid.OUTPUT_TOOL + "multiply` tool, with the JSON format below.",
        langroid.GUIDELINES + "TOOL: multiply\nUse it for any product.",
    ],
)
def test_langroids_other_blocks_are_not_read(block: str) -> None:
    """Its reminder to answer with one of its tools and its guidance on the tools (a
    guidance block opens with a tool's entry) end what is read of its system prompt, as its
    tools block does; a heading of its words in a user's own prose does not."""
    body = recorded.with_system(captured("struct.json"), SYSTEM + "\n\n" + block)
    assert view(body).system == SYSTEM
    prose = "=== GUIDELINES ON SOME TOOLS/FUNCTIONS USAGE ===\nBe brief with tools."
    with_prose = recorded.with_system(captured("struct.json"), SYSTEM + "\n" + prose)
    assert view(with_prose).system == SYSTEM + "\n" + prose


def test_a_reply_longer_than_a_tool_request_is_no_tool_request() -> None:
    """A reply past `REQUEST_CHARS` is not parsed as a tool's request, whatever it holds:
    the user message after it is the ask, as sent."""
    body = captured("tool-turn2.json")
    long_reply = copy.deepcopy(body)
    request = '{"a": 1234, "b": 5678, "request": "multiply", "note": "'
    padding = "x" * (langroid.REQUEST_CHARS - len(request))
    long_reply["messages"][2]["content"] = request + padding + '"}'
    assert view(long_reply).latest == "7006652"


def test_the_tools_block_is_read_once_for_a_long_tool_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    """A loop of many tool rounds: the system prompt's tools are read once for the request,
    not once for each result scanned (`classifier.message.per_text`)."""
    body = captured("tool-turn2.json")
    body["messages"][0]["content"] += " "  # a text no earlier request read
    request, result = body["messages"][2], body["messages"][3]
    body["messages"] += [copy.deepcopy(message) for _ in range(40) for message in (request, result)]
    reads: list[int] = []
    entries = langroid.TOOL_ENTRY

    class Counted:
        def finditer(self, *args: Any) -> Any:
            reads.append(1)
            return entries.finditer(*args)

    monkeypatch.setattr(langroid, "TOOL_ENTRY", Counted())
    seen = view(body)
    assert (seen.latest, seen.after_tool_result, seen.tool_names) == (MULTIPLY, True, "multiply")
    assert len(reads) == 1


def test_a_reply_nested_too_deep_for_json_is_no_tool_request() -> None:
    """A reply of "TOOL:" and JSON nested past the parser's depth (within `REQUEST_CHARS`):
    json raised RecursionError, the request took the default route; now it is no request,
    as a reply that is not JSON, and the user message after it is the ask."""
    body = captured("tool-turn2.json")
    body["messages"][2]["content"] = 'TOOL: {"request": "multiply", "a": ' + "[" * 5000
    assert len(body["messages"][2]["content"]) <= langroid.REQUEST_CHARS
    not_json = copy.deepcopy(body)
    not_json["messages"][2]["content"] = "{not json"
    assert view(body).latest == "7006652"
    assert classify(body).label == classify(not_json).label
