"""A custom tool's input format, told to a chat model in the description of the function it
is shown as (`router.translate.responses_request`: one string argument, `input`).

A custom (freeform) tool may constrain its input with a grammar, Lark or a regular
expression (`format: {"type": "grammar", "syntax": "lark", "definition": ...}`), which
OpenAI enforces while the model writes. A chat function has no such field, and the format
was dropped: Codex's `apply_patch` describes itself only as "a FREEFORM tool, so do not wrap
the patch in JSON", its grammar is the one place the `*** Begin Patch` syntax is defined,
and a chat model never saw it (found in review). The description now carries it, and says
that the JSON around `input` is only the wrapper (the router unwraps it,
`router.translate.custom_input`), so the model puts the raw text there. A grammar is a few
KB; a longer definition is cut, saying so, to keep every request's prompt bounded.
"""

from __future__ import annotations

from typing import Any

MAX_DEFINITION_CHARS = 8_000
SYNTAXES = {"lark": "Lark grammar", "regex": "regular expression"}
WRAPPER = (
    "Call it with one JSON argument, `input`: a string holding the tool's raw input. The "
    "JSON object is only the wrapper this tool is called through; the text in `input` is "
    "what the tool gets, and it must {verb} this {noun}:"
)


def described(description: Any, fmt: Any) -> str | None:
    """The function's description for a custom tool's `description` and `format`: the
    description as it came, unless the format is a grammar, which follows it."""
    given = description if isinstance(description, str) and description else None
    if not isinstance(fmt, dict) or fmt.get("type") != "grammar":
        return given
    definition = fmt.get("definition")
    if not isinstance(definition, str) or not definition.strip():
        return given
    syntax = fmt.get("syntax")
    noun = SYNTAXES.get(syntax, f"grammar ({syntax})") if isinstance(syntax, str) else "grammar"
    verb = "match" if syntax == "regex" else "follow"
    told = f"{WRAPPER.format(verb=verb, noun=noun)}\n```\n{_bounded(definition)}\n```"
    return f"{given}\n\n{told}" if given else told


def _bounded(definition: str) -> str:
    if len(definition) <= MAX_DEFINITION_CHARS:
        return definition
    cut = definition[:MAX_DEFINITION_CHARS]
    return f"{cut}\n… (cut here: {MAX_DEFINITION_CHARS:,} of its {len(definition):,} characters)"
