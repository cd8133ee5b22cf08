"""The router's refusal of a request field, in the words and with the codes of OpenAI's,
and in Anthropic's words for a Messages client.

The router checks the fields it reads itself (`router.request`), and a client of any API
reads its refusal as it reads OpenAI's: the same `code` and `param`, and the same message,
"Invalid type for 'messages': expected an array of objects, but got a string instead."
(`invalid_type`), "Missing required parameter: 'messages[0].role'."
(`missing_required_parameter`), "Invalid 'messages': empty array. ..." (`empty_array`),
"Invalid 'model': empty string. ..." (`empty_string`), "Invalid 'max_tokens': integer below
minimum value. ..." (`integer_below_min_value`), "Invalid 'n': integer above maximum value.
..." (`integer_above_max_value`). The router's own words came with a null
code (found in review). A Messages client gets each in Anthropic's envelope and in the words
of Anthropic's API (`with_anthropic_words`): the field as it names one, then what is wrong
("max_tokens: Field required", "messages.0.content: Input should be ..."); it was told
OpenAI's words and paths (`messages[0].content`), which no Anthropic client or document
uses (found in review). The simulator standing for OpenAI words its refusals from a table
of its own (`router.simulator.openai_refusals`), never from these: a test compares the two.
"""

from __future__ import annotations

import re
from typing import Any, TypeVar

from router.errors import (
    EmptyArray,
    EmptyString,
    IntegerAboveMaximum,
    IntegerBelowMinimum,
    InvalidType,
    MissingParameter,
    RouterError,
)

Refusal = TypeVar("Refusal", bound=RouterError)

# A JSON value's kind as OpenAI's 400s name it ("but got a string instead"); a bool first:
# it is an int to Python
_KINDS: tuple[tuple[type, str], ...] = (
    *((bool, "a boolean"), (int, "an integer"), (float, "a decimal number")),
    *((str, "a string"), (list, "an array"), (dict, "an object")),
)


def wrong_type(value: Any, param: str, expected: str) -> InvalidType:
    """A value of the wrong JSON kind ("Invalid type for 'max_tokens': expected an integer,
    but got a string instead.", diffbot/code-gpt-docs#273; "Invalid type for
    'messages[1].content': expected one of a string or array of objects, but got an object
    instead.", pydantic/pydantic-ai#2653)."""
    got = next((said for kind, said in _KINDS if isinstance(value, kind)), "null")
    message = f"Invalid type for '{param}': expected {expected}, but got {got} instead."
    said = _ANTHROPIC_EXPECTED.get(expected, expected)
    return with_anthropic_words(
        InvalidType(message, param=param), f"Input should be {said}, not {got}"
    )


def missing(param: str) -> MissingParameter:
    """A field required and left out, or null ("Missing required parameter: 'model'." of
    Responses, mattermost/mattermost-plugin-agents#476; `input[79].id`, openai/codex#6725).
    OpenAI's chat API words a missing `model` otherwise ("you must provide a model
    parameter", with a null `param` and `code`): the router names it as Responses does."""
    refusal = MissingParameter(f"Missing required parameter: '{param}'.", param=param)
    return with_anthropic_words(refusal, "Field required")


def empty_array(param: str) -> EmptyArray:
    """An array that may not be empty (`messages`, CopilotKit/CopilotKit#529)."""
    message = (
        f"Invalid '{param}': empty array. Expected an array with minimum length 1, but got an"
        " empty array instead."
    )
    # Anthropic's own words for `messages` (as its 400s quote them), pydantic's for others
    said = "at least one message is required" if param == "messages" else None
    return with_anthropic_words(
        EmptyArray(message, param=param), said or "List should have at least 1 item, not 0"
    )


def empty_string(param: str) -> EmptyString:
    """A string that may not be empty (a tool's name, diegosouzapw/OmniRoute#707)."""
    message = (
        f"Invalid '{param}': empty string. Expected a string with minimum length 1, but got an"
        " empty string instead."
    )
    return with_anthropic_words(
        EmptyString(message, param=param), "String should have at least 1 character"
    )


def below_minimum(value: int, param: str, least: int) -> IntegerBelowMinimum:
    """An integer under `least` ("Invalid 'max_tokens': integer below minimum value. Expected
    a value >= 1, but got 0 instead.", it-at-m/mucgpt#608; -1, YSocialTwin/YClient#6)."""
    message = (
        f"Invalid '{param}': integer below minimum value. Expected a value >= {least}, but got"
        f" {value} instead."
    )
    return with_anthropic_words(
        IntegerBelowMinimum(message, param=param),
        f"Input should be greater than or equal to {least}, not {value}",
    )


def above_maximum(value: int, param: str, most: int) -> IntegerAboveMaximum:
    """An integer over `most` ("Invalid 'n': integer above maximum value. Expected a value <=
    128, but got 129 instead.", in the words OpenAI's 400s give every such bound)."""
    message = (
        f"Invalid '{param}': integer above maximum value. Expected a value <= {most}, but got"
        f" {value} instead."
    )
    return with_anthropic_words(
        IntegerAboveMaximum(message, param=param),
        f"Input should be less than or equal to {most}, not {value}",
    )


# What a field should be, in Anthropic's words where OpenAI's differ: a Messages `content`
# or `system` is a string or content blocks (OpenAI: "array of objects")
_ANTHROPIC_EXPECTED = {
    "one of a string or array of objects": "a string or an array of content blocks"
}


def anthropic_field(param: str) -> str:
    """A field as Anthropic's API names it in its 400s (`messages.0.content.1`, from the
    pydantic location it validates), where OpenAI's name it `messages[0].content[1]`."""
    return re.sub(r"\[(\d+)\]", r".\1", param)


def with_anthropic_words(refusal: Refusal, words: str) -> Refusal:
    """`refusal`, worded for a Messages client as Anthropic's API words a 400: the field's
    path, a colon, what is wrong ("max_tokens: Field required", "messages: at least one
    message is required"; `router.translate.events.anthropic_error_body` reads it)."""
    refusal.anthropic_message = f"{anthropic_field(refusal.param or '')}: {words}"
    return refusal
