"""vLLM 0.32's refusals of a chat message of the wrong shape, in its words (captured from the
real server, tests/vllm/captures/error_message_*.json).

vLLM types a message as a union of eight branches (the OpenAI SDK's message params, its
own custom one and `Message`), and pydantic reports a value no branch takes once per branch:
a message that is not an object gets eight errors, a `content` that is neither a string nor
an iterable twenty-two, of which vLLM's handler lists ten. Before any of that, its request
model's "before" validator turns every message's `tool_calls` into a list (`list(value)`)
and reads each item as a tool call: a number is "'int' object is not iterable", `""` and `{}`
become an empty list and are served, and an item that is not an object is refused at
`body.<index>`, the message's place not named. The simulator answered one error naming the
field at fault (found in review, against the live server).
"""

from __future__ import annotations

from typing import Any

from router.simulator.errors import ApiError, validation_errors, validation_item
from router.simulator.wire import bad_request

_BRANCHES = (
    "ChatCompletionDeveloperMessageParam",
    "ChatCompletionSystemMessageParam",
    "ChatCompletionUserMessageParam",
    "ChatCompletionAssistantMessageParam",
    "ChatCompletionToolMessageParam",
    "ChatCompletionFunctionMessageParam",
    "CustomChatCompletionMessageParam",
)
# the branches whose `role` is a literal, in the order pydantic tries them, with that role
_ROLES = (
    ("ChatCompletionDeveloperMessageParam", "developer"),
    ("ChatCompletionSystemMessageParam", "system"),
    ("ChatCompletionUserMessageParam", "user"),
    ("ChatCompletionAssistantMessageParam", "assistant"),
)
_CALL_BRANCHES = (
    "ChatCompletionMessageFunctionToolCallParam",
    "ChatCompletionMessageCustomToolCallParam",
)
_DICT = "Input should be a valid dictionary"


def listed_tool_calls(messages: list[Any]) -> None:
    """Each object message's `tool_calls` made a list, in place, as vLLM's before-validator
    makes it (`list(value)`), then each item checked to be an object."""
    for message in messages:
        calls = message.get("tool_calls") if isinstance(message, dict) else None
        if calls is None:
            continue
        if not isinstance(calls, list | str | dict):  # JSON leaves a number or a bool
            raise bad_request(f"'{type(calls).__name__}' object is not iterable")
        message["tool_calls"] = calls = list(calls)
        for index, call in enumerate(calls):
            if not isinstance(call, dict):
                raise _not_a_call(index, call)


def _not_a_call(index: int, call: Any) -> ApiError:
    """An item of `tool_calls` that is not an object: an error for each tool call branch, at
    the item's index alone."""
    fields = [f"{index}.{branch}" for branch in _CALL_BRANCHES]
    items = [validation_item(field, "dict_type", _DICT, call) for field in fields]
    return validation_errors(f"{fields[0]}: {_DICT}", fields[0], items)


def not_a_message(index: int, value: Any) -> ApiError:
    """A message that is not an object: each branch's `dict_type`, then `Message`'s."""
    place = f"messages.{index}"
    items = [validation_item(f"{place}.{b}", "dict_type", _DICT, value) for b in _BRANCHES]
    msg = "Input should be a valid dictionary or object to extract fields from"
    items.append(validation_item(f"{place}.Message", "model_attributes_type", msg, value))
    field = f"{place}.{_BRANCHES[0]}"
    return validation_errors(f"{place}: {_DICT}", field, items)


def content_not_text(index: int, message: dict[str, Any]) -> ApiError:
    """A `content` neither a string, an iterable nor null (a number, a bool): the errors vLLM
    lists (the first ten, branch by branch: the content no string, no iterable, the role not
    the branch's, the assistant's role first) and its count of them all, one fewer for a tool
    message, whose own branch takes its role."""
    place, content, role = f"messages.{index}", message.get("content"), message.get("role")
    items: list[dict[str, Any]] = []
    for branch, expected in _ROLES:
        texts = [
            validation_item(f"{place}.{branch}.content", kind, msg, content)
            for kind, msg in (
                ("string_type", "Input should be a valid string"),
                ("iterable_type", "Input should be iterable"),
            )
        ]
        wrong_role = []
        if role != expected:
            said, field = f"Input should be '{expected}'", f"{place}.{branch}.role"
            ctx = {"expected": f"'{expected}'"}
            wrong_role = [validation_item(field, "literal_error", said, role, **ctx)]
        items += wrong_role + texts if expected == "assistant" else texts + wrong_role
    field = f"{place}.{_BRANCHES[0]}.content"
    total = 21 if role == "tool" else 22
    return validation_errors(f"{place}.content: not a string or a list", field, items, total)
