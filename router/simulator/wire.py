"""What every API adapter shares: the response identity (`Meta`), SSE frames, the contract."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Any, Literal, Protocol, TypeVar

import orjson

from router.simulator import tokens
from router.simulator.errors import (
    ApiError,
    Flavor,
    validation_error,
    validation_errors,
    validation_item,
)
from router.simulator.generation import Ask, Generation
from router.simulator.openai_shape import above_most
from router.simulator.prompt import ToolSpec

CallNumbering = Literal["openai", "index_0", "none"]
"""How a chat stream numbers parallel tool calls: OpenAI's and vLLM's `index` 0, 1, …;
Ollama's every call whole at `index: 0` (`ollama_tool_calls`); or none, every call whole
in one delta with no `index` (`unindexed_tool_calls`)."""

Frame = tuple[bytes, bool]
"""One SSE event and whether it carries a generated token (paced, and counted for faults)."""


@dataclass(frozen=True, slots=True)
class Meta:
    """Identity of one response: its id, creation time, echoed model, wire flavor, server."""

    id: str
    created: int
    model: str
    flavor: Flavor
    call_ids: tuple[str, ...] = ()
    server: Flavor = "vllm"  # the profile answering: vLLM serves some APIs in its own way
    call_numbering: CallNumbering = "openai"  # how a stream numbers its tool calls


def sse(obj: Any) -> bytes:
    return b"data: " + orjson.dumps(obj) + b"\n\n"


def event(name: str, obj: Any) -> bytes:
    return b"event: " + name.encode() + b"\ndata: " + orjson.dumps(obj) + b"\n\n"


DONE: Frame = (b"data: [DONE]\n\n", False)

T = TypeVar("T")


def interleave(streams: list[Iterator[T]]) -> Iterator[tuple[int, T, bool]]:
    """The choices' deltas in the order the engine steps them (one of each in turn), as
    (choice index, delta, whether it is that choice's last), produced as they are read."""
    ahead = [list(islice(s, 1)) for s in streams]
    while any(ahead):
        for index, stream in enumerate(streams):
            if ahead[index]:
                item = ahead[index][0]
                ahead[index] = list(islice(stream, 1))
                yield index, item, not ahead[index]


class Api(Protocol):
    """One generation endpoint's wire format: parse a body, shape the answer."""

    name: str  # the endpoint: chat, completions, responses or messages
    id_prefix: str
    call_prefix: str

    def flavor(self, profile: Flavor) -> Flavor: ...

    def parse(self, body: dict[str, Any], profile: Flavor) -> Ask: ...

    def body(self, meta: Meta, gen: Generation, ask: Ask) -> dict[str, Any]: ...

    def frames(self, meta: Meta, gen: Generation, ask: Ask) -> Iterator[Frame]:
        """The stream's events, each built when it is read (the first before the last token
        exists: a real server sends a token when it is generated)."""
        ...


def bad_request(message: str, param: str | None = None) -> ApiError:
    return ApiError(400, "bad_request", message, param)


def parameter_error(flavor: Flavor, message: str, name: str, value: Any) -> ApiError:
    """vLLM appends `(parameter=X, value=Y)` to what its sampling-parameter checks raise."""
    if flavor == "vllm":
        message = f"{message} (parameter={name}, value={value})"
    return bad_request(message, name)


def model_check(message: str, parameter: str) -> ApiError:
    """What one of vLLM's request models' own checks raises (a `VLLMValidationError` with a
    `parameter`, no value): its message with `(parameter=X)` after it, `param` X, the
    `BadRequestError` type (not the `Bad Request` of a field's validation)."""
    return bad_request(f"{message} (parameter={parameter})", parameter)


MAX_STOPS = 4
"""vLLM's `VLLM_MAX_STOP_STRINGS` (its default): the most `stop` (chat, completions) and
Messages' `stop_sequences` hold."""


def check_stops(body: dict[str, Any], field: str, flavor: Flavor) -> None:
    """vLLM's bound on the stop strings: `stop` is a string or a list of at most `MAX_STOPS`,
    so a longer list fails both branches of the union (both listed); `stop_sequences` is a
    list alone."""
    given = body.get(field)
    if flavor != "vllm" or not isinstance(given, list) or len(given) <= MAX_STOPS:
        return
    message = f"{field}: at most {MAX_STOPS} items, got {len(given)}"
    msg = f"List should have at most {MAX_STOPS} items after validation, not {len(given)}"
    ctx = {"field_type": "List", "max_length": MAX_STOPS, "actual_length": len(given)}
    items = [validation_item(field, "too_long", msg, given, **ctx)]
    if field == "stop":
        string = validation_item(field, "string_type", "Input should be a valid string", given)
        items.insert(0, string)
    raise validation_errors(message, field, items)


def required(body: dict[str, Any], name: str, kind: type, message: str) -> None:
    """A field the request model needs: missing or of the wrong type is a validation error."""
    value = body.get(name)
    if value is None:
        raise validation_error(message, name, "missing", "Field required", body)
    if not isinstance(value, kind):
        what = "list" if kind is list else "string"
        raise validation_error(
            message, name, f"{what}_type", f"Input should be a valid {what}", value
        )


def tool_schema(value: Any, field: str) -> dict[str, Any]:
    """A tool's JSON schema (`parameters`, `input_schema`): an object, or none at all. vLLM's
    request models type it `dict[str, Any]`, so anything else fails validation, a 400 (the
    simulator read it as a schema anyway and answered a 500, "simulator bug")."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        message = f"{field}: Input should be a valid dictionary"
        raise validation_error(
            message, field, "dict_type", "Input should be a valid dictionary", value
        )
    return value


def tool_spec(tool: dict[str, Any], schema: str, field: str) -> ToolSpec:
    """A tool definition as every API reads it: its `name` (`tool` without one), the JSON
    schema under `schema`, checked at `field` (`tool_schema`), and its `description` ("" where
    it is no string). The APIs differ only in where a definition sits and what its schema is
    called (`parameters`, `input_schema`)."""
    about = tool.get("description")
    return ToolSpec(
        str(tool.get("name", "tool")),
        tool_schema(tool.get(schema), field),
        about if isinstance(about, str) else "",
    )


def last_user_text(messages: list[Any]) -> str:
    """The text of the last user message, "" without one: what the simulated model answers
    (`Prompt.user`). Chat's and Anthropic's messages and Responses' input items all say it
    with `role: user` and a `content` (`tokens.content_text` reads either API's parts)."""
    return next(
        (
            tokens.content_text(m.get("content"))
            for m in reversed(messages)
            if isinstance(m, dict) and m.get("role") == "user"
        ),
        "",
    )


def int_field(
    body: dict[str, Any], name: str, minimum: int, flavor: Flavor = "cloud"
) -> int | None:
    """An optional integer field: a non-integer fails the body's model, a small one vLLM's
    sampling checks."""
    value = lax_int(body, name, flavor, minimum)
    if value is not None and value < minimum:
        message = f"{name} must be an integer >= {minimum}, got {value!r}."
        if flavor == "vllm":
            message = f"{name} must be at least {minimum}, got {value}."
        raise parameter_error(flavor, message, name, value)
    return value


def lax_int(body: dict[str, Any], name: str, flavor: Flavor, minimum: int = 1) -> int | None:
    """An optional integer field as the server's request model reads it. vLLM's pydantic
    model is lax: it takes `true`, `2.0` and `" 2 "` (or `"2.0"`) as integers, and refuses a
    fraction, a string of no integer or a float past 64 bits in its own words (vLLM 0.32
    served `n: "2"` where the simulator refused it, found in review); OpenAI takes an integer
    alone."""
    value = body.get(name)
    if value is None:
        return None
    message = f"{name} must be an integer >= {minimum}, got {value!r}."
    if isinstance(value, int) and (flavor == "vllm" or not isinstance(value, bool)):
        return int(value)
    if flavor == "vllm" and isinstance(value, float):
        return _float_int(message, name, value)
    if flavor == "vllm" and isinstance(value, str):
        digits = _INTEGER.fullmatch(value.strip())
        if digits:
            return int(digits[1])
        msg = "Input should be a valid integer, unable to parse string as an integer"
        raise validation_error(message, name, "int_parsing", msg, value)
    raise validation_error(message, name, "int_type", "Input should be a valid integer", value)


# pydantic's integer in a string: a sign, digits, and only zeros after a decimal point
_INTEGER = re.compile(r"([+-]?\d+)(?:\.0*)?")
_INT64 = 2**63


def _float_int(message: str, name: str, value: float) -> int:
    """A JSON number with a decimal point or an exponent as pydantic's lax integer reads it."""
    if not value.is_integer():
        msg = "Input should be a valid integer, got a number with a fractional part"
        raise validation_error(message, name, "int_from_float", msg, value)
    if not -_INT64 <= value < _INT64:
        msg = "Unable to parse input string as an integer, exceeded maximum size"
        raise validation_error(message, name, "int_parsing_size", msg, value)
    return int(value)


MAX_CHOICES: dict[Flavor, int] = {"vllm": 16384, "cloud": 128}
"""The most choices (`n`) each server generates for one request: vLLM's
`VLLM_MAX_N_SEQUENCES` (its default), OpenAI's 128 (its API spec); the anthropic profile
serves no body with an `n` (Messages has none). The simulator builds
every choice at once, on the event loop it shares with the demo router: an `n` of 2**64 - 1
it read unbounded took that router down (found in review)."""


def choice_count(body: dict[str, Any], flavor: Flavor) -> int:
    """`n` (1 when absent), read as `lax_int` reads it, then bounded as the server bounds
    it: vLLM's sampling checks, with no `parameter` (`_verify_num_sequences`: "n must be at
    least 1, got 0.", where `int_field` would add one), or OpenAI's `integer_above_max_value`
    (on chat its table says it first, `openai_refusals.CHAT`)."""
    n = lax_int(body, "n", flavor)
    n = 1 if n is None else n
    if n < 1 and flavor == "vllm":
        raise bad_request(f"n must be at least 1, got {n}.")
    if n < 1:
        raise parameter_error(flavor, f"n must be an integer >= 1, got {n!r}.", "n", n)
    most = MAX_CHOICES[flavor]
    if n <= most:
        return n
    if flavor == "vllm":
        raise bad_request(
            f"n must be at most {most}, got {n}. To increase this limit, set the"
            " VLLM_MAX_N_SEQUENCES environment variable."
        )
    raise above_most(n, "n", most)


def greedy_n(flavor: Flavor, body: dict[str, Any], n: int) -> None:
    """vLLM refuses several choices at temperature 0: they would all be the same."""
    temperature = body.get("temperature")
    greedy = isinstance(temperature, int | float) and temperature < 1e-5
    if flavor == "vllm" and greedy and n > 1:
        raise bad_request(f"n must be 1 when using greedy sampling, got {n}.")


def check_temperature(temperature: Any, flavor: Flavor) -> None:
    """A number (vLLM's request model parses a string, the cloud APIs refuse it), then
    non-negative (vLLM's sampling check)."""
    if temperature is None:
        return
    if isinstance(temperature, str) and flavor == "vllm":
        try:
            temperature = float(temperature)
        except ValueError:
            message = f"temperature must be a number, got {temperature!r}."
            msg = "Input should be a valid number, unable to parse string as a number"
            raise validation_error(
                message, "temperature", "float_parsing", msg, temperature
            ) from None
    if not isinstance(temperature, int | float):
        message = f"temperature must be a number, got {temperature!r}."
        msg = "Input should be a valid number"
        raise validation_error(message, "temperature", "float_type", msg, temperature)
    if temperature < 0:
        shown = float(temperature) if flavor == "vllm" else temperature
        message = f"temperature must be non-negative, got {shown}."
        raise parameter_error(flavor, message, "temperature", shown)
