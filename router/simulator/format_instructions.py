"""The format instructions LangChain's output parsers write into a prompt, read for the
schema they ask the answer to keep to.

LangChain JS's `StructuredOutputParser` (what n8n 2.41.1's Information Extractor, Text
Classifier, Sentiment Analysis and Structured Output Parser send, in a system or user turn)
ends "Here is the JSON Schema instance your output must adhere to. Include the enclosing
markdown codeblock:" and the schema in a ```json fence; LangChain Python's
`PydanticOutputParser` and `JsonOutputParser` say "The output should be formatted as a JSON
instance that conforms to the JSON schema below." and end "Here is the output schema:" (in
langchain-core 1.x "Here is the output schema (shown in a code block for readability only
...):") and the schema in a plain fence, pydantic's with its `type` and `title` taken out.
The sentence leading into the schema asks for no JSON by itself, so `lead_in.introduced`
passed both over, and the simulator answered prose or a Python block: every n8n node that
returns JSON failed in demo mode ("Model output doesn't fit required format", found in a
live review).

A template's text is sent as its parser wrote it: the JS one's examples keep their doubled
braces (`{{"foo": ["bar", "baz"]}}`, formatting escapes the parser leaves in), and a prompt
that escapes the whole instructions for a template of its own and never formats them sends
the schema doubled too; a schema that does not parse as it stands is read un-doubled.

The search is bounded as `prompted`'s scan is: a text longer than `_LONGEST` is not read, the
leads are found by a plain substring search first, and one schema is decoded per text.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

_LONGEST = 256 * 1024  # characters of a text searched, as `prompted._LONGEST`
# LangChain JS's lead into the schema, the fence it asks the answer in after it
_JS = re.compile(
    r"Here is the JSON Schema instance your output must adhere to\.\s+"
    r"Include the enclosing markdown codeblock:\s*```json[ \t]*\n"
)
# LangChain Python's, with langchain-core 1.x's aside in parentheses, and the sentence its
# instructions open with, looked for before it
_PYTHON = re.compile(r"Here is the output schema(?:[ \t]*\([^()\n]{0,200}\))?:\s*```[ \t]*\n")
_PYTHON_ASK = "formatted as a JSON instance that conforms to the JSON schema below"
_LEADS = ("Here is the JSON Schema instance", "Here is the output schema")
_SCHEMA_KEYS = ("type", "properties", "items", "anyOf", "oneOf", "allOf", "$ref", "enum")


@dataclass(frozen=True, slots=True)
class Instructed:
    """The schema a parser's instructions ask the answer to keep to, and whether they ask
    for it in a ```json fence (JS's do; Python's show the schema fenced "for readability
    only" and its parser reads bare JSON); `start` and `end`, where the schema is written."""

    schema: dict[str, Any]
    fenced: bool
    start: int
    end: int


def instructed(text: str) -> Instructed | None:
    """The schema the first of LangChain's format instructions in `text` leads into, or
    None where it holds none (or none that decodes to a schema)."""
    if len(text) > _LONGEST:
        return None
    start = min((at for lead in _LEADS if (at := text.find(lead)) >= 0), default=-1)
    if start < 0:  # a plain search first: most prompts hold neither lead
        return None
    js, python = _JS.search(text, start), _PYTHON.search(text, start)
    if python is not None and _PYTHON_ASK not in text[: python.start()]:
        python = None
    if js is None and python is None:
        return None
    lead = min((m for m in (js, python) if m is not None), key=lambda m: m.start())
    start = lead.end()
    end = text.find("```", start)
    end = end if end >= 0 else len(text)  # the fence's end, else the text's
    schema = _schema_at(text[start:end])
    return None if schema is None else Instructed(schema, lead is js, start, end)


def _schema_at(written: str) -> dict[str, Any] | None:
    """The schema `written` between the lead and its fence's end: as it stands, else
    un-doubled (`{{` read as `{`) where it holds doubled braces."""
    block = written.strip()
    candidates = [block]
    if "{{" in block:  # a template's escaped braces, read as the braces they stand for
        candidates.append(block.replace("{{", "{").replace("}}", "}"))
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except (ValueError, RecursionError):
            continue
        return value if _is_schema(value) else None
    return None


def _is_schema(value: Any) -> bool:
    """A JSON schema's shape: an object holding one of a schema's keywords (pydantic's,
    as LangChain Python sends it, holds `properties` and no `type`)."""
    return isinstance(value, dict) and any(key in value for key in _SCHEMA_KEYS)
