"""How many log probabilities a `/v1/completions` request asks for, and what each server
refuses of it, in its words.

vLLM (0.32's `CompletionRequest.check_logprobs`, then its sampling parameters' checks; run
in review): `logprobs` and `prompt_logprobs` are numbers (`false` is 0, `true` 1), each at
least 0 or -1 (the whole vocabulary), at most `MAX_TOP`; `prompt_logprobs` not on a stream;
with `echo` and no `prompt_logprobs`, the prompt's are asked for as many as `logprobs`.
Those checks read the number as sent (`-0.5` is refused as negative); then the fields, which
are integers to pydantic: `2.0` is 2, `1.5` is refused (`int_from_float`), as is a whole
number too large for 64 bits (`int_parsing_size`).
OpenAI refuses `echo` beside `logprobs` (`completions`) and lists at most `OPENAI_TOP`
alternatives; it has no `prompt_logprobs`.
"""

from __future__ import annotations

from typing import Any

from router.scoring import echo_asked
from router.simulator import tokens
from router.simulator.errors import Flavor, validation_error, validation_errors, validation_item
from router.simulator.logprobs import MAX_TOP
from router.simulator.wire import bad_request, model_check, parameter_error

OPENAI_TOP = 5
_NAMES = ("prompt_logprobs", "logprobs")  # in the order vLLM checks them
_FIELDS = ("logprobs", "prompt_logprobs")  # in the order its request model defines them
_FRACTION = "Input should be a valid integer, got a number with a fractional part"
_TOO_LARGE = "Unable to parse input string as an integer, exceeded maximum size"
_INT_LIMIT = 2**63  # pydantic's integers from floats are 64-bit
OPENAI_ECHO = "Setting 'echo' and 'logprobs' at the same time is not supported for this model."


def asked_counts(body: dict[str, Any], profile: Flavor) -> tuple[int | None, int | None]:
    """The alternatives per token in the `logprobs` object (None: no such object), and in
    vLLM's `prompt_logprobs` of each choice (None: not asked), or a 400."""
    if profile != "vllm":
        return _openai(body), None
    for name in _NAMES:
        value = body.get(name)
        if value is not None and not isinstance(value, int | float):
            raise parameter_error("vllm", f"`{name}` must be an integer.", name, value)
    prompt = body.get("prompt_logprobs")
    if prompt is not None:
        if body.get("stream") and (prompt > 0 or prompt == -1):
            message = "`prompt_logprobs` are not available when `stream=True`."
            raise model_check(message, "prompt_logprobs")
        _not_negative(prompt, "prompt_logprobs")
    sample = body.get("logprobs")
    if sample is not None:
        _not_negative(sample, "logprobs")
    _whole(body)
    prompt, sample = _number(prompt), _number(sample)
    if prompt is None and echoes(body, profile):
        prompt = sample
    return bounded(sample, "sample", "logprobs"), bounded(prompt, "prompt", "prompt_logprobs")


def echoes(body: dict[str, Any], profile: Flavor) -> bool:
    """Whether `echo` is set: on the vllm profile as vLLM's request model reads its
    `bool | None`, which the router reads alike (`router.scoring.echo_asked`); elsewhere
    `true` alone, as before. Read as `true` alone, `echo: 1` was generation, and its
    `max_tokens: 0` refused (found in review)."""
    if profile != "vllm":
        return body.get("echo") is True
    return echo_asked(body)


def _whole(body: dict[str, Any]) -> None:
    """vLLM's request model after its checks: each field an integer, a float only where it
    is a whole number within 64 bits; each field that is not, listed as pydantic lists it.
    The simulator took `1.5` as 1 and `-0.5` as 0 (found in review)."""
    items = []
    for name in _FIELDS:
        value = body.get(name)
        if not isinstance(value, float):
            continue
        if not value.is_integer():
            items.append(validation_item(name, "int_from_float", _FRACTION, value))
        elif abs(value) >= _INT_LIMIT:
            items.append(validation_item(name, "int_parsing_size", _TOO_LARGE, value))
    if items:
        field = items[0]["loc"].removeprefix("body.")
        message = f"{field} must be an integer, got {body[field]!r}."
        raise validation_errors(message, field, items)


def _openai(body: dict[str, Any]) -> int | None:
    """OpenAI's count: refused beside `echo`, cut to `OPENAI_TOP`."""
    value = body.get("logprobs")
    if value is None:
        return None
    if not isinstance(value, int | float):
        message = f"logprobs must be an integer, got {value!r}."
        raise validation_error(
            message, "logprobs", "int_type", "Input should be a valid integer", value
        )
    if echoes(body, "cloud"):
        raise bad_request(OPENAI_ECHO)
    return min(max(int(value), 0), OPENAI_TOP)


def _number(value: object) -> int | None:
    return None if value is None else int(value)  # type: ignore[call-overload]


def _not_negative(value: float, name: str) -> None:
    if value < 0 and value != -1:
        raise parameter_error("vllm", f"`{name}` must be a positive value or -1.", name, value)


def bounded(value: int | None, kind: str, name: str) -> int | None:
    """vLLM's sampling check: -1 is the whole vocabulary, more than `MAX_TOP` is refused."""
    if value is None:
        return None
    wanted = tokens.VOCAB if value == -1 else value
    if wanted > MAX_TOP:
        message = (
            f"Requested {kind} logprobs of {wanted}, which is greater than max allowed: {MAX_TOP}"
        )
        raise parameter_error("vllm", message, name, wanted)
    return wanted
