"""Strands Agents' own user message: its nudge to call the structured-output tool.

An agent given a `structured_output_model` offers the model a tool of its own for the
answer. When a reply ends (`end_turn`) without calling it, Strands (1.62.0, pypi
`strands-agents`: `event_loop/event_loop.py`) appends a user message of its own, `NUDGE`
(`tools/structured_output/_structured_output_context.py`:
`DEFAULT_STRUCTURED_OUTPUT_PROMPT`), and asks again with that tool alone, forced
(`_structured_output_request`; OpenAIModel's `tool_choice` names it). Read as the ask, the
nudge after "Give me facts about Tokyo." was instruction 0.967 (found in a live review of
agent frameworks).

So it is passed over, as pydantic-ai's retry feedback and instructor's retries are
(`classifier.pydantic_ai`, `classifier.instructor`): the ask before it is read. Told by its
exact text, whole (one text, a custom `structured_output_prompt` is the caller's words),
right after the reply it answers (an assistant message), after the request's first user
message, which is not it (`classifier.message.after_first_user`).

And only in Strands' forced request (`framed`): the one tool offered, its description
opening with Strands' `TOOL_OPENING` (`tools/structured_output/structured_output_tool.py`).
The same words in any other chat are the user's, read as written. Sent with a tool choice
that names the tool (all the captured requests, OpenAIModel's and LiteLLMModel's), the
request is tool_calling by that rule (`classifier.rules.rule_intent`) whatever its ask; the
ask read is then the user's (what `smf-router explain` shows); sent without one, the
nudge had decided the intent.
Strands is no coding agent: its nudge, passed over, does not make the request an agent's
session (`classifier.rules.agent_session`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from classifier.message import after_first_user, one_text

NUDGE = "You must format the previous response as structured output."
# `StructuredOutputTool.__init__`: before the model's own description, in `<description>`
TOOL_OPENING = (
    "IMPORTANT: This StructuredOutputTool should only be invoked as the last and final tool"
    " before returning the completed result to the caller. <description>"
)


def framed(body: Mapping[str, Any]) -> bool:
    """Whether `body` is Strands' forced structured-output request: its one tool offered,
    described with `TOOL_OPENING` (chat's under `function`, or at the top as Responses and
    Messages put it). The tool choice naming it is not asked for: Strands sends the tool
    alone because a provider "may ignore tool_choice" (`_structured_output_request`), and a
    client may drop it."""
    tools = body.get("tools")
    if not (isinstance(tools, list) and len(tools) == 1 and isinstance(tools[0], dict)):
        return False
    inner = tools[0].get("function")
    described = (inner if isinstance(inner, dict) else tools[0]).get("description")
    return isinstance(described, str) and described.startswith(TOOL_OPENING)


def passed_over(messages: Sequence[Any], index: int) -> bool:
    """Whether the user message `messages[index]` is Strands' nudge (`NUDGE`, whole), right
    after an assistant message, after the request's first user message, which is not it.
    Asked only of Strands' forced requests (`framed`: `classifier.request`)."""
    if index < 1 or not _is_nudge(messages[index]):
        return False
    before = messages[index - 1]
    if not (isinstance(before, dict) and before.get("role") == "assistant"):
        return False
    return after_first_user(messages, index, _is_nudge)


def _is_nudge(message: object) -> bool:
    """Whether `message` is one text, Strands' nudge."""
    return one_text(message) == NUDGE
