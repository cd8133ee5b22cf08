"""Genkit's own user message: its instructions for a JSON output, where a model cannot
constrain its output.

Genkit (JS, npm `genkit` 1.42.0) asked for an output of a schema (`ai.generate({...,
output: {schema}})`) from a model that does not constrain output (`supports.constrained`
unset or "none": any `@genkit-ai/compat-oai` model without `info`, so every model of an
`openAICompatible` plugin pointed at the router) runs its `simulateConstrainedGeneration`
middleware (`@genkit-ai/ai` 1.42.0, `src/model/middleware.ts`): the instructions
`DEFAULT_CONSTRAINED_GENERATION_INSTRUCTIONS` are appended as a text part to the request's
last user message (`src/formats/index.ts` `injectInstructions`; to its system message when it
has one), and compat-oai sends each text part of a user message as a user message of its own
(`toOpenAIMessages`): the ask, then Genkit's `OPENING`, the schema as `JSON.stringify` writes
it and `CLOSING`, and no `response_format`. Read as the ask, the instructions decided the
route: "Invent a fantasy character for a novel." (prose 0.998 alone) was coding 0.813, "Solve
17*23 and explain briefly." (math 0.93) instruction 0.474, and the conversation was pinned
there (found in a live review of JS frameworks).

So they are passed over (`passed_over`), as instructor's retry is (`classifier.instructor`):
the ask before them is read. Told by the whole message: `OPENING`, a JSON object on one line
(`JSON.stringify` escapes every newline), `CLOSING`, of `_SCHEMA` characters at most; right
after a user message (the ask's, whose last text part they were), so never the request's
first user message. The same words with
any of the user's in the message, a custom `instructionsRenderer`'s text, or the instructions
as one part of a message beside an image are read as written. Genkit's request carries
nothing else of its own (no system prompt, no response format) to tell it by; these exact
words, a message alone after the user's, are its. Genkit is no coding agent: its
instructions, passed over, do not make the request an agent's session
(`classifier.rules.agent_session`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from classifier.message import one_text
from classifier.templates import framed

OPENING = "Output should be in JSON format and conform to the following schema:\n\n```\n"
CLOSING = "\n```\n"
# The longest message read as Genkit's instructions: a schema of some thousand fields; a
# longer one is read as written, never parsed.
_SCHEMA = 1 << 17


def passed_over(messages: Sequence[Any], index: int) -> bool:
    """Whether the user message `messages[index]` is Genkit's instructions (`instructions`),
    right after a user message: the ask, read in their place."""
    if index < 1 or not instructions(messages[index]):
        return False
    before = messages[index - 1]
    return isinstance(before, dict) and before.get("role") == "user"


def instructions(message: object) -> bool:
    """Whether `message` is one text, Genkit's instructions whole: `OPENING`, a JSON object
    on one line, `CLOSING`."""
    text = one_text(message)
    if text is None or len(text) > _SCHEMA:
        return False
    schema = framed(text, OPENING, CLOSING)
    if schema is None or not schema.startswith("{") or "\n" in schema:
        return False
    try:
        return isinstance(json.loads(schema), dict)
    except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth
        return False
