"""An answer's shape described in pseudo-JSON under `response_format: json_object`, answered
with an object of that shape.

Taskmaster (`task-master-ai` 0.43.1) on its `--openai-compatible` provider sends, through the
Vercel AI SDK, `json_object` and no schema: parse-prd shows each task as `"id": number`,
`"dependencies": number[] (IDs of tasks this depends on)`, `"priority": "high" | "medium" |
"low"` and asks for "a JSON object with a "tasks" property containing an array of task
objects"; add-task shows `"dependencies": [array of numbers]` and an example with a `//
Example` comment. The simulator answered `{"answer": "..."}` and the AI SDK's schema check
failed every command in demo mode (found in a live review). The bodies are the ones it sent
(`tests/fixtures/task-master-ai-0.43.1.md`), through the official SDK; the answers are
checked against what Taskmaster's zod schemas ask (as its `json_schema` requests on the
`openai` provider showed them).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import openai
import pytest

from router.simulator import SimThread
from router.simulator.described import described_shapes
from router.simulator.field_lists import listed_fields
from router.simulator.prompted import asked_json
from tests import recorded

MODEL = "tiny"
TASKMASTER = recorded.loader(recorded.FIXTURES / "task-master-ai-0.43.1")
PROMPTFOO = recorded.loader(recorded.FIXTURES / "promptfoo-0.121.20")
TASK_KEYS = [
    "id",
    "title",
    "description",
    "status",
    "dependencies",
    "priority",
    "details",
    "testStrategy",
]
SUBTASK_KEYS = ["id", "title", "description", "dependencies", "details", "status", "testStrategy"]
NEW_TASK_KEYS = ["title", "description", "details", "testStrategy", "dependencies"]


def answer(sdk: openai.OpenAI, body: dict[str, Any]) -> Any:
    """The answer's JSON, as the AI SDK parses it (the whole content, no fence)."""
    content = sdk.chat.completions.create(**body | {"model": MODEL}).choices[0].message.content
    return json.loads(content or "")


def numbers(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(item, int | float) and not isinstance(item, bool) for item in value
    )


def filled(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_parse_prd_gets_a_tasks_array_of_the_described_objects(
    start_sim: Callable[..., SimThread], profile: str
) -> None:
    """`{"tasks": [...]}` and nothing else (its zod object is strict); each task has the
    described keys: a number id, number dependencies, a priority of the three, strings."""
    sdk = openai.OpenAI(base_url=start_sim(profile=profile).url + "/v1", api_key="x")
    body = TASKMASTER("parse-prd.json")
    assert body["response_format"] == {"type": "json_object"}
    got = answer(sdk, body)
    assert isinstance(got, dict) and list(got) == ["tasks"]
    assert isinstance(got["tasks"], list) and got["tasks"]
    for task in got["tasks"]:
        assert isinstance(task, dict) and list(task) == TASK_KEYS
        assert isinstance(task["id"], int | float) and not isinstance(task["id"], bool)
        assert numbers(task["dependencies"])
        assert task["priority"] in ("high", "medium", "low")
        assert task["status"] == "pending"
        assert all(filled(task[key]) for key in ("title", "description", "details"))
        assert filled(task["testStrategy"])


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_add_task_gets_the_described_object_itself(
    start_sim: Callable[..., SimThread], profile: str
) -> None:
    """ "no wrapper property, just these fields directly": the five fields, strings and
    `[array of numbers]` a list of numbers."""
    sdk = openai.OpenAI(base_url=start_sim(profile=profile).url + "/v1", api_key="x")
    got = answer(sdk, TASKMASTER("sim_add_task.json"))
    assert isinstance(got, dict) and list(got) == NEW_TASK_KEYS
    assert numbers(got["dependencies"]) and got["dependencies"]
    assert all(filled(got[key]) for key in NEW_TASK_KEYS[:-1])


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_expand_gets_a_subtasks_array_of_the_listed_fields(
    start_sim: Callable[..., SimThread], profile: str
) -> None:
    """The fields listed one a line, inside the "subtasks" array: an integer id, integer
    dependencies, "pending", and strings as long as its zod schema asks (details 20)."""
    sdk = openai.OpenAI(base_url=start_sim(profile=profile).url + "/v1", api_key="x")
    got = answer(sdk, TASKMASTER("sim_expand.json"))
    assert isinstance(got, dict) and list(got) == ["subtasks"]
    assert isinstance(got["subtasks"], list) and got["subtasks"]
    for subtask in got["subtasks"]:
        assert isinstance(subtask, dict) and list(subtask) == SUBTASK_KEYS
        assert isinstance(subtask["id"], int) and not isinstance(subtask["id"], bool)
        assert numbers(subtask["dependencies"])
        assert all(isinstance(item, int) for item in subtask["dependencies"])
        assert subtask["status"] == "pending"
        assert 5 <= len(subtask["title"]) <= 200 and len(subtask["description"]) >= 10
        assert len(subtask["details"]) >= 20 and filled(subtask["testStrategy"])


@pytest.mark.parametrize("name", ["llm-rubric-code.json", "llm-rubric-math.json"])
def test_promptfoos_grader_gets_its_described_verdict(
    start_sim: Callable[..., SimThread], name: str
) -> None:
    """promptfoo's `llm-rubric` (no `response_format`) asks "You respond with a JSON object
    with this structure: {reason: string, pass: boolean, score: number}": the verdict is
    that object, which promptfoo reads for `pass` and `score`."""
    sdk = openai.OpenAI(base_url=start_sim().url + "/v1", api_key="x")
    got = answer(sdk, PROMPTFOO(name))
    assert isinstance(got, dict) and list(got) == ["reason", "pass", "score"]
    assert filled(got["reason"]) and isinstance(got["pass"], bool)
    assert isinstance(got["score"], int | float) and not isinstance(got["score"], bool)


def test_pseudo_json_notations_read_as_a_schema() -> None:
    """Bare keys, type words quoted or not, `[]` after one, `|` alternatives (a null one
    passed over), comments, notes in parentheses, placeholders and a trailing comma; a
    quoted phrase is any string, a quoted word a value kept."""
    text = (
        "Respond with a JSON object of this shape:\n{\n  name: string, // the user's name\n"
        '  "age": integer (years),\n  "tags": string[],\n  "kind": "a" | "b",\n'
        '  "note": null | string,\n  "ok": boolean,\n  "title": "Your title here",\n'
        '  "scores": [number, ...],\n  "owner": {"id": "string",},\n  ...\n}'
    )
    found = asked_json(text, "")
    assert found is not None and found.schema is not None
    properties = found.schema["properties"]
    assert found.schema["required"] == list(properties)
    assert properties == {
        "name": {"type": "string"},
        "age": {"type": "integer"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "kind": {"type": "string", "enum": ["a"]},
        "note": {"type": "string"},
        "ok": {"type": "boolean"},
        "title": {"type": "string"},
        "scores": {"type": "array", "items": {"type": "number"}},
        "owner": {
            "type": "object",
            "properties": {"id": {"type": "string"}},
            "required": ["id"],
        },
    }


def test_a_described_shape_needs_an_ask_and_plain_json_is_not_read() -> None:
    """A described shape no sentence asks the answer in, and a shape wrapped in a property
    no sentence asks for, are passed over; plain JSON is left to the other forms."""
    shape = '{\n  "id": number,\n  "name": string\n}'
    assert asked_json(f"What does this JSON type mean?\n{shape}", "") is None
    assert asked_json(f"Each item follows this JSON structure:\n{shape}", "") is None
    wrapped = 'The "items" property containing an array of item objects is in the JSON.'
    assert asked_json(wrapped, f"Each item follows this JSON structure:\n{shape}") is None
    assert list(described_shapes('Reply in JSON: {"id": 1, "name": "x"}')) == []
    assert list(described_shapes("function f() { return x; }")) == []
    fields = "- name: the user's name\n- age: their age, an integer\n"
    assert asked_json(f"Tell me about JSON. The fields:\n{fields}", "") is None
    found = asked_json(f"Respond with a JSON object with these fields:\n{fields}", "")
    assert found is not None and found.schema is not None
    assert found.schema["properties"] == {"name": {"type": "string"}, "age": {"type": "integer"}}


@pytest.mark.parametrize(
    "lead",
    ["Each user should follow this JSON structure:", "Here is one task, written out:"],
    ids=["another_noun", "no_shape_named"],
)
def test_a_wrapper_holds_only_a_shape_whose_sentence_names_its_noun_and_a_shape(
    lead: str,
) -> None:
    """The "tasks" wrapper asked for, and a shape whose sentence names another noun, or
    names the task but no shape (`lead_in.names`): the shape is not put in the wrapper."""
    shape = '{\n  "id": number,\n  "name": string\n}'
    ask = 'Respond with a JSON object with a "tasks" property containing an array of task objects.'
    found = asked_json(ask, f"{lead}\n{shape}")
    assert found is None or "tasks" not in (found.schema or {}).get("properties", {})
    wrapped = asked_json(ask, f"Each task should follow this JSON structure:\n{shape}")
    assert wrapped is not None and wrapped.schema is not None
    assert list(wrapped.schema["properties"]) == ["tasks"]


def test_the_scan_is_bounded() -> None:
    """Many openings that read to nothing end the scan within its tries, and a block is
    read within its span, whatever follows."""
    shape = '{\n  "id": number\n}'
    assert len(list(described_shapes(shape))) == 1
    assert list(described_shapes('{"a": ' * 64 + shape)) == []  # past its 64 tries
    assert list(described_shapes('{"a": [' + "1, " * 5_000 + "number]}")) == []  # past the span
    assert list(described_shapes(" " * 300_000 + shape)) == []  # past its length


def test_a_list_longer_than_its_bound_is_one_object_of_the_first_fields() -> None:
    """70 field lines: one object of the first 64 fields, spanning the whole run; it was
    one of 64 and another of the last 6."""
    lines = "".join(f"- field{n}: an integer\n" for n in range(70))
    text = f"Respond with a JSON object with these fields:\n{lines}Thanks."
    found = list(listed_fields(text))
    assert len(found) == 1
    assert list(found[0].schema["properties"]) == [f"field{n}" for n in range(64)]
    assert text[found[0].start : found[0].end] == lines


@pytest.mark.parametrize(
    ("holds", "held"),
    [
        ('a single property named "task" containing the updated task object', "object"),
        ('a "task" property containing an array of task objects', "array"),
    ],
    ids=["one_object", "array"],
)
def test_a_wrapper_holds_one_object_or_an_array_as_its_sentence_says(holds: str, held: str) -> None:
    """Taskmaster's update-task wants "a single property named "task" containing the
    updated task object", its parse-prd an array of them: the shape is the property's value
    itself, or the items of an array of them (`described.Wrapper.array`)."""
    shape = '{\n  "id": number,\n  "title": string\n}'
    found = asked_json(
        f"Your response must be a JSON object with {holds}.",
        f"Each task should follow this JSON structure:\n{shape}",
    )
    task = {
        "type": "object",
        "properties": {"id": {"type": "number"}, "title": {"type": "string"}},
        "required": ["id", "title"],
    }
    value = task if held == "object" else {"type": "array", "items": task}
    assert found is not None
    assert found.schema == {"type": "object", "properties": {"task": value}, "required": ["task"]}
