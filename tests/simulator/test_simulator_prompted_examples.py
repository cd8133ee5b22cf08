"""JSON asked for by example is answered with an object of the example's shape.

Open WebUI 0.12.4's background tasks ask for JSON by example, not by schema: "JSON format:
{ "title": "your concise title here" }", `{ "tags": ["tag1", "tag2", "tag3"] }`,
`{ "follow_ups": [...] }`, "Strictly return in JSON format: { "queries": [...] }". The
simulator answered prose or a Python block, so in demo mode every chat's title stayed its
first message and no chat got tags or follow-ups (found in a live review). The bodies are the
ones it sent (`tests/fixtures/open-webui-0.12.4.md`), through the official SDK; the answer is
read as Open WebUI reads it, the key it asked for out of the JSON.

An example counts only where a schema would (`lead_in.introduced`): the sentence leading
into it asks for the answer in JSON, it names no tool, and the prompt frames its answer in no
text format of its own (ReAct's `Action Input:`, DSPy's `[[ ## field ## ]]`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import openai
import pytest

from router.simulator import SimThread
from router.simulator.prompted import asked_json

MODEL = "tiny"
FIXTURES = Path(__file__).parents[1] / "fixtures" / "open-webui-0.12.4"
ASKED = {"title.json": "title", "tags.json": "tags", "follow-ups.json": "follow_ups"}
ASKED |= {"queries.json": "queries"}
SCHEMA = json.dumps(
    {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
)


def captured(name: str) -> dict[str, Any]:
    return dict(json.loads((FIXTURES / name).read_text(encoding="utf-8"))) | {"model": MODEL}


def ask(sdk: openai.OpenAI, content: str, system: str = "") -> str:
    messages: list[Any] = [{"role": "system", "content": system}] if system else []
    messages.append({"role": "user", "content": content})
    reply = sdk.chat.completions.create(model=MODEL, messages=messages)
    return reply.choices[0].message.content or ""


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
@pytest.mark.parametrize("name", ASKED)
def test_open_webuis_tasks_get_an_object_of_the_examples_shape(
    start_sim: Callable[..., SimThread], profile: str, name: str
) -> None:
    """The whole content is the JSON object (the title's prompt wants no fence or text
    around it) with the example's one key: a title a short string, tags, follow-ups and
    queries two or three strings. The same body gets the same answer."""
    sdk = openai.OpenAI(base_url=start_sim(profile=profile).url + "/v1", api_key="x")
    body, key = captured(name), ASKED[name]
    content = sdk.chat.completions.create(**body).choices[0].message.content or ""
    answer = json.loads(content)
    assert list(answer) == [key]
    value = answer[key]
    if key == "title":
        assert isinstance(value, str) and 0 < len(value.split()) <= 4
    else:
        assert isinstance(value, list) and 2 <= len(value) <= 3
        assert all(isinstance(item, str) and item for item in value)
    assert sdk.chat.completions.create(**body).choices[0].message.content == content


def test_an_examples_values_keep_their_types(start_sim: Callable[..., SimThread]) -> None:
    """Strings are the simulator's own (an example's are placeholders), numbers, booleans
    and null as shown, arrays two or three of their first item's shape, objects by their
    keys; in a ```json fence where the prompt asks for a code block."""
    sdk = openai.OpenAI(base_url=start_sim().url + "/v1", api_key="x")
    example = {"name": "your name", "age": 3, "ok": False, "note": None}
    example |= {"tags": ["a"], "where": {"city": "somewhere", "rooms": [{"n": 1.5}]}}
    content = ask(sdk, f"Answer in JSON like this: {json.dumps(example)}")
    answer = json.loads(content)
    assert list(answer) == list(example) and list(answer["where"]) == ["city", "rooms"]
    assert isinstance(answer["name"], str) and answer["name"] != "your name"
    assert (answer["age"], answer["ok"], answer["note"]) == (3, False, None)
    assert 2 <= len(answer["tags"]) <= 3 and all(isinstance(t, str) for t in answer["tags"])
    assert all(room == {"n": 1.5} for room in answer["where"]["rooms"])
    fenced = ask(sdk, 'Reply with JSON in a ```json code block, like {"title": "x"}')
    assert fenced.startswith("```json\n{") and set(json.loads(fenced[8:-4])) == {"title"}


def test_an_example_not_asked_for_gets_the_usual_answer(
    start_sim: Callable[..., SimThread],
) -> None:
    """An object that no sentence asking for the answer in JSON introduces (a question
    about some JSON) is answered as before: the coding rule's Python block here."""
    sdk = openai.OpenAI(base_url=start_sim().url + "/v1", api_key="x")
    content = ask(sdk, 'Write a Python function that reads {"title": "x"} from a JSON file.')
    assert content.startswith("Here is a solution:")


@pytest.mark.parametrize(
    "content",
    [
        'Explain what this JSON response means: {"error": "not_found", "code": 404}',
        'Format this JSON nicely: {"name": "Alice", "tags": ["a", "b"]}',
        'Fix this JSON output: {"name": "Alice", "age": 3}',
        'Parse the JSON output of my script: {"ok": true, "count": 2}',
    ],
)
def test_json_the_user_shows_is_no_example_of_the_answer(
    start_sim: Callable[..., SimThread], content: str
) -> None:
    """ "response" and "output" as nouns, and a sentence asking something be done to the JSON
    shown (explain, format, fix, parse), ask for no answer in JSON: the simulator answered
    `{"error": "Its request", "code": 404}`, and "Format this JSON nicely" with its values
    replaced by words (found in review). The answer is the usual one, not a JSON object."""
    sdk = openai.OpenAI(base_url=start_sim().url + "/v1", api_key="x")
    answer = ask(sdk, content)
    assert not answer.lstrip().startswith("{"), answer


@pytest.mark.parametrize(
    "lead",
    [
        "Output as JSON:",
        "Format your answer as JSON, like",
        "Your response must be a JSON object such as",
        "Parse the invoice and output JSON:",
        "### Output:\nJSON format:",
    ],
)
def test_asking_for_the_answer_in_json_is_read_in_its_forms(
    start_sim: Callable[..., SimThread], lead: str
) -> None:
    """The answer asked for in JSON: by "output" as a verb, the answer named as the model's
    ("your answer", "your response must be"), a template's "JSON format:" heading; the
    sentence may parse something else first."""
    sdk = openai.OpenAI(base_url=start_sim().url + "/v1", api_key="x")
    answer = json.loads(ask(sdk, f'{lead} {{"title": "your title"}}'))
    assert list(answer) == ["title"] and isinstance(answer["title"], str)


@pytest.mark.parametrize(
    "example",
    [
        {"items": ["first item", "second item"]},
        {"properties": ["colour", "size"], "title": "a title"},
        {"required": ["name"], "type": "person"},
    ],
)
def test_an_example_may_use_a_schemas_key_names(
    start_sim: Callable[..., SimThread], example: dict[str, Any]
) -> None:
    """An object is a schema by its structure (a JSON type's name for "type", schemas under
    "properties" or "items"), not by a key schemas use too: `Respond in JSON format:
    { "items": [...] }` got prose, "items" taken for a schema's keyword (found in review)."""
    sdk = openai.OpenAI(base_url=start_sim().url + "/v1", api_key="x")
    answer = json.loads(ask(sdk, f"Respond in JSON format: {json.dumps(example)}"))
    assert list(answer) == list(example)
    listed = next(key for key in example if isinstance(example[key], list))
    assert 2 <= len(answer[listed]) <= 3 and all(isinstance(i, str) for i in answer[listed])


def test_only_an_example_the_ask_leads_into_is_the_answers() -> None:
    """A tool's example and one in a prompt framing its answer in text (ReAct, DSPy) are
    passed over; an object holding a schema's keywords is no example; a schema asked for
    in either text comes before an example in either."""
    example = '{"title": "your title"}'
    found = asked_json(f"JSON format: {example}", "")
    assert found is not None and found.schema is None and found.example == {"title": "your title"}
    for lead in ("Write the tool arguments in JSON like:", "Which keys does"):
        assert asked_json(f"{lead} {example}", "") is None
    react = f"Thought: I need a tool.\nAction: search\nAction Input: {example}"
    assert asked_json(f"Respond in JSON: {example}", react) is None
    dspy = f"[[ ## title ## ]]\n{{title}}\n\n[[ ## completed ## ]]\nRespond in JSON: {example}"
    assert asked_json(dspy, "") is None
    assert asked_json('Respond in JSON: {"items": ["a"], "type": "array"}', "") is None
    schema_asked = asked_json(f"Respond in JSON: {example}", f"Respond in JSON: {SCHEMA}")
    assert schema_asked is not None and schema_asked.schema == json.loads(SCHEMA)


def test_the_scan_for_an_example_is_bounded() -> None:
    """A text that mentions JSON is read for examples within the schema scan's bounds:
    64 decoded objects, failed decodes charged the rest of the text against four times
    its length, 256 KiB."""
    example = 'Respond in JSON: {"title": "x"}'
    assert asked_json(example, "") is not None
    assert asked_json('{"a": [1, 2]} ' * 64 + example, "") is None  # past its 64 tries
    unclosed = '{"k": [' + "1, " * 5_000
    assert asked_json(unclosed * 10 + example, "") is None  # past its budget
    assert asked_json(unclosed * 3 + example, "") is not None
    assert asked_json(" " * 300_000 + example, "") is None  # past its length
