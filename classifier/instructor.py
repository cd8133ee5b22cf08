"""instructor's own user message: its request to correct a reply that failed validation.

instructor (1.17.0, pypi `instructor`) parses a model's reply into the caller's pydantic
model; with `max_retries`, a reply that fails (a `ValidationError`, JSON that does not parse)
is answered by the request again with a user message of instructor's own after it, the
errors inside a fixed text (`RETRIES`). Read as the ask, the retry went where the errors'
words sent it: over chat, `JSON_SCHEMA`'s "A plane flies 1800 km in 2 hours. What is its
average speed in km/h?" (math 0.763, the cloud) was instruction 0.668; over Messages,
`ANTHROPIC_JSON`'s boat at 20 km/h (math 0.671) was coding 0.834, then 0.978 once the failed
reply quoted in the retry held code (found in a live review of structured-output clients).

So it is passed over (`passed_over`), as pydantic-ai's retry feedback is
(`classifier.pydantic_ai`): the ask before it is read. Its texts (1.17.0,
`instructor/v2/providers/openai/handlers.py`: `reask_md_json`, `reask_tools`,
`reask_responses_tools`, `reask_default`; `instructor/v2/providers/anthropic/handlers.py`:
each mode's `handle_reask`), each an opening at the message's start and, where it has one,
a fixed text after the errors (`Retry`):

- "Correct your JSON ONLY RESPONSE, based on the following errors:\\n" and the errors:
  OpenAI's `JSON`, `MD_JSON` and `JSON_SCHEMA`;
- "Validation Error found:\\n", the errors, "\\nRecall the function correctly, fix the errors":
  OpenAI's `TOOLS`, `TOOLS_STRICT` and `PARALLEL_TOOLS` streamed or answered with no call
  (a call's errors go in a `tool` message, never an ask), Anthropic's tool modes with no
  reply to send back (a `tool_result` else); "Validation Error due to no tool invocation:\\n"
  in its place when the reply called no tool; over Responses (`RESPONSES_TOOLS`), "fix the
  errors with " and the call's arguments, or instructor's note on empty arguments, after it;
- "Validation Errors found:\\n", the errors, "\\nRecall the function correctly, fix the errors
  found in the following attempt:\\n" and the failed reply: `ANTHROPIC_JSON` and Anthropic's
  `JSON_SCHEMA`;
- "Recall the function correctly, fix the errors, exceptions found\\n" and the errors:
  OpenRouter's `JSON_SCHEMA`.

Told by that text and by where instructor puts it: after the caller's messages, whose first
user message is none of its texts (`after_first_user`), right after the failed reply (an
assistant message) or, where instructor sends no reply back (a streamed retry, and
`ANTHROPIC_JSON`'s, which quotes it), right after a user message (the ask, or an earlier
retry). A conversation's first message of the same words, one after a tool's result, or one
with words of the user's before the opening or after the fixed end, is read as written.
instructor is no coding agent: its retries, passed over, do not make the request an agent's
session (`classifier.rules.agent_session`).

And only in instructor's request (`framed`): its JSON modes' system prompt (`GENIUS`, its own
or after the caller's), a `json_schema` response format (`JSON_SCHEMA`), or a tool choice
that forces the one tool offered (its tool modes). Its texts pasted into any other chat are
the user's: "Correct your JSON ONLY RESPONSE, based on the following errors:", a pydantic
error and "Why does my program keep getting this message, and how do I fix my pydantic
model?" after a poem's turn was read as the poem's ask, prose 0.9955 (coding 0.546 read as
written), and after a greeting as "hi" (found in review).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from classifier.message import System, after_first_user, one_text, per_text
from classifier.toolset import tool_name

_RECALL = "\nRecall the function correctly, fix the errors"


class Retry(NamedTuple):
    """One of instructor's retry texts: its `opening`, then the errors, then `marker` (none:
    the errors end it); `ends`: the marker ends the text, else instructor's words (the failed
    reply, the call's arguments) follow it."""

    opening: str
    marker: str = ""
    ends: bool = True


RETRIES = (
    Retry("Correct your JSON ONLY RESPONSE, based on the following errors:\n"),
    Retry("Validation Error found:\n", _RECALL),
    Retry("Validation Error due to no tool invocation:\n", _RECALL),
    Retry("Validation Error found:\n", f"{_RECALL} with ", ends=False),
    Retry(
        "Validation Error found:\n",
        "\nThe function was called with empty arguments '{}'. You MUST populate ALL required"
        " fields in the function call according to the schema. Do not return empty arguments.",
        ends=False,
    ),
    Retry("Validation Errors found:\n", f"{_RECALL} found in the following attempt:\n", False),
    Retry("Recall the function correctly, fix the errors, exceptions found\n"),
)
# How far past an opening a marker the failed reply follows is looked for: the errors of
# one validation, a few hundred characters each. Past it, the text is read as written.
_ERRORS = 1 << 16


# The system prompt of instructor's JSON modes (`JSON`, `MD_JSON`, `ANTHROPIC_JSON`...), its
# lines indented as in its source; the caller's system prompt, if any, before it
GENIUS = re.compile(
    r"As a genius expert, your task is to understand the content and provide\s+the parsed"
    r" objects in json that match the following json_schema:"
)
# How far into a system prompt `GENIUS` is looked for: after the caller's own
WITHIN = 32_768


def framed(body: Mapping[str, Any], system: System) -> bool:
    """Whether `body` (of the system prompt `system`) is instructor's request: a
    `json_schema` response format, a tool choice forcing the one tool offered, or `GENIUS`
    in the system prompt."""
    answer = body.get("response_format")
    if isinstance(answer, dict) and answer.get("type") == "json_schema":
        return True
    if _forces_its_tool(body.get("tools"), body.get("tool_choice")):
        return True
    text = system.prompt
    return text is not None and _genius(text)


def _forces_its_tool(tools: object, choice: object) -> bool:
    """Whether `choice` names the one tool of `tools` (chat's `{"function": {"name"}}`, or a
    name at the top as Responses and Messages put it)."""
    if not (isinstance(tools, list) and len(tools) == 1 and isinstance(choice, dict)):
        return False
    inner = choice.get("function")
    name = (inner if isinstance(inner, dict) else choice).get("name")
    return isinstance(name, str) and name == tool_name(tools[0])


@per_text
def _genius(text: str) -> bool:
    """Whether the system prompt `text` holds `GENIUS` within `WITHIN` characters: read once
    for a request (`classifier.message.per_text`), not for each retry-like message."""
    return GENIUS.search(text, 0, WITHIN) is not None


def passed_over(messages: Sequence[Any], index: int) -> bool:
    """Whether the user message `messages[index]` is instructor's retry: one of its texts
    (`RETRIES`), right after an assistant or a user message, after the request's first user
    message, which is none of them (`after_first_user`). Asked only of instructor's requests
    (`framed`: `classifier.request`)."""
    if index < 1 or not _is_retry(messages[index]):
        return False
    before = messages[index - 1]
    if not (isinstance(before, dict) and before.get("role") in ("assistant", "user")):
        return False
    return after_first_user(messages, index, _is_retry)


def _is_retry(message: object) -> bool:
    """Whether `message` is one text, one of instructor's retries."""
    text = one_text(message)
    return text is not None and any(_holds(text, retry) for retry in RETRIES)


def _holds(text: str, retry: Retry) -> bool:
    """Whether `text` is `retry`'s: its opening first, then its marker (at the end, or within
    `_ERRORS` of the opening with instructor's words after it)."""
    if not text.startswith(retry.opening):
        return False
    start = len(retry.opening)
    if not retry.marker:
        return len(text) > start
    if retry.ends:
        return len(text) >= start + len(retry.marker) and text.endswith(retry.marker)
    return text.find(retry.marker, start, start + _ERRORS + len(retry.marker)) >= 0
