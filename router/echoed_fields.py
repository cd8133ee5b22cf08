"""The Responses request fields a Response echoes, checked as OpenAI checks them.

A Response carries back what its request asked (`truncation`, `metadata`, `reasoning`,
`text`, `user`, ...), and the router writes that Response itself when a chat backend
answers (`router.translate.responses_items.envelope`). A value of the wrong kind went back
as sent (`truncation: "sometimes"`, `reasoning.effort: 5`, a metadata value that is a
number), in a Response the `openai` SDK's own `Response` model refuses; OpenAI refuses the
request instead, a 400 `invalid_request_error` naming the field. So does the router, before
any backend is tried, for every backend alike. The closed sets are the `openai` SDK's
(3.57: `openai/types/responses/response_create_params.py`, `types/shared/reasoning.py`,
`types/shared/reasoning_effort.py`, `types/responses/response_text_config.py`); the
metadata bounds are OpenAI's documented ones (16 keys, keys of 64 characters, string values
of 512). Each check is of the value's kind only: what a model or backend supports (an effort
one model lacks, a temperature out of range) is the backend's to say.
"""

from __future__ import annotations

from typing import Any

from router.errors import BadRequest

TRUNCATIONS = ("auto", "disabled")
EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh", "max")
SUMMARIES = ("auto", "concise", "detailed")
# `reasoning`'s closed fields and the values each takes (`generate_summary`: `summary`'s
# deprecated name)
REASONING = {
    "effort": EFFORTS,
    "summary": SUMMARIES,
    "generate_summary": SUMMARIES,
    "context": ("auto", "current_turn", "all_turns"),
}
FORMATS = ("text", "json_schema", "json_object")
VERBOSITIES = ("low", "medium", "high")
METADATA_KEYS, METADATA_KEY_CHARS, METADATA_VALUE_CHARS = 16, 64, 512


def check_echoed(body: dict[str, Any]) -> None:
    """Raise `BadRequest` naming the first field of a Responses `body` whose value a
    Response could not echo (`None`, JSON's null, stands for not asked)."""
    _one_of(body.get("truncation"), TRUNCATIONS, "truncation")
    _of_kind(body.get("parallel_tool_calls"), bool, "a boolean", "parallel_tool_calls")
    _of_kind(body.get("user"), str, "a string", "user")
    _of_kind(body.get("previous_response_id"), str, "a string", "previous_response_id")
    for name in ("temperature", "top_p"):
        value = body.get(name)
        if isinstance(value, bool) or not isinstance(value, int | float | None):
            raise BadRequest(f"'{name}' must be a number", param=name)
    _check_metadata(body.get("metadata"))
    _check_reasoning(body.get("reasoning"))
    _check_text(body.get("text"))


def _one_of(value: Any, allowed: tuple[str, ...], param: str) -> None:
    if value is not None and value not in allowed:
        named = ", ".join(repr(a) for a in allowed)
        raise BadRequest(f"'{param}' must be one of {named}, or null", param=param)


def _of_kind(value: Any, kind: type, said: str, param: str) -> None:
    """`value` is a `kind` (a bool is no int here: JSON tells them apart) or null."""
    if value is not None and not isinstance(value, kind):
        raise BadRequest(f"'{param}' must be {said}", param=param)


def _check_metadata(metadata: Any) -> None:
    """OpenAI's metadata: at most 16 string keys of 64 characters, string values of 512. A
    value's error names it as OpenAI's does (`metadata.<key>`); a key's, `metadata`."""
    if metadata is None:
        return
    if not isinstance(metadata, dict):
        raise BadRequest("'metadata' must be an object of strings", param="metadata")
    if len(metadata) > METADATA_KEYS:
        raise BadRequest(
            f"'metadata' holds {len(metadata)} keys; it may hold at most {METADATA_KEYS}",
            param="metadata",
        )
    for key, value in metadata.items():
        if len(key) > METADATA_KEY_CHARS:
            raise BadRequest(
                f"a key of 'metadata' is {len(key)} characters long; at most"
                f" {METADATA_KEY_CHARS} are allowed",
                param="metadata",
            )
        param = f"metadata.{key}"
        if not isinstance(value, str):
            raise BadRequest(f"'{param}' must be a string", param=param)
        if len(value) > METADATA_VALUE_CHARS:
            raise BadRequest(
                f"'{param}' is {len(value)} characters long; at most {METADATA_VALUE_CHARS}"
                " are allowed",
                param=param,
            )


def _check_reasoning(reasoning: Any) -> None:
    if reasoning is None:
        return
    if not isinstance(reasoning, dict):
        raise BadRequest("'reasoning' must be an object", param="reasoning")
    for name, allowed in REASONING.items():
        _one_of(reasoning.get(name), allowed, f"reasoning.{name}")
    _of_kind(reasoning.get("mode"), str, "a string", "reasoning.mode")


def _check_text(text: Any) -> None:
    """`text.format` is one of the three a Response echoes, a JSON schema one with the
    `name` and `schema` a Response holds; `text.verbosity` one of three."""
    if text is None:
        return
    if not isinstance(text, dict):
        raise BadRequest("'text' must be an object", param="text")
    _one_of(text.get("verbosity"), VERBOSITIES, "text.verbosity")
    fmt = text.get("format")
    if fmt is None:
        return
    if not isinstance(fmt, dict):
        raise BadRequest("'text.format' must be an object", param="text.format")
    kind = fmt.get("type")
    if kind not in FORMATS:
        named = ", ".join(repr(f) for f in FORMATS)
        raise BadRequest(f"'text.format.type' must be one of {named}", param="text.format.type")
    if kind == "json_schema":
        _required(fmt.get("name"), str, "a string", "text.format.name")
        _required(fmt.get("schema"), dict, "an object", "text.format.schema")


def _required(value: Any, kind: type, said: str, param: str) -> None:
    if not isinstance(value, kind):
        raise BadRequest(f"'{param}' is required and must be {said}", param=param)
