"""Structured output through the router in demo mode: the official openai SDK's `parse`
helpers against a router whose simulated backends speak chat only. Responses' `text.format`
and Messages' `output_config.format` reach them as chat's `response_format` (the router's
translation), and the JSON they answer comes back as the SDK's parsed model. The
simulator answered prose, so pydantic-ai's NativeOutput, LangChain's
`with_structured_output` and the AI SDK's generateObject failed in demo mode (found running
pydantic-ai against the router)."""

from __future__ import annotations

import enum
import json

import httpx
import jsonschema
import pytest
from pydantic import BaseModel

from tests.agent_apis.agent_stack import openai_client
from tests.harness import Running, RunningRouter

ASK = [{"role": "user", "content": "Give me the forecast for Paris this week"}]


class Unit(enum.Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


class Reading(BaseModel):
    city: str
    temperature: float
    unit: Unit


class Forecast(BaseModel):
    """A nested model, a list of them, an enum, an Optional field."""

    today: Reading
    days: list[Reading]
    alert: Reading | None = None
    note: str | None


def valid(text: str) -> Forecast:
    jsonschema.validate(json.loads(text), Forecast.model_json_schema())
    return Forecast.model_validate_json(text)


@pytest.mark.parametrize("backend", ["local", "cloud"])
def test_chat_parse_whole_and_streamed(chat_proxy: RunningRouter, backend: str) -> None:
    sdk = openai_client(chat_proxy)
    whole = sdk.chat.completions.parse(model=backend, messages=ASK, response_format=Forecast)  # type: ignore[arg-type]
    parsed = whole.choices[0].message.parsed
    assert isinstance(parsed, Forecast)
    assert valid(whole.choices[0].message.content or "") == parsed
    with sdk.chat.completions.stream(
        model=backend,
        messages=ASK,  # type: ignore[arg-type]
        response_format=Forecast,
    ) as stream:
        pieces = [e.delta for e in stream if e.type == "content.delta"]
        final = stream.get_final_completion()
    assert len(pieces) > 1 and valid("".join(pieces)) == final.choices[0].message.parsed


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("backend", ["local", "cloud"])
def test_responses_parse_over_a_chat_backend(
    chat_proxy: RunningRouter, chat_sims: dict[str, Running], backend: str, stream: bool
) -> None:
    """`text.format` becomes the chat backend's `response_format`; its JSON the parsed model.
    The Response echoes the format, as OpenAI's does, in every event that carries it:
    LangChain fills `parsed` only when `text.format.type` is `json_schema` (it was left out,
    and its `with_structured_output` stream failed: found running LangChain)."""
    sdk = openai_client(chat_proxy)
    if stream:
        with sdk.responses.stream(model=backend, input=ASK, text_format=Forecast) as events:  # type: ignore[arg-type]
            seen = list(events)
            reply = events.get_final_response()
        deltas = [e.delta for e in seen if e.type == "response.output_text.delta"]
        assert len(deltas) > 1 and "".join(deltas) == reply.output_text
        carried = [e.response for e in seen if hasattr(e, "response")]  # type: ignore[union-attr]
        assert len(carried) == 3  # created, in_progress, completed
        assert all(r.text and r.text.format.type == "json_schema" for r in carried)
    else:
        reply = sdk.responses.parse(model=backend, input=ASK, text_format=Forecast)  # type: ignore[arg-type]
    assert reply.text is not None and reply.text.format is not None
    assert reply.text.format.type == "json_schema" and reply.text.format.name == "Forecast"
    sent = chat_sims[backend].stats()["last_request"]
    assert sent["response_format"]["type"] == "json_schema"  # it went as chat's
    assert isinstance(reply.output_parsed, Forecast)
    assert valid(reply.output_text) == reply.output_parsed
    assert reply.usage is not None and reply.usage.output_tokens > 0


def test_a_plain_response_echoes_the_default_text_format(chat_proxy: RunningRouter) -> None:
    """Not asked, `text` is OpenAI's default, and the other fields OpenAI echoes are there."""
    reply = openai_client(chat_proxy).responses.create(model="local", input=ASK, user="u-1")
    assert reply.text is not None and reply.text.format is not None
    assert reply.text.format.type == "text"
    assert (reply.store, reply.truncation, reply.user) == (True, "disabled", "u-1")
    assert reply.reasoning is not None and reply.reasoning.effort is None


def test_messages_output_format_over_a_chat_backend(chat_proxy: RunningRouter) -> None:
    """Anthropic's structured output (`output_config.format`) through the same translation."""
    fmt = {"type": "json_schema", "schema": Forecast.model_json_schema()}
    body = {"model": "local", "max_tokens": 400, "messages": ASK, "output_config": {"format": fmt}}
    reply = httpx.post(f"{chat_proxy.url}/messages", json=body, timeout=30, trust_env=False)
    assert reply.status_code == 200, reply.text
    text = "".join(b["text"] for b in reply.json()["content"] if b["type"] == "text")
    assert isinstance(valid(text), Forecast)
