"""JSON asked for in the prompt is answered with an instance of the schema the prompt holds.

instructor 1.17.0's JSON, MD_JSON and ANTHROPIC_JSON modes send no schema field: the schema
is in the system prompt ("As a genius expert, ... json that match the following
json_schema:"), JSON mode adds `response_format: json_object`, MD_JSON asks for "the correct
JSON response within a ```json codeblock". The simulator answered `{"answer": …}`, prose or a
Python block, and every call ended in `InstructorRetryException` (found in a live review of
demo mode). instructor itself is not a test dependency: 1.17.0 requires `jiter<0.15`, which
holds openai below the project's (3.57 needs jiter 0.19), so the bodies are the ones it sent
(`tests/fixtures/instructor-1.17.0.md`), through the official SDKs, and the answers are
checked as instructor checks them, with the pydantic models that wrote the schemas, and
against the schemas with jsonschema.

A tool's schema in a prompt is not the answer's: taking any object schema with "json"
around it, the simulator answered LlamaIndex's ReActAgent (`Tool Args:`, "Action Input: ...
in a JSON format") and crewAI's ReAct prompts (`Tool Arguments:`) with the tool's arguments,
`{"a": 1, "b": 1}`, which LlamaIndex took for the agent's final answer (found in review;
`tests/fixtures/llama-index.md`, `crewai-1.15.30.md`)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import anthropic
import jsonschema
import openai
import pytest
from pydantic import BaseModel, Field

from router.simulator import SimThread
from router.simulator.prompted import asked_json, objects_in

MODEL = "tiny"
FIXTURES = Path(__file__).parents[1] / "fixtures" / "instructor-1.17.0"
REACT = [
    "llama-index/react-agent.json",
    "crewai-1.15.30/react.json",
    "crewai-1.15.30/react-after-tool.json",
    "crewai-1.15.30/react-force-final.json",
    "crewai-1.15.30/kickoff-react.json",
]
FENCE = re.compile(r"\A```json\n(.*)\n```\Z", re.S)


class User(BaseModel):
    name: str
    age: int


class Answer(BaseModel):
    reasoning: str
    speed_kmh: float


class Ticket(BaseModel):
    title: str
    priority: Literal["low", "medium", "high"]
    tags: list[str] = Field(default_factory=list)
    assignee: User | None = None


CHAT = {
    "json-user.json": User,
    "json-user-retry.json": User,
    "json-ticket.json": Ticket,
    "md-json-user.json": User,
    "md-json-user-retry.json": User,
    "md-json-ticket.json": Ticket,
}


def captured(name: str) -> dict[str, Any]:
    return dict(json.loads((FIXTURES / name).read_text(encoding="utf-8"))) | {"model": MODEL}


def sent_schema(body: dict[str, Any]) -> dict[str, Any]:
    """The schema instructor wrote into its system prompt, read by its own words."""
    system = body["system"][0]["text"] if "system" in body else body["messages"][0]["content"]
    return dict(json.loads(system.split("json_schema:", 1)[1].split("Make sure", 1)[0]))


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
@pytest.mark.parametrize("name", CHAT)
def test_instructors_chat_json_modes_get_an_instance(
    start_sim: Callable[..., SimThread], profile: str, name: str
) -> None:
    """JSON mode's content is the JSON itself; MD_JSON's first answer is in the fence its
    prompt asks for (a retry, whose latest turn asks for none, is bare JSON, which
    instructor's extraction reads too)."""
    sdk = openai.OpenAI(base_url=start_sim(profile=profile).url + "/v1", api_key="x")
    body, model = captured(name), CHAT[name]
    schema = sent_schema(body)
    assert schema == model.model_json_schema()
    content = sdk.chat.completions.create(**body).choices[0].message.content or ""
    fenced = FENCE.match(content)
    assert bool(fenced) == (name.startswith("md-json") and "retry" not in name)
    text = fenced.group(1) if fenced else content
    model.model_validate_json(text)
    jsonschema.validate(json.loads(text), schema)


@pytest.mark.parametrize("profile", ["vllm", "anthropic"])
@pytest.mark.parametrize("name", ["anthropic-json.json", "anthropic-json-stream.json"])
def test_instructors_anthropic_json_mode_gets_an_instance(
    start_sim: Callable[..., SimThread], profile: str, name: str
) -> None:
    """ANTHROPIC_JSON: the schema in Anthropic's `system` blocks; whole or streamed."""
    sdk = anthropic.Anthropic(base_url=start_sim(profile=profile).url, api_key="x")
    body = captured(name)
    schema = sent_schema(body)
    if body.pop("stream", False):
        with sdk.messages.stream(**body) as stream:
            text = stream.get_final_text()
    else:
        (block,) = sdk.messages.create(**body).content
        assert block.type == "text"
        text = block.text
    Answer.model_validate_json(text)
    jsonschema.validate(json.loads(text), schema)


def test_a_schema_without_an_ask_for_json_gets_the_usual_answer(
    start_sim: Callable[..., SimThread],
) -> None:
    """A schema in a prompt that asks for no JSON (a question about a schema) is not
    answered with an instance: the text answers it as before."""
    sdk = openai.OpenAI(base_url=start_sim().url + "/v1", api_key="x")
    schema = json.dumps(User.model_json_schema())
    ask = f"Which fields does {schema} require? Write a Python function that checks them."
    content = (
        sdk.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": ask}])
        .choices[0]
        .message.content
    )
    assert content is not None and content.startswith("Here is a solution:")


def schema_in(text: str) -> dict[str, Any] | None:
    """The first object schema the simulator's scan finds whole in `text` (`objects_in`),
    whether or not a sentence asks for it."""
    return next((value for value, _, _ in objects_in(text) if "properties" in value), None)


def test_the_scan_is_bounded() -> None:
    """Texts without `"properties"` are passed over; many openings that decode to nothing
    (or to no schema) end the scan within its tries, whatever follows them."""
    schema = User.model_json_schema()
    assert schema_in(f"json please: {json.dumps(schema)}") is not None
    assert schema_in(json.dumps(schema).replace('"properties"', '"props"')) is None
    assert schema_in('{"a": 1} ' * 64 + json.dumps(schema)) is None  # past its 64 tries
    # each opening decodes to the end of the text and fails there: charged all of it, the
    # budget (four times the text) is spent before the schema, the eleventh
    unclosed = '{"k": [' + "1, " * 5_000
    assert schema_in(unclosed * 10 + json.dumps(schema)) is None
    assert schema_in(unclosed * 3 + json.dumps(schema)) is not None  # within the budget
    assert schema_in(" " * 300_000 + json.dumps(schema)) is None  # past its length


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
@pytest.mark.parametrize("name", REACT)
def test_a_react_prompts_tool_schema_is_not_the_answer(
    start_sim: Callable[..., SimThread], profile: str, name: str
) -> None:
    """The answer to a ReAct prompt is the one its ask gets with no tools listed at all
    (prose here), not JSON of a tool's arguments."""
    sdk = openai.OpenAI(base_url=start_sim(profile=profile).url + "/v1", api_key="x")
    body = json.loads((FIXTURES.parent / name).read_text(encoding="utf-8")) | {"model": MODEL}
    assert schema_in(body["messages"][0]["content"]) is not None  # the tool's, in the system
    content = sdk.chat.completions.create(**body).choices[0].message.content or ""
    untold = [message for message in body["messages"] if message["role"] != "system"]
    alone = sdk.chat.completions.create(**body | {"messages": untold}).choices[0].message
    assert content == alone.content
    assert not content.lstrip().startswith(("{", "```"))


def test_only_a_schema_the_ask_leads_into_is_the_answers() -> None:
    """The sentence just before a schema must ask for the answer in JSON; a schema a tool
    listing introduces is passed over for one asked of after it, and a prompt framing its
    answer in fields of its own (DSPy's markers, as DSPy notes a typed output field's
    schema) is answered as before whatever it says of JSON."""
    schema = json.dumps(User.model_json_schema())
    tool = json.dumps(Answer.model_json_schema())
    asked = f"Respond with a JSON object matching this schema:\n```json\n{schema}\n```"
    assert asked_json(asked, "") is not None
    listed = f"Tools:\nget_speed: Get a speed.\nParameters: {tool}\n\nAnswer in JSON."
    assert asked_json(listed, "") is None
    found = asked_json("Extract the user.", f"{listed}\n\n{asked}")
    assert found is not None and found.schema == User.model_json_schema()
    for lead in ("Write the tool arguments in JSON that match:", "Which fields does"):
        assert asked_json(f"{lead} {schema}", "") is None
    dspy = (
        "Your output fields are:\n1. `user` (User):\nAll interactions will be structured in"
        " the following way, with the appropriate values filled in.\n\n[[ ## user ## ]]\n"
        f"{{user}}        # note: the value you produce must adhere to the JSON schema: {schema}"
        "\n\n[[ ## completed ## ]]"
    )
    assert asked_json("[[ ## question ## ]]\nWho is Jason?", dspy) is None
