"""JSON asked for in the prompt itself: a JSON schema in the text, and the ask to answer it.

instructor's JSON, MD_JSON and ANTHROPIC_JSON modes (1.17) send no schema field: the system
prompt says "As a genius expert, your task is to understand the content and provide the
parsed objects in json that match the following json_schema:", the schema pretty-printed,
"Make sure to return an instance of the JSON, not the schema itself" (JSON mode adds
`response_format: json_object`; MD_JSON asks in a user turn for "the correct JSON response
within a ```json codeblock"). A model answers an instance of the schema; the simulator
answered `{"answer": …}`, prose or a code block, and every such call failed validation
until instructor gave up (found in review). Other prompted-output helpers (pydantic-ai's
`PromptedOutput`, LangChain's parsers) put a schema in the text the same way.

The scan serves load tests, so it is bounded: texts without `"properties"` are passed over
at the cost of a substring search, longer ones than `_LONGEST` not read, and the decoding
tries charged against a budget proportional to the text (`_WORK`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

_LONGEST = 256 * 1024  # characters of a text scanned for a schema
_WORK = 4  # decoding work allowed, in multiples of the text's length
_TRIES = 64  # objects decoded in one text at most
_OPENING = re.compile(r'\{\s*"')  # where a JSON object with members can begin
_JSON = re.compile(r"\bjson", re.I)
_FENCED = re.compile(r"```json|\bcode ?block", re.I)  # not "no Markdown fencing"


@dataclass(frozen=True, slots=True)
class Asked:
    """The schema the prompt holds, and whether it asks for the JSON in a ```json fence."""

    schema: dict[str, Any]
    fenced: bool


def asked_json(user: str, system: str) -> Asked | None:
    """The JSON schema the latest user text or the system text holds (in that order) and
    asks an answer of: an object schema (`"type": "object"` and its `properties`), the
    text around it saying JSON. None where neither does."""
    for text, other in ((user, system), (system, user)):
        found = schema_in(text)
        if found is None:
            continue
        schema, start, end = found
        around = text[:start] + text[end:]
        if _JSON.search(around) or _JSON.search(other):
            return Asked(schema, bool(_FENCED.search(around) or _FENCED.search(other)))
    return None


def schema_in(text: str) -> tuple[dict[str, Any], int, int] | None:
    """The first JSON object schema written whole in `text`, with where it starts and
    ends. Each try decodes from an opening brace; a failed one is charged the rest of the
    text (an unterminated string reads that far), a decoded one its own length, so the
    work stays within `_WORK` times the text."""
    if '"properties"' not in text or len(text) > _LONGEST:
        return None
    decoder = json.JSONDecoder()
    budget, position = _WORK * len(text), 0
    for _ in range(_TRIES):
        opening = _OPENING.search(text, position)
        if opening is None or budget <= 0:
            return None
        start = opening.start()
        try:
            value, end = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            budget -= len(text) - start
            position = start + 1
            continue
        if _is_schema(value):
            return value, start, end
        budget -= end - start
        position = end
    return None


def _is_schema(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.get("type") == "object"
        and isinstance(value.get("properties"), dict)
    )
