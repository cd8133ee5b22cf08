"""What a chat body's tool choice says: whether it makes the model call a tool, read from the
current fields or from the deprecated `functions` and `function_call` (`classifier.request`
reads a body's tools and texts; this, how they are chosen)."""

from __future__ import annotations

from typing import Any


def forced(tool_choice: object) -> bool:
    """Whether `tool_choice` makes the model call a tool: `required` (Anthropic: `any`), a
    named function or custom tool, or `allowed_tools` in `required` mode (chat nests the
    mode in `allowed_tools`, Responses does not)."""
    if tool_choice in ("required", "any"):
        return True
    if not isinstance(tool_choice, dict):
        return False
    kind = tool_choice.get("type")
    if kind == "allowed_tools":
        nested = tool_choice.get("allowed_tools")
        return (nested if isinstance(nested, dict) else tool_choice).get("mode") == "required"
    return kind in ("function", "tool", "any", "custom")


def named_function(tool_choice: object) -> object:
    """The function a chat `tool_choice` names (`{"type": "function", "function": {"name":
    ...}}`, or Responses' flat `{"type": "function", "name": ...}`); None for any other: what
    an app's reply channel is told by when its request forces a call of one tool
    (`classifier.letta`, `classifier.marvin`)."""
    if not isinstance(tool_choice, dict) or tool_choice.get("type") != "function":
        return None
    function = tool_choice.get("function")
    return function.get("name") if isinstance(function, dict) else tool_choice.get("name")


def legacy_tools(
    body: dict[str, Any], tools: list[Any], tool_choice: object
) -> tuple[list[Any], object]:
    """The offered tools and the tool choice, read from the deprecated chat fields
    `functions` (`{name, description, parameters}` entries) and `function_call` where the
    current ones are absent: the router passes both upstream, and a call they force was
    classified from its text alone (found in review). `function_call` is `"none"`,
    `"auto"` or `{"name": ...}`, which forces that function."""
    if not tools and isinstance(legacy := body.get("functions"), list):
        tools = legacy
    if tool_choice is None:
        tool_choice = _function_call_choice(body.get("function_call"))
    return tools, tool_choice


def _function_call_choice(function_call: object) -> object:
    """`function_call` as the `tool_choice` it stands for."""
    if isinstance(function_call, dict) and "name" in function_call:
        return {"type": "function", "function": function_call}
    return function_call if function_call in ("none", "auto") else None
