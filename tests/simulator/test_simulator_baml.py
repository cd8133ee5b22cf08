"""BAML's output-format block is answered with a JSON value of the type it shows
(`router.simulator.baml_schema`).

BAML (baml-py 0.226.3) parses a typed function's reply against the type its prompt shows
("Answer in JSON using this schema:\\n{\\n  title: string,\\n  lines: string[],\\n}"); the
simulator answered prose, and every typed function failed with BamlValidationError in demo
mode (found in a live review; the bodies are `tests/fixtures/baml-py-0.226.3/`). Each answer
is checked against the JSON schema the BAML class stands for, as BAML's parser would take it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import jsonschema
import openai
import pytest

from router.simulator import SimThread
from router.simulator.baml_schema import baml_schema
from tests import recorded

FIXTURES = recorded.FIXTURES / "baml-py-0.226.3"
STRINGS = {"type": "array", "items": {"type": "string"}}


def obj(**fields: Any) -> dict[str, Any]:
    """A JSON schema of an object with these fields, all required, no others."""
    return {
        "type": "object",
        "properties": fields,
        "required": list(fields),
        "additionalProperties": False,
    }


CLASSES = {
    "extract-resume.json": obj(name={"type": "string"}, email={"type": "string"}, skills=STRINGS),
    "review-code.json": obj(bugs=STRINGS, fixed_code={"type": "string"}),
    "solve-math.json": obj(steps=STRINGS, answer={"type": "number"}),
    "math-no-role.json": obj(steps=STRINGS, answer={"type": "number"}),
    "poem-no-role.json": obj(title={"type": "string"}, lines=STRINGS),
    "poem-user.json": obj(title={"type": "string"}, lines=STRINGS),
    "classify-review.json": obj(
        label={"enum": ["positive", "negative", "neutral"]}, reason={"type": "string"}
    ),
}


def answer(sim: SimThread, body: dict[str, Any]) -> str:
    sdk = openai.OpenAI(base_url=sim.url + "/v1", api_key="x", max_retries=0)
    reply = sdk.chat.completions.create(**(body | {"model": "tiny"}))
    return reply.choices[0].message.content or ""


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
@pytest.mark.parametrize("name", sorted(CLASSES))
def test_a_typed_function_gets_its_class(
    start_sim: Callable[..., SimThread], name: str, profile: str
) -> None:
    """Bare JSON, valid against the class the prompt shows, in a system or a user message."""
    body = recorded.body(FIXTURES / name)
    jsonschema.validate(json.loads(answer(start_sim(profile=profile), body)), CLASSES[name])


@pytest.mark.parametrize(
    ("block", "schema"),
    [
        ("Answer with a JSON Array using this schema:\nstring[]", STRINGS),
        (
            "Answer with a JSON Array using this schema:\n"
            "[\n  {\n    a: int,\n    b: bool,\n  }\n]",
            {"type": "array", "items": obj(a={"type": "integer"}, b={"type": "boolean"})},
        ),
        ("Answer as an int", {"type": "integer"}),
        ("Answer as a float", {"type": "number"}),
        (
            "Answer with any of the categories:\nColor\n----\n- Red\n- Green",
            {"enum": ["Red", "Green"]},
        ),
        (
            "Answer in JSON using this schema:\n{\n  // the note\n  note: string or null,\n"
            "  tags: map<string, int>,\n  inner: {\n    x: 'a' or 'b',\n  },\n}",
            {
                "type": "object",
                "properties": {
                    "note": {"type": ["string", "null"]},
                    "tags": {"type": "object", "additionalProperties": {"type": "integer"}},
                    "inner": obj(x={"enum": ["a", "b"]}),
                },
                "required": ["tags", "inner"],
                "additionalProperties": False,
            },
        ),
    ],
)
def test_each_kind_of_block_gets_its_type(
    start_sim: Callable[..., SimThread], block: str, schema: dict[str, Any]
) -> None:
    """An array, a primitive, an enum's categories, an object of optional, map, nested and
    literal fields: answered with a value of that type."""
    body = {"messages": [{"role": "system", "content": f"Summarize the news.\n{block}"}]}
    jsonschema.validate(json.loads(answer(start_sim(), body)), schema)


def test_text_without_bamls_prefix_shows_no_type() -> None:
    assert baml_schema("Write a poem.\n{\n  title: string,\n}") is None
    assert baml_schema("Answer in JSON using this schema:\n{\n  title string\n}") is None


def test_an_enums_values_end_where_its_block_ends() -> None:
    """The words after the categories' block are the prompt's, not values (the simulator's
    own copy of the block's search read on to the text's end)."""
    prompt = (
        "Classify the review.\n\nAnswer with any of the categories:\nSentiment\n----\n"
        "- POSITIVE\n- NEGATIVE\n\nExamples:\n- not a category: foo"
    )
    assert baml_schema(prompt) == {"enum": ["POSITIVE", "NEGATIVE"]}
