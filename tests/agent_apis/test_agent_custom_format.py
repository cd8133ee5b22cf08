"""A custom tool's input format in the description of the function a chat backend is shown
for it (`router.translate.custom_format`): a grammar, Lark or a regular expression, which
chat has no field for, was dropped (found in review)."""

from __future__ import annotations

from typing import Any

import pytest

from router.translate import responses_request
from router.translate.custom_format import MAX_DEFINITION_CHARS, described

LARK = 'start: begin_patch hunk+ end_patch\nbegin_patch: "*** Begin Patch" LF'


def shown(tool: dict[str, Any]) -> dict[str, Any]:
    """The function a chat backend is shown for `tool`."""
    chat = responses_request.to_chat({"model": "m", "input": "x", "tools": [tool]})
    function: dict[str, Any] = chat["tools"][0]["function"]
    return function


@pytest.mark.parametrize(
    ("syntax", "definition", "says"),
    [
        ("lark", LARK, "must follow this Lark grammar:"),
        ("regex", r"^\d{4}-\d{2}-\d{2}$", "must match this regular expression:"),
    ],
)
def test_a_grammar_follows_the_description(syntax: str, definition: str, says: str) -> None:
    fmt = {"type": "grammar", "syntax": syntax, "definition": definition}
    tool = {"type": "custom", "name": "t", "description": "Edit files.", "format": fmt}
    description = shown(tool)["description"]
    head, told = description.split("\n\n", 1)
    assert head == "Edit files."
    assert says in told and f"\n```\n{definition}\n```" in told
    assert "one JSON argument, `input`" in told  # the wrapper is the router's


def test_a_grammar_without_a_description_is_the_description() -> None:
    fmt = {"type": "grammar", "syntax": "lark", "definition": LARK}
    description = shown({"type": "custom", "name": "t", "format": fmt})["description"]
    assert description.startswith("Call it with one JSON argument") and LARK in description


@pytest.mark.parametrize(
    "fmt",
    [{"type": "text"}, {}, None, {"type": "grammar", "syntax": "lark", "definition": " "}],
)
def test_a_tool_without_a_grammar_keeps_its_description(fmt: Any) -> None:
    """Free text (OpenAI's default format) has nothing to tell."""
    tool = {"type": "custom", "name": "t", "description": "Run it.", "format": fmt}
    assert shown(tool)["description"] == "Run it."
    assert "description" not in shown({"type": "custom", "name": "t", "format": fmt})


def test_a_function_tools_description_is_its_own() -> None:
    """Only a custom tool's format is told: a function's parameters say its shape."""
    fmt = {"type": "grammar", "syntax": "lark", "definition": LARK}
    tool = {"type": "function", "name": "f", "description": "F.", "format": fmt}
    assert shown(tool)["description"] == "F."


def test_a_long_grammar_is_cut_saying_so() -> None:
    """Every request carries the description: a grammar past the bound is cut, not sent."""
    definition = "rule: " + "x" * (MAX_DEFINITION_CHARS * 3)
    told = described("d", {"type": "grammar", "syntax": "lark", "definition": definition})
    assert told is not None
    assert definition[:MAX_DEFINITION_CHARS] in told and definition not in told
    assert f"of its {len(definition):,} characters" in told
    assert len(told) < MAX_DEFINITION_CHARS + 1_000
