"""JSON asked for in the prompt itself: a JSON schema in the text, introduced as the form
of the answer.

instructor's JSON, MD_JSON and ANTHROPIC_JSON modes (1.17) send no schema field: the system
prompt says "As a genius expert, your task is to understand the content and provide the
parsed objects in json that match the following json_schema:", the schema pretty-printed,
"Make sure to return an instance of the JSON, not the schema itself" (JSON mode adds
`response_format: json_object`; MD_JSON asks in a user turn for "the correct JSON response
within a ```json codeblock"). pydantic-ai's `PromptedOutput` says "Always respond with a
JSON object that's compatible with this schema:". A model answers an instance of the
schema; the simulator answered `{"answer": …}`, prose or a code block, and every such call
failed validation until instructor gave up (found in review).

A schema counts only where the sentence leading into it asks for the answer in JSON (a
verb of answering and "json", `_introduced`), and not where it is a tool's: prompts that
frame the answer in a text format of their own are passed over whole (ReAct's `Action:` /
`Action Input:` lines, DSPy's `[[ ## field ## ]]` markers, `_FRAMED`), and so is a schema
introduced by a tool listing (LlamaIndex's `Tool Args:`, crewAI's `Tool Arguments:`,
"parameters"). Taking any object schema with "json" somewhere around it, the simulator
answered LlamaIndex's ReActAgent and crewAI's ReAct prompts with the tool's arguments as
JSON (`{"a": 1, "b": 1}`), which LlamaIndex took for the agent's final answer (found in
review).

A prompt may instead show the answer's shape by example (Open WebUI's background tasks:
"JSON format: { "title": "your concise title here" }", `{ "tags": ["tag1", "tag2"] }`,
"Strictly return in JSON format: { "queries": [...] }"): an object of plain values, no
schema's keywords, introduced the same way (`_introduced`), is the answer's shape when no
schema is asked for in either text. Answered with prose or a Python block, Open WebUI kept
every chat's first message as its title and got no tags or follow-ups in demo mode (found
in review).

The scan serves load tests, so it is bounded: texts without `"properties"` or "json" are passed
over at the cost of a substring search, longer ones than `_LONGEST` not read, and the decoding
tries charged against a budget proportional to the text (`_WORK`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

_LONGEST = 256 * 1024  # characters of a text scanned for a schema
_WORK = 4  # decoding work allowed, in multiples of the text's length
_TRIES = 64  # objects decoded in one text at most
_LEAD = 400  # characters before a schema read for the sentence that introduces it
_OPENING = re.compile(r'\{\s*"')  # where a JSON object with members can begin
_JSON = re.compile(r"\bjson", re.I)
_FENCED = re.compile(r"```json|\bcode ?block", re.I)  # not "no Markdown fencing"
# a verb that asks for the answer itself ("respond with", "provide the parsed objects")
_ANSWER = re.compile(
    r"\b(?:respon[ds]|reply|answer|return|output|provide|produce|give|write|format)", re.I
)
# words of a tool listing: a schema they introduce is a tool's input, not the answer
_TOOLISH = re.compile(r"\b(?:tools?|action|arguments?|args|param(?:eter)?s?|functions?)\b", re.I)
# text formats an answer must keep to (ReAct's lines, DSPy's field markers): a schema in
# such a prompt is never the whole answer's
_FRAMED = re.compile(r"^[ \t]*Action(?: Input)?[ \t]*:|\[\[ ## \w+ ## \]\]", re.M | re.I)
_NESTED = 4  # levels of arrays and objects an example object may hold
_SCHEMA_WORDS = frozenset(
    ("properties", "items", "$schema", "$defs", "$ref", "anyOf", "oneOf", "allOf")
)
_SENTENCE_END = re.compile(r"[.!?](?=\s)|\n[ \t]*\n")
_FENCE_OPENING = re.compile(r"```(?:json)?\s*\Z", re.I)


@dataclass(frozen=True, slots=True)
class Asked:
    """What the answer is asked to be, and whether in a ```json fence: an instance of
    `schema`, or where the prompt shows no schema but an example, an object of `example`'s
    shape."""

    schema: dict[str, Any] | None
    fenced: bool
    example: dict[str, Any] | None = None


def asked_json(user: str, system: str) -> Asked | None:
    """The JSON schema the latest user text or the system text (in that order) introduces
    as the form of the answer (`_introduced`): an object schema (`"type": "object"` and its
    `properties`); where neither introduces one, the example object either introduces
    (`_is_example`). None where neither does, or where either frames the answer in a text
    format of its own (`_FRAMED`)."""
    if _FRAMED.search(user[:_LONGEST]) or _FRAMED.search(system[:_LONGEST]):
        return None
    examples: list[Asked] = []
    for text, other in ((user, system), (system, user)):
        schema, example = _first_asked(text)
        for value, start, end, is_schema in (schema, example):
            if value is None or (examples and not is_schema):
                continue
            around = text[:start] + text[end:]
            fenced = bool(_FENCED.search(around) or _FENCED.search(other))
            if is_schema:
                return Asked(value, fenced)
            examples.append(Asked(None, fenced, value))
    return examples[0] if examples else None


_Found = tuple[dict[str, Any] | None, int, int, bool]  # the object, its span, a schema's


def _first_asked(text: str) -> tuple[_Found, _Found]:
    """The first schema and the first example object in `text` that a sentence asking for
    the answer in JSON introduces (each `(None, 0, 0, …)` where there is none); the scan
    ends at that schema."""
    schema: _Found = (None, 0, 0, True)
    example: _Found = (None, 0, 0, False)
    for value, start, end in objects_in(text):
        is_schema = _is_schema(value)
        if not is_schema and (example[0] is not None or not _is_example(value)):
            continue
        if not _introduced(text[max(0, start - _LEAD) : start]):
            continue
        if is_schema:
            return (value, start, end, True), example
        example = (value, start, end, False)
    return schema, example


def _introduced(lead: str) -> bool:
    """Whether the sentence `lead` ends with (the text just before a schema, less a fence
    opening) asks for the answer in JSON and names no tool, action or arguments."""
    lead = _FENCE_OPENING.sub("", lead.rstrip()).rstrip()
    sentence = _SENTENCE_END.split(lead)[-1]
    return bool(
        _JSON.search(sentence) and _ANSWER.search(sentence) and not _TOOLISH.search(sentence)
    )


def schema_in(text: str) -> tuple[dict[str, Any], int, int] | None:
    """The first JSON object schema written whole in `text` (`schemas_in`)."""
    return next(schemas_in(text), None)


def schemas_in(text: str) -> Iterator[tuple[dict[str, Any], int, int]]:
    """The JSON object schemas written whole in `text`, each with where it starts and ends
    (`objects_in`)."""
    if '"properties"' not in text:
        return
    for value, start, end in objects_in(text):
        if _is_schema(value):
            yield value, start, end


def objects_in(text: str) -> Iterator[tuple[dict[str, Any], int, int]]:
    """The JSON objects written whole in `text` (one inside another not read apart), each
    with where it starts and ends; none in a text without `"properties"` or "json".
    Each try decodes from an opening brace; a failed one is charged the rest of the text
    (an unterminated string reads that far), a decoded one its own length, so the work
    stays within `_WORK` times the text."""
    if len(text) > _LONGEST or ('"properties"' not in text and not _JSON.search(text)):
        return
    decoder = json.JSONDecoder()
    budget, position = _WORK * len(text), 0
    for _ in range(_TRIES):
        opening = _OPENING.search(text, position)
        if opening is None or budget <= 0:
            return
        start = opening.start()
        try:
            value, end = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            budget -= len(text) - start
            position = start + 1
            continue
        if isinstance(value, dict):
            yield value, start, end
        budget -= end - start
        position = end


def _is_schema(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.get("type") == "object"
        and isinstance(value.get("properties"), dict)
    )


def _is_example(value: Any) -> bool:
    """Whether `value` reads as an example of an answer: an object with members, of plain
    values (strings, numbers, booleans, null, arrays and objects of them, `_NESTED` deep at
    most), and none of a schema's keywords (a schema is no example of its instances)."""
    return bool(value) and _plain(value, _NESTED) and not _SCHEMA_WORDS.intersection(value)


def _plain(value: Any, depth: int) -> bool:
    if isinstance(value, dict):
        return depth > 0 and all(_plain(item, depth - 1) for item in value.values())
    if isinstance(value, list):
        return depth > 0 and all(_plain(item, depth - 1) for item in value)
    return True  # JSON holds nothing else: a string, number, boolean or null
