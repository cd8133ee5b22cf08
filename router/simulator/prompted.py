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

A schema counts only where the sentence leading into it asks for the answer in JSON, and
not where it is a tool's or the user's own (`lead_in.introduced`, which reads that sentence
apart from the forms here): prompts that frame the answer in a text format of their own are
passed over whole (ReAct's `Action:` / `Action Input:` lines, DSPy's `[[ ## field ## ]]`
markers, `_FRAMED`), where the simulator answered LlamaIndex's ReActAgent and crewAI's ReAct
prompts with the tool's arguments as JSON, which LlamaIndex took for the agent's final
answer (found in review).

A prompt may instead show the answer's shape by example (Open WebUI's background tasks:
"JSON format: { "title": "your concise title here" }", `{ "tags": ["tag1", "tag2"] }`,
"Strictly return in JSON format: { "queries": [...] }"): an object of plain values, no
schema's keywords, introduced the same way (`lead_in.introduced`), is the answer's shape
when no schema is asked for in either text. Answered with prose or a Python block, Open
WebUI kept every chat's first message as its title and got no tags or follow-ups in demo
mode (found in review).

LangChain's output parsers lead into their schema with a sentence of their own that asks for
no JSON by itself ("Include the enclosing markdown codeblock:"): their instructions are read
by their wording (`format_instructions`), and a schema they show is the answer's whatever
its type. So is BAML's output-format block (`baml_schema`), in its own notation.

Two forms are shown by example without a JSON object introduced as the answer
(`shown_forms`): an example object between markers of its own (MetaGPT's
`[CONTENT]...[/CONTENT]`), the answer's form wherever the text shows one so, and a JSON list
of strings that the sentence leading into it asks the answer be (gpt-researcher's "respond
with a list of strings in the following format: [...]", `_listed`), looked for last.

This module is which of the forms the texts show is the answer's, and in what order they
are tried; whether a sentence asks for a form is `lead_in`'s, one reading for all of them.

The scan serves load tests, so it is bounded: texts without `"properties"`, "json" or a
sentence asking the answer be what follows ("Respond ONLY with:", `lead_in.may_introduce`)
are passed over at the cost of a substring search, longer ones than `LONGEST` not read, and
the decoding tries charged against a budget proportional to the text (`shown_forms.decoded`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from classifier.baml import format_block
from router.simulator.baml_schema import baml_schema
from router.simulator.described import Described, Wrapper, described_shapes, wrappers
from router.simulator.field_lists import listed_fields
from router.simulator.format_instructions import instructed
from router.simulator.lead_in import introduced, list_asked, may_introduce, names
from router.simulator.shown_forms import LONGEST, decoded, string_lists, wrapped_examples

_OPENING = re.compile(r'(?=\{\s*")')  # where a JSON object with members can begin
_FENCED = re.compile(r"```json|\bcode ?block", re.I)  # not "no Markdown fencing"
# text formats an answer must keep to (ReAct's lines, DSPy's field markers): a schema in
# such a prompt is never the whole answer's
_FRAMED = re.compile(r"^[ \t]*Action(?: Input)?[ \t]*:|\[\[ ## \w+ ## \]\]", re.M | re.I)
_NESTED = 4  # levels of arrays and objects an example object may hold
_TYPES = frozenset(("object", "array", "string", "number", "integer", "boolean", "null"))
_COMBINED = ("anyOf", "oneOf", "allOf")  # a schema's keys holding a list of schemas


@dataclass(frozen=True, slots=True)
class Asked:
    """What the answer is asked to be, and whether in a ```json fence: an instance of
    `schema`, or where the prompt shows no schema but an example, a value of `example`'s
    shape (an object, or a list of strings); between `[tag]` and `[/tag]` where the example
    is shown so (`shown_forms.wrapped_examples`). `span` is where the user text writes the
    schema (None where the system text does): no part of the user's ask, whose words the
    schema's branch names would be read as (`answer.prompted_json`)."""

    schema: dict[str, Any] | None
    fenced: bool
    example: dict[str, Any] | list[str] | None = None
    tag: str | None = None
    span: tuple[int, int] | None = None


def asked_json(user: str, system: str) -> Asked | None:
    """The JSON schema the latest user text or the system text (in that order) introduces
    as the form of the answer (`lead_in.introduced`): an object schema (`"type": "object"`
    and its `properties`), or any schema LangChain's format instructions show
    (`format_instructions`); where neither introduces one, the first example object either
    introduces (`_is_example`). None where neither does, or where either frames the answer
    in a text format of its own (`_FRAMED`)."""
    asked = _first_of(user, system)
    # the text formats are looked for last: most prompts ask for no JSON at all
    if asked is None or framed(user, system):
        return None
    return asked


def framed(user: str, system: str) -> bool:
    """Whether either text frames the answer in a text format of its own (`_FRAMED`:
    ReAct's `Action:` lines, DSPy's field markers), read within `LONGEST`."""
    return bool(_FRAMED.search(user[:LONGEST]) or _FRAMED.search(system[:LONGEST]))


def _first_of(user: str, system: str) -> Asked | None:
    """The schema the user text, else the system text, introduces (LangChain's format
    instructions' first, `format_instructions`), or an example it shows between markers
    (`_wrapped`); else the first example object either introduces, else the first list of
    strings (`_listed`)."""
    first_example: Asked | None = None
    for text, other in ((user, system), (system, user)):
        parser = instructed(text)
        if parser is not None:
            return Asked(parser.schema, parser.fenced, span=_span(text, user, parser))
        if (baml := baml_schema(text)) is not None:  # BAML's output format
            return Asked(baml, fenced=False, span=_span(text, user, format_block(text)))
        if (wrapped := _wrapped(text)) is not None:
            return wrapped
        schema, example = _first_asked(text)
        if schema is not None:
            return Asked(schema.value, _fenced(text, schema, other), span=_span(text, user, schema))
        if first_example is None and example is not None:
            first_example = Asked(None, _fenced(text, example, other), example.value)
    for text, other in ((user, system), (system, user)):
        if first_example is None and (listed := _listed(text, other)) is not None:
            first_example = listed
    return first_example or _described(user, system)


def _described(user: str, system: str) -> Asked | None:
    """The schema of a shape either text describes in pseudo-JSON (`described`) or as a
    list of fields one a line (`field_lists`: Taskmaster's expand), looked for
    last so no answer the other forms give changes: wrapped in the answer's one property
    where a sentence asking for JSON names it and what it holds (`wrappers`: Taskmaster's
    "a JSON object with a "tasks" property containing an array of task objects") and the
    sentence leading into the shape names that noun ("Each task should follow this JSON
    structure:"); else the shape itself where the sentence leading into it asks for the
    answer in JSON (`lead_in.introduced`)."""
    if not may_introduce(user) and not may_introduce(system):
        return None
    shapes = [
        (text, other, shape)
        for text, other in ((user, system), (system, user))
        for shape in (*described_shapes(text), *listed_fields(text))
    ]
    if not shapes:
        return None
    for text in (user, system):
        for wrapper in wrappers(text):
            wrapped = _wrapping(text, wrapper, shapes, user)
            if wrapped is not None:
                return wrapped
    for shown, other, shape in shapes:
        if introduced(shown, shape.start):
            return _shape_asked(shape.schema, (shown, other, shape), user)
    return None


_Shown = tuple[str, str, Described]  # a text, the other text, a shape it describes


def _wrapping(text: str, wrapper: Wrapper, shapes: list[_Shown], user: str) -> Asked | None:
    """The first of `shapes` wrapped in `wrapper`'s property, where the sentence leading
    into the wrapper asks for JSON (`lead_in.introduced`) and the one leading into the shape
    names the wrapper's noun (`lead_in.names`); else None."""
    if not introduced(text, wrapper.start):
        return None
    for shown, other, shape in shapes:
        if names(shown, shape.start, wrapper.noun):
            held = {"type": "array", "items": shape.schema} if wrapper.array else shape.schema
            schema = {
                "type": "object",
                "properties": {wrapper.key: held},
                "required": [wrapper.key],
            }
            return _shape_asked(schema, (shown, other, shape), user)
    return None


def _shape_asked(schema: dict[str, Any], found: _Shown, user: str) -> Asked:
    """`schema` asked for where the shape of `found` is written."""
    shown, other, shape = found
    fenced = _fenced(shown, _Found({}, shape.start, shape.end), other)
    return Asked(schema, fenced, span=_span(shown, user, shape))


class _Written(Protocol):
    """Where a text writes what was found in it."""

    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...


def _span(text: str, user: str, found: _Written | None) -> tuple[int, int] | None:
    """Where `found` is written in `text`, where `text` is the user text (the very string
    read, not the system text); else None."""
    return (found.start, found.end) if found is not None and text is user else None


def _wrapped(text: str) -> Asked | None:
    """The first example object `text` shows between markers as the answer's form
    (`shown_forms.wrapped_examples`, MetaGPT's `[CONTENT]...[/CONTENT]`), a plain value
    (`_is_example`): the answer is one of its shape, between the same markers."""
    found = next((w for w in wrapped_examples(text) if _is_example(w.value)), None)
    return None if found is None else Asked(None, False, found.value, found.tag)


def _listed(text: str, other: str) -> Asked | None:
    """The first JSON list of strings `text` shows where the sentence leading into it asks
    for the answer as a list in a form shown (`lead_in.list_asked`; gpt-researcher's "You
    must respond with a list of strings in the following format: ["query 1", ...]"), not
    one inside other JSON (ragas's schema's `"required": ["statements"]`)."""
    for value, start, end in string_lists(text):
        if list_asked(text, start):
            return Asked(None, _fenced(text, _Found({}, start, end), other), value)
    return None


@dataclass(frozen=True, slots=True)
class _Found:
    """An object found in a text, and where it starts and ends."""

    value: dict[str, Any]
    start: int
    end: int


def _fenced(text: str, found: _Found, other: str) -> bool:
    """Whether the texts around the object ask for a ```json fence."""
    around = text[: found.start] + text[found.end :]
    return bool(_FENCED.search(around) or _FENCED.search(other))


def _first_asked(text: str) -> tuple[_Found | None, _Found | None]:
    """The first schema and the first example object in `text` that a sentence asking for
    the answer in JSON introduces (None for each not found); the scan ends at that schema."""
    example: _Found | None = None
    for value, start, end in objects_in(text):
        is_schema = _is_schema(value)
        if not is_schema and (example is not None or not _is_example(value)):
            continue
        if not introduced(text, start):
            continue
        if is_schema:
            return _Found(value, start, end), example
        example = _Found(value, start, end)
    return None, example


def objects_in(text: str) -> Iterator[tuple[dict[str, Any], int, int]]:
    """The JSON objects written whole in `text` (one inside another not read apart), each
    with where it starts and ends; none in a text without `"properties"` or a sentence that
    may introduce one (`lead_in.may_introduce`).
    Each try decodes from an opening brace, within the bounds of `shown_forms.decoded`."""
    # a plain search first: the word's regex took 20 times as long on a long prompt
    if len(text) > LONGEST or ('"properties"' not in text and not may_introduce(text)):
        return
    for value, found, end in decoded(text, _OPENING):
        if isinstance(value, dict):
            yield value, found.end(), end


def _is_schema(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.get("type") == "object"
        and isinstance(value.get("properties"), dict)
    )


def _is_example(value: Any) -> bool:
    """Whether `value` reads as an example of an answer: an object with members, of plain
    values (strings, numbers, booleans, null, arrays and objects of them, `_NESTED` deep at
    most), and no schema's structure (`_schema_like`: a schema is no example of its
    instances). A key alone that schemas use too is no schema: Open WebUI-like prompts
    show `{ "items": [...] }`, and the simulator answered one with prose (found in review)."""
    return bool(value) and _plain(value, _NESTED) and not _schema_like(value)


def _schema_like(value: dict[str, Any]) -> bool:
    """Whether an object holds a schema's structure: a JSON type's name (or a list of them)
    for `"type"`, schemas under `"properties"`, `"items"`, `anyOf`, `oneOf` or `allOf`, or a
    `$`-keyword (`$schema`, `$ref`, `$defs`)."""
    kind = value.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    if kinds and all(isinstance(item, str) and item in _TYPES for item in kinds):
        return True
    properties = value.get("properties")
    if isinstance(properties, dict) and _schemas(list(properties.values())):
        return True
    if isinstance(value.get("items"), dict) or any(key.startswith("$") for key in value):
        return True
    return any(_schemas(value.get(key)) for key in _COMBINED)


def _schemas(items: Any) -> bool:
    return isinstance(items, list) and bool(items) and all(isinstance(i, dict) for i in items)


def _plain(value: Any, depth: int) -> bool:
    if isinstance(value, dict):
        return depth > 0 and all(_plain(item, depth - 1) for item in value.values())
    if isinstance(value, list):
        return depth > 0 and all(_plain(item, depth - 1) for item in value)
    return True  # JSON holds nothing else: a string, number, boolean or null
