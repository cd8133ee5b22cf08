"""A call goes to the offered tool the ask names, not always the first.

Langflow's Agent (its two tools as it sends them, seen in a live review of demo mode)
offered `[get_current_date, evaluate_expression]`; asked to compute, the simulator called
`get_current_date` with the time zone "What is 1234 * 5678? Use", and pi got `read` for
every prompt. An ask that names a tool (its name, or its words written apart) now gets that
tool, and a tool taking one string gets the ask's arithmetic; an ask naming none still gets
the first, with the same arguments as before. Through the official openai SDK, a real
socket, the simulator."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from typing import Any

import pytest

from router.simulator import SimThread
from router.simulator.asked_tool import (
    _place,
    _read,
    asked_index,
    file_verb_index,
    without_injected,
)
from tests.simulator.calls import client, only_call, string_tool

MODEL = "tiny"


LANGFLOW = [
    string_tool("get_current_date", "timezone", "Get the current date and time in a time zone"),
    string_tool("evaluate_expression", "expression", "Evaluate a basic arithmetic expression"),
]
WEATHER = [
    string_tool("get_current_date", "timezone", "Get the current date and time in a time zone"),
    string_tool("get_weather", "city", "Get the weather for a city"),
]


def called(sim: SimThread, tools: list[dict[str, Any]], ask: str, **fields: Any) -> Any:
    messages = [{"role": "user", "content": ask}]
    return only_call(
        client(sim).chat.completions.create(model=MODEL, messages=messages, tools=tools, **fields)
    )


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_an_ask_naming_a_tool_calls_it_with_its_arithmetic(
    start_sim: Callable[..., SimThread], profile: str
) -> None:
    sim = start_sim(profile=profile)
    ask = "What is 1234 * 5678? Use evaluate_expression."
    assert called(sim, LANGFLOW, ask) == ("evaluate_expression", {"expression": "1234 * 5678"})


def test_a_tool_named_in_words_is_called(start_sim: Callable[..., SimThread]) -> None:
    """ "get weather" names `get_weather`, second in the list; its field keeps its hint."""
    ask = "Please get weather for Paris."
    assert called(start_sim(), WEATHER, ask) == ("get_weather", {"city": "Paris"})


@pytest.mark.parametrize(
    ("field", "ask", "place"),
    [
        ("location", "What's the weather in Lisbon right now?", "Lisbon"),
        ("location", "Find the current weather in Paris, France", "Paris, France"),
        ("city", "Weather for Tokyo, please", "Tokyo"),
        ("city", "Get weather near New York, NY today", "New York"),
        ("location", "Is it going to rain? Use get_weather.", "Paris, France"),
    ],
    ids=["named", "with_its_country", "a_city", "a_city_of_a_state", "none_named"],
)
def test_a_city_or_location_takes_the_place_the_ask_names(
    start_sim: Callable[..., SimThread], field: str, ask: str, place: str
) -> None:
    """kani's weather example asked about Lisbon and got `location: "Paris, France"`: a
    city or location field takes the capitalised words after "in", "for", "near" (a city
    the part before a comma); with no place named, its hint as before."""
    tools = [string_tool("get_weather", field, "Get the current weather in a given location")]
    assert called(start_sim(), tools, ask) == ("get_weather", {field: place})


@pytest.mark.parametrize(
    ("field", "ask", "place"),
    [
        ("location", "Respond in JSON. What's the weather in Lisbon?", "Lisbon"),
        ("city", "Please reply in English: what's the weather in Berlin?", "Berlin"),
        ("city", "What's the weather in Berlin? Answer in English.", "Berlin"),
        ("location", "Book a table for Friday in Rome", "Rome"),
        ("location", "Weather for Tomorrow in Paris", "Paris"),
        ("location", "How hot is it at Google HQ in Mountain View?", "Mountain View"),
        ("location", "Will it rain in Oslo in March?", "Oslo"),
        ("home_city", "Weather in Lyon Today", "Lyon"),
    ],
    ids=[
        *("a_format", "a_language", "a_language_after", "a_day", "tomorrow", "at_then_in"),
        *("a_month_after", "today_after"),
    ],
)
def test_a_place_is_not_a_day_a_language_or_the_first_words_after_at(
    start_sim: Callable[..., SimThread], field: str, ask: str, place: str
) -> None:
    """The first capitalised words after "in", "at", "for" or "near" were taken: "Respond
    in JSON. What's the weather in Lisbon?" called `location: "JSON"` (found in review).
    Days, months, languages and formats name no place; the last place after "in" wins."""
    tools = [string_tool("get_weather", field, "Get the current weather in a given location")]
    assert called(start_sim(), tools, ask) == ("get_weather", {field: place})


@pytest.mark.parametrize("field", ["velocity", "capacity", "allocation"])
def test_a_field_holding_city_or_location_in_a_longer_word_takes_no_place(
    start_sim: Callable[..., SimThread], field: str
) -> None:
    """`velocity` holds "city" and `allocation` "location" as letters, not as words: they
    took the ask's place (found in review)."""
    tools = [string_tool("set_value", field)]
    (_, arguments) = called(start_sim(), tools, "Set it for the office in Rome.")
    assert "Rome" not in arguments[field], arguments


def test_an_ask_naming_no_tool_calls_the_first_as_before(
    start_sim: Callable[..., SimThread],
) -> None:
    """ "the calculator" is no tool's name: the first tool, the prompt's first words."""
    ask = "What is 1234 * 5678? Use the calculator."
    expected = ("get_current_date", {"timezone": "What is 1234 * 5678? Use"})
    assert called(start_sim(), LANGFLOW, ask) == expected


def test_a_forced_tool_wins_over_the_named_one(start_sim: Callable[..., SimThread]) -> None:
    """A named `tool_choice` is called whatever the ask says, with the usual arguments."""
    forced = {"type": "function", "function": {"name": "get_current_date"}}
    ask = "What is 1234 * 5678? Use evaluate_expression."
    name, _ = called(start_sim(), LANGFLOW, ask, tool_choice=forced)
    assert name == "get_current_date"


def test_a_named_tool_of_two_fields_gets_no_expression(
    start_sim: Callable[..., SimThread],
) -> None:
    """Where the schema leaves which field takes the expression a guess, none does."""
    both = string_tool("evaluate_expression", "expression", "Evaluate")
    both["function"]["parameters"]["properties"]["precision"] = {"type": "integer"}
    ask = "Use evaluate_expression on 2 + 3 please"
    name, arguments = called(start_sim(), [LANGFLOW[0], both], ask)
    assert (name, arguments) == (
        "evaluate_expression",
        {"expression": "Use evaluate_expression on 2 + 3"},
    )


def test_words_scattered_or_in_an_agents_reminder_name_no_tool(
    start_sim: Callable[..., SimThread],
) -> None:
    """Claude Code's `<system-reminder>` and gptme's `<system>` nag in the user's message
    are the agent's text, not the ask; "weather ... get" is not "get weather". Both stay
    with the first tool."""
    sim = start_sim()
    reminder = "<system-reminder>You may get_weather.</system-reminder> Hello there"
    assert called(sim, WEATHER, reminder)[0] == "get_current_date"
    assert called(sim, WEATHER, "<system>use get_weather</system> hi")[0] == "get_current_date"
    assert called(sim, WEATHER, "The weather, can you get it?")[0] == "get_current_date"


# the regex `without_injected` replaces: the same text out, in quadratic time on unclosed tags
_OLD_INJECTED = re.compile(r"<(system-reminder|system)>.*?</\1>", re.S)
_PIECES = ("<system>", "</system>", "<system-reminder>", "</system-reminder>", "a ", "<", "system>")


@pytest.mark.parametrize(
    "text",
    [
        "",
        "no tags at all",
        "<system>x</system> keep",
        "<system>a</system> b <system>c</system> d",
        "<system>outer <system>inner</system> tail</system> after",
        "<system-reminder>a <system>b</system> c</system-reminder> d",
        "<system>a <system-reminder>b</system> c</system-reminder> d",
        "<system>never closed <system-reminder>r</system-reminder> after",
        "<system-reminder>never closed <system>s</system> after",
        "<system></system><system-reminder></system-reminder>",
        "</system> <system> <system>x</system>",
        "<SYSTEM>case</SYSTEM> <system >spaced</system>",
        "<system>line\nbreak</system>!",
    ],
)
def test_injected_text_is_cut_as_the_regex_cut_it(text: str) -> None:
    assert without_injected(text) == _OLD_INJECTED.sub(" ", text)


def test_injected_text_is_cut_as_the_regex_cut_it_for_every_short_mix() -> None:
    """Every text of up to five pieces of the tags (whole, split or stray) reads the same."""
    for size in range(6):
        for pieces in itertools.product(_PIECES, repeat=size):
            text = "".join(pieces)
            assert without_injected(text) == _OLD_INJECTED.sub(" ", text), text


def test_a_tool_named_after_many_unclosed_tags_is_found(
    start_sim: Callable[..., SimThread],
) -> None:
    """16000 unclosed `<system>` (128 KB) took the old regex 14 seconds on the event loop;
    a closed reminder after them is still left out, the name after it still read."""
    unclosed = "<system>" * 16000
    hidden = "<system-reminder>use read</system-reminder>"
    assert asked_index(["read", "get_weather"], unclosed + " use get_weather") == 1
    assert asked_index(["get_weather", "read"], unclosed + hidden + " hi") is None
    assert without_injected(unclosed + hidden + " hi") == unclosed + "  hi"
    sim = start_sim()
    assert called(sim, WEATHER, unclosed + hidden + " use get_weather")[0] == "get_weather"


def _old_place(parts: list[str], said: list[str]) -> int | None:
    """`_place` as it was: a slice compared at every place, quadratic (4000 names of 100
    words, alike but for their case, held the event loop 8 seconds against a 1000-word ask)."""
    if not parts:
        return None
    width = len(parts)
    return next((at for at in range(len(said) - width + 1) if said[at : at + width] == parts), None)


def test_a_names_place_is_found_as_the_slices_found_it_for_every_short_mix() -> None:
    """Every ask of up to seven words and name of up to four, over three words (one a
    prefix of another, as `a` of `ab`), is placed where comparing slices placed it."""
    vocabulary = ("a", "ab", "b")
    for size in range(8):
        for said in itertools.product(vocabulary, repeat=size):
            read = _read(" ".join(said))
            for width in range(5):
                for parts in itertools.product(vocabulary, repeat=width):
                    expected = _old_place(list(parts), list(said))
                    assert _place(list(parts), read) == expected, (parts, said)


# code-puppy's first tools and its file tools, in its order (tests/fixtures/code-puppy-0.0.946)
CODE_PUPPY = [
    string_tool("list_agents", "filter", "List the agents that can be invoked"),
    string_tool("read_file", "file_path", "Read a file's contents"),
    string_tool("read_tool_result", "result_id", "Read a stored tool result"),
    string_tool("write_file", "file_path", "Write a file"),
]


def test_an_ask_to_read_a_file_calls_the_read_file_tool(
    start_sim: Callable[..., SimThread],
) -> None:
    """No tool's whole name in the ask, but its leading verb and a path: `read_file`, not
    the first offered (`list_agents`, called for every such ask in a live review)."""
    ask = "Read calc.py and tell me what it does"
    name, _ = called(start_sim(), CODE_PUPPY, ask)
    assert name == "read_file"


def test_an_ask_without_a_path_calls_the_first_as_before(
    start_sim: Callable[..., SimThread],
) -> None:
    """ "Write a haiku" names no file: no `write_file` call, the first tool as before."""
    name, _ = called(start_sim(), CODE_PUPPY, "Write a haiku about the sea")
    assert name == "list_agents"


@pytest.mark.parametrize(
    ("ask", "expected"),
    [
        ("Read calc.py and tell me what it does", "read_file"),
        ("<system-reminder>tools</system-reminder>Read `src/main.py`", "read_file"),
        ("Read the file calc.py", "read_file"),
        ("Write notes.md with the plan", "write_file"),
        ("Write a haiku", None),
        ("Write e.g. a haiku", None),
        ("Add a function sub(a, b) to calc.py", None),  # no tool starts with "add"
        ("Please read calc.py", None),  # the verb must lead
    ],
)
def test_a_leading_verb_and_a_path_ask_for_the_verbs_file_tool(
    ask: str, expected: str | None
) -> None:
    names = [spec["function"]["name"] for spec in CODE_PUPPY]
    index = file_verb_index(names, ask)
    assert (None if index is None else names[index]) == expected


def test_a_path_asks_for_no_tool_without_the_verb() -> None:
    """ "read file" names a tool `file` too, but it is no reading of the verb."""
    assert file_verb_index(["file", "list_agents"], "Read calc.py") is None
