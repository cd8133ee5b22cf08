"""A string field's name hints at its value by its words, not by letters inside one.

The hints (`scalars.STRING_HINTS`: `city` → "Paris", `path` → a file's path, ...) were found
anywhere in a field's name: `velocity` and `capacity` got "Paris", `allocation` "Paris,
France", `profile` "src/main.py", `candidate` a date and `community` "celsius" (found in
review). A name's words (snake, kebab and camel case split) that start with a hint keep it:
`file_path`, `filename`, `emailAddress`, `commands`. A city or location field's name reaches
the place the ask names as written: lower-cased, `homeCity` was one word, no city's, and got
"Paris" whatever the ask named. Through the official openai SDK, a real socket, the simulator.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from router.simulator import SimThread
from tests.simulator.calls import client, only_call

MODEL = "tiny"
# fields whose names hold a hint's letters inside a longer word, and one that holds none
INSIDE = ("velocity", "capacity", "allocation", "profile", "candidate", "community")
PLAIN = "value"
# fields whose words start with a hint, and what each gets where the ask names no place
HINTED = {
    "city": "Paris",
    "homeCity": "Paris",
    "cityname": "Paris",
    "location": "Paris, France",
    "userLocation": "Paris, France",
    "file_path": "src/main.py",
    "filename": "src/main.py",
    "path": "src/main.py",
    "websiteURL": "https://example.com",
    "emailAddress": "user@example.com",
    "start_date": "2026-01-15",
    "temperature_unit": "celsius",
    "commands": "ls -la",
}


def fields_tool(fields: list[str]) -> dict[str, Any]:
    """A `set_values` tool whose `fields` are all required plain strings."""
    properties = {field: {"type": "string"} for field in fields}
    parameters = {"type": "object", "properties": properties, "required": fields}
    return {"type": "function", "function": {"name": "set_values", "parameters": parameters}}


def arguments(sim: SimThread, fields: list[str], ask: str) -> dict[str, Any]:
    messages: Any = [{"role": "user", "content": ask}]
    tools: Any = [fields_tool(fields)]
    reply = client(sim).chat.completions.create(model=MODEL, messages=messages, tools=tools)
    return only_call(reply)[1]


def test_a_hint_inside_a_longer_word_gives_nothing(start_sim: Callable[..., SimThread]) -> None:
    """Each gets what a field with no hint gets: the prompt's first words."""
    given = arguments(start_sim(), [*INSIDE, PLAIN], "Set them for the office.")
    assert {field: given[field] for field in INSIDE} == dict.fromkeys(INSIDE, given[PLAIN])


def test_a_word_starting_with_a_hint_keeps_it(start_sim: Callable[..., SimThread]) -> None:
    assert arguments(start_sim(), list(HINTED), "Set them for the office.") == HINTED


@pytest.mark.parametrize(
    ("field", "place"),
    [
        ("homeCity", "Lisbon"),
        ("destinationCity", "Lisbon"),
        ("homeLocation", "Lisbon, Portugal"),
        ("Cityname", "Lisbon"),
    ],
)
def test_a_camel_case_place_field_takes_the_asked_place(
    start_sim: Callable[..., SimThread], field: str, place: str
) -> None:
    given = arguments(start_sim(), [field], "What's the weather in Lisbon, Portugal?")
    assert given == {field: place}
