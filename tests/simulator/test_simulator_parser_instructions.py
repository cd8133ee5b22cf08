"""LangChain's output parsers' format instructions are answered with an instance of their schema.

n8n 2.41.1's Information Extractor, Text Classifier, Sentiment Analysis and Basic LLM Chain
with a Structured Output Parser ask for JSON only in the prompt, in LangChain JS's
`StructuredOutputParser` words ("Here is the JSON Schema instance your output must adhere
to. Include the enclosing markdown codeblock:" and the schema in a ```json fence). The
simulator answered prose or a Python block, and every such node failed in demo mode with
"Model output doesn't fit required format" (found in a live review; the bodies n8n sent over
Responses are `tests/fixtures/n8n-2.41.1-sim/`). The answer is read as LangChain JS reads it
(the ```json block, `JSON.parse`) and checked against the schema the prompt shows, as zod
checks it: required keys, `additionalProperties: false`, the sentiment's enum, bounds.

LangChain Python's `PydanticOutputParser` and `JsonOutputParser` ("The output should be
formatted as a JSON instance that conforms to the JSON schema below." ... "Here is the output
schema:") were passed over too: their bodies are `tests/fixtures/langchain-core-1.8.3/`, and
the answer, bare JSON, is validated with the pydantic model that wrote the schema."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import jsonschema
import openai
import pytest
from pydantic import BaseModel, Field

from router.simulator import SimThread
from router.simulator.prompted import asked_json
from tests import recorded

MODEL = "tiny"
FIXTURES = recorded.FIXTURES
N8N = FIXTURES / "n8n-2.41.1-sim"
PYTHON = FIXTURES / "langchain-core-1.8.3"
NODES = [
    "information-extractor.json",
    "information-extractor-retry.json",
    "text-classifier.json",
    "sentiment-analysis.json",
    "chain-structured-output.json",
]
FENCE = re.compile(r"\A```json\n(.*)\n```\Z", re.S)
SHOWN = re.compile(r"```json\n(\{.*?\})\n```", re.S)  # the schema n8n's prompt shows


class Joke(BaseModel):
    setup: str = Field(description="question to set up a joke")
    punchline: str = Field(description="answer to resolve the joke")


def n8n_body(name: str) -> dict[str, Any]:
    return recorded.body(N8N / name) | {"model": MODEL}


def prompt_text(body: dict[str, Any]) -> str:
    turns = body.get("input") or body["messages"]
    return "\n".join(str(turn["content"]) for turn in turns)


def shown_schema(body: dict[str, Any]) -> dict[str, Any]:
    """The schema n8n wrote into its prompt, read by LangChain's fence around it."""
    found = SHOWN.search(prompt_text(body))
    assert found is not None
    return dict(json.loads(found.group(1)))


def js_parsed(text: str) -> Any:
    """What LangChain JS's `StructuredOutputParser.parse` reads of an answer: the fenced
    block at its start, else a ```json block anywhere, else the whole, JSON-parsed."""
    trimmed = text.strip()
    block = re.match(r"```(?:json)?\s*([\s\S]*?)```", trimmed)
    block = block or re.search(r"```json\s*([\s\S]*?)```", trimmed)
    return json.loads(block.group(1) if block else trimmed)


def answer(sdk: openai.OpenAI, body: dict[str, Any], api: str) -> str:
    """The answer to n8n's body over Responses as it was sent, with its system item as
    `instructions`, or over chat (n8n's OpenAI model with the Responses API off)."""
    if api == "responses":
        return sdk.responses.create(**body).output_text
    turns = [{"role": item["role"], "content": item["content"]} for item in body["input"]]
    if api == "instructions":
        system = "\n\n".join(turn["content"] for turn in turns if turn["role"] == "system")
        rest = [turn for turn in turns if turn["role"] != "system"]
        kept = {key: value for key, value in body.items() if key != "input"}
        return sdk.responses.create(**kept, instructions=system or None, input=rest).output_text
    chat = {key: value for key, value in body.items() if key not in ("input", "text")}
    return sdk.chat.completions.create(**chat, messages=turns).choices[0].message.content or ""


@pytest.mark.parametrize("api", ["responses", "instructions", "chat"])
@pytest.mark.parametrize("profile", ["vllm", "cloud"])
@pytest.mark.parametrize("name", NODES)
def test_n8n_nodes_get_json_their_parser_accepts(
    start_sim: Callable[..., SimThread], name: str, profile: str, api: str
) -> None:
    """The whole answer is the ```json block LangChain JS asks for (n8n's own parser takes
    the lines between the fences), and what it holds is valid against the shown schema."""
    sdk = openai.OpenAI(base_url=start_sim(profile=profile).url + "/v1", api_key="x")
    body = n8n_body(name)
    text = answer(sdk, body, api)
    assert FENCE.match(text), text
    jsonschema.validate(js_parsed(text), shown_schema(body))


def test_each_n8n_node_gets_what_it_routes_on(start_sim: Callable[..., SimThread]) -> None:
    """The classifier's answer holds a boolean for every category, the sentiment one of its
    three, the extractor its fields, the chain its `output` object."""
    sdk = openai.OpenAI(base_url=start_sim().url + "/v1", api_key="x")
    got = {name: js_parsed(answer(sdk, n8n_body(name), "responses")) for name in NODES}
    assert set(got["text-classifier.json"]) == {"billing", "technical", "sales"}
    assert got["sentiment-analysis.json"]["sentiment"] in ("Positive", "Neutral", "Negative")
    extracted = {"vendor", "invoice_number", "total_eur", "due_days"}
    assert set(got["information-extractor.json"]) == extracted
    assert set(got["information-extractor-retry.json"]) == extracted
    assert set(got["chain-structured-output.json"]["output"]) == {"primes", "sum"}


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
@pytest.mark.parametrize("name", sorted(path.name for path in PYTHON.glob("*.json")))
def test_langchain_python_parsers_get_an_instance(
    start_sim: Callable[..., SimThread], name: str, profile: str
) -> None:
    """PydanticOutputParser's and JsonOutputParser's instructions, in a system or a user
    turn, over chat or Responses: bare JSON (the newer instructions ask for no fence), an
    instance of the schema that `Joke` wrote (its `type` and `title` taken out)."""
    sdk = openai.OpenAI(base_url=start_sim(profile=profile).url + "/v1", api_key="x")
    body = json.loads((PYTHON / name).read_text(encoding="utf-8")) | {"model": MODEL}
    if "input" in body:
        text = sdk.responses.create(**body).output_text
    else:
        text = sdk.chat.completions.create(**body).choices[0].message.content or ""
    Joke.model_validate_json(text)


def test_a_schema_with_doubled_braces_is_read_undoubled(
    start_sim: Callable[..., SimThread],
) -> None:
    """Instructions escaped for a template (`{` as `{{`) and sent unformatted show the
    schema doubled: it is read as the schema it stands for, and answered as the same
    instructions unescaped are."""
    sdk = openai.OpenAI(base_url=start_sim().url + "/v1", api_key="x")
    body = n8n_body("sentiment-analysis.json")
    system = body["input"][0]["content"]
    schema = SHOWN.search(system)
    assert schema is not None
    doubled = schema.group(1).replace("{", "{{").replace("}", "}}")
    escaped = json.loads(json.dumps(body))
    escaped["input"][0]["content"] = system.replace(schema.group(1), doubled)
    text = answer(sdk, escaped, "responses")
    assert text == answer(sdk, body, "responses")
    jsonschema.validate(js_parsed(text), shown_schema(body))


def test_only_langchains_own_lead_and_ask_count() -> None:
    """The Python lead needs the sentence the instructions open with before it; a prompt
    framing its answer in a text format of its own (ReAct's `Action:` lines) is answered as
    before whatever instructions it holds; a fenced block that is no schema asks nothing."""
    schema = json.dumps({"properties": {"name": {"type": "string"}}, "required": ["name"]})
    lead = f"Here is the output schema:\n```\n{schema}\n```"
    assert asked_json(lead, "") is None
    ask = (
        "The output should be formatted as a JSON instance that conforms to the JSON schema below."
    )
    found = asked_json(f"{ask}\n\n{lead}", "")
    assert found is not None and found.schema == json.loads(schema) and not found.fenced
    extractor = n8n_body("information-extractor.json")["input"][0]["content"]
    assert asked_json("Invoice 4471", extractor) is not None
    assert asked_json("Invoice 4471\nAction: search", extractor) is None
    not_schema = extractor.replace('"type":"object","properties":', '"kind":"object","fields":')
    assert asked_json("Invoice 4471", not_schema) is None
