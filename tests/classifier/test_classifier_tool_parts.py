"""An offered tool asked for by the parts of its name (`classifier.tool_parts`): griptape's
`<Tool>_<activity>` names, which no user types whole."""

from __future__ import annotations

from typing import Any

import pytest

from classifier import classify, explain
from classifier.tool_parts import name_parts

GRIPTAPE = ("CalculatorTool_calculate", "WebSearchTool_search", "DateTimeTool_get_current_datetime")


def chat(text: str, *names: str) -> dict[str, Any]:
    tools = [{"type": "function", "function": {"name": n, "description": "x"}} for n in names]
    return {"model": "auto", "messages": [{"role": "user", "content": text}], "tools": tools}


@pytest.mark.parametrize(
    ("ask", "part"),
    [
        ("What is 1234 * 5678? Use the calculator.", "calculator"),
        ("What is 1234 * 5678? Use the CalculatorTool", "calculator"),
        ("What is 1234 * 5678? Use the calculate tool.", "calculate"),
        ("Compute 1234 * 5678 with the `calculate` tool.", "calculate"),
        ("Please use the calculator to compute 1234 * 5678", "calculator"),
        ("Using the calculator, what is 1234 * 5678?", "calculator"),
        ("Use the web search to find the population of Oslo in 1900.", "web search"),
        ("Find Oslo's population in 1900 with the search tool.", "search"),
    ],
)
def test_a_griptape_tool_asked_for_by_its_names_part_is_tool_calling(ask: str, part: str) -> None:
    """Each ask was math 0.675 or the model's reading with griptape's tools offered: the
    whole-name phrase never matched `CalculatorTool_calculate` (found in a live review)."""
    body = chat(ask, *GRIPTAPE)
    assert (classify(body).label, classify(body).source) == ("tool_calling", "rule")
    assert explain(body)["rule"] == (
        f"tools offered and asks for an offered tool by its name's part: {part}"
    )


@pytest.mark.parametrize(
    ("ask", "names"),
    [
        # the part is no thing's whole name: a word goes on naming something else
        ("Use the search results above to write a summary of Oslo's history.", GRIPTAPE),
        ("Use the calculator app on my phone: why does it round 0.1 + 0.2?", GRIPTAPE),
        # no imperative: about the tool, not for it
        ("How do I use the calculator in Windows 11?", GRIPTAPE),
        # a name of no `Tool` word is asked for bare by none of its parts
        ("Use the final answer to write a one-line summary.", ("final_answer",)),
        # a generic part asks for nothing, with "tool" after it or not
        ("Use the list to count the vowels in 'banana'.", ("ListTool_list",)),
        ("Use the get tool to compute 2 + 2.", ("get",)),
        # a part an offered tool's name does not hold
        ("Use the hammer tool in Photoshop to sharpen the edges.", GRIPTAPE),
    ],
)
def test_a_names_part_outside_the_rules_phrase_is_no_rule(ask: str, names: tuple[str, ...]) -> None:
    """Parts are everyday words: only the rule's phrase, with the name ending it, asks for
    a tool by one."""
    rule = explain(chat(ask, *names))["rule"]
    assert rule is None or "part" not in rule, rule


@pytest.mark.parametrize(
    ("name", "with_tool", "bare"),
    [
        ("CalculatorTool_calculate", [("calculator",), ("calculate",)], [("calculator",)]),
        (
            "FileManagerTool_list_files_from_disk",
            [("file", "manager"), ("list", "files", "from", "disk")],
            [("file", "manager")],
        ),
        ("SQLTool_execute", [("sql",)], [("sql",)]),
        ("get_current_weather", [("get", "current", "weather")], []),
        ("get", [], []),
    ],
)
def test_a_names_parts_are_its_runs_between_tool_words(
    name: str, with_tool: list[tuple[str, ...]], bare: list[tuple[str, ...]]
) -> None:
    assert name_parts(name) == (with_tool, bare)
