"""langroid's tools offered in its system prompt's text, their results sent as user messages,
and its output-format instructions.

langroid (0.69.16: `agent/chat_agent.py`, `agent/tool_message.py`) by default
(`ChatAgentConfig(use_tools=True, use_functions_api=False)`) sends no `tools` field: it lists
an agent's tools in the system prompt, after the agent's own system message (a blank line
apart; the whole stripped): a block of guidance on some of them (`GUIDELINES`, "TOOL: name:"
and its guidance each), then the tools and their JSON formats (`TOOLS`: "TOOL: name", a line
"PURPOSE: ..." and "JSON FORMAT: ..." each, `TOOL_ENTRY`), ending with `TOOLS_END`. The model
answers a tool's request as JSON naming it in a `request` field, "TOOL:" before it or not;
langroid runs the tool and sends its result back as a user message, the next after that
reply. With a structured output (`set_output_format`, `ChatAgent[T]`), the system prompt ends
with `OUTPUT` and the schema (or, for one of its tools, the reminder `OUTPUT_TOOL` and its
name).

Read as sent, the router saw no tool: "What is 1234 * 5678? Use the multiply tool." went
math 0.72 to the cloud where with `use_functions_api=True` it is tool_calling 0.90, local, by
the tool it names; the tool's result ("7006652") was read as the new ask, no tool's result
(`after_tool_result` false), and a prose-like result flipped a coding turn to tool_calling
(found in a live review of langroid 0.69.16). So in langroid's requests (told by the block's
fixed sentences, not by the words of the ask):

- the tools it lists are offered (`offered`), by their names as langroid lists them, as if
  sent in `tools` (`classifier.request`): an ask naming one asks for a tool;
- a user message after an assistant's reply that is a request of one of them (`_requests`)
  is the tool's result (`tool_result`): passed over, the user's ask before it the latest, and
  the request read as after a tool's result (`classifier.asks.user_messages`);
- the system prompt is read without langroid's blocks (`system_words`): the agent's own
  system message alone (the first 300 characters of the system prompt are read, and the
  blocks' fixed words were all of them after a short system message).

langroid is no coding agent: its tools are an app's, its results no agent's own text
(`classifier.rules.agent_session`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from classifier.message import System, one_text, per_text

# `ChatAgent.tool_instructions`: the guidance block's heading
GUIDELINES = "=== GUIDELINES ON SOME TOOLS/FUNCTIONS USAGE ===\n"
# `ToolMessage.group_format_instructions`: the tools block's heading and opening sentence,
# and its last sentence (the line break inside it is langroid's)
TOOLS = (
    "=== ALL AVAILABLE TOOLS and THEIR FORMAT INSTRUCTIONS ===\n"
    "You have access to the following TOOLS to accomplish your task:\n"
)
TOOLS_END = (
    "When one of the above TOOLs is applicable, you must express your \n"
    'request as "TOOL:" followed by the request in the above format.'
)
# `ToolMessage.format_instructions`: a tool's entry in the tools block, its name as langroid
# lists it (the tool's `request` value)
TOOL_ENTRY = re.compile(r"^TOOL: ([^\s:]{1,200})\n[ \t]*PURPOSE: ", re.MULTILINE)
# `ChatAgent.set_output_format`: a structured output's instructions, with a schema or for a
# tool
OUTPUT = "=== OUTPUT FORMAT INSTRUCTIONS ===\n"
OUTPUT_SCHEMA = OUTPUT + "Please provide output as JSON with the following schema:"
OUTPUT_TOOL = OUTPUT + "\nPlease provide output using the `"
# A block of langroid's opens the system prompt or follows a line break (langroid strips the
# whole; a block opens with line breaks of its own)
_BLOCKS = re.compile(
    r"(?:\A|\n)(?="
    + re.escape(GUIDELINES)
    + r"[ \t]*TOOL: |"
    + "|".join(re.escape(block) for block in (TOOLS, OUTPUT_SCHEMA, OUTPUT_TOOL))
    + ")"
)
MAX_NAMES = 64  # of the tools listed, as many as are read of a request's `tools`
# How much of an assistant's reply is parsed as a tool's request (a short JSON), at most, for
# each user message scanned: a longer reply leaves the message after it read as sent
REQUEST_CHARS = 16_384
_REQUEST = re.compile(r"\s*(?:TOOL:\s*)?(?:```(?:json)?\s*)?(?=\{)")


def system_words(text: str) -> str:
    """The system prompt's text `text` without langroid's blocks (its tools' guidance, their
    list and formats, a structured output's instructions) and all after the first: the
    agent's own system message; any other text as it is."""
    if "=== " not in text:  # every block's heading: most prompts are told in one C scan
        return text
    block = _BLOCKS.search(text)
    return text if block is None else text[: block.start()].rstrip("\n")


def offered(system: System) -> list[str]:
    """The names of the tools langroid lists in the system prompt `system` (`TOOLS`, up to
    `TOOLS_END`), in its order; none when it lists none (no request of langroid's)."""
    text = system.prompt
    return [] if text is None else list(_listed(text))


@per_text
def _listed(text: str) -> tuple[str, ...]:
    """`offered` of the system prompt's text `text`: read once for a request
    (`classifier.message.per_text`), not again for each user message scanned
    (`tool_result`)."""
    start = text.find(TOOLS)
    if start < 0 or (start > 0 and text[start - 1] != "\n"):
        return ()
    end = text.find(TOOLS_END, start)
    if end < 0:
        return ()
    names = (match.group(1) for match in TOOL_ENTRY.finditer(text, start + len(TOOLS), end))
    return tuple(dict.fromkeys(names))[:MAX_NAMES]


def tool_result(messages: Sequence[Any], index: int, system: System) -> bool:
    """Whether the user message `messages[index]` is a tool's result in langroid's request
    (`system` lists its tools): the message before it is the assistant's request of one of
    them (`_requests`)."""
    before = messages[index - 1] if index > 0 else None
    if not isinstance(before, dict) or before.get("role") != "assistant":
        return False
    text = one_text(before)
    if text is None or len(text) > REQUEST_CHARS:
        return False
    names = offered(system)
    return bool(names) and _requests(text) in names


def _requests(text: str) -> str | None:
    """The tool an assistant's reply `text` requests when it is a request of langroid's:
    a JSON object with a `request` field, "TOOL:" or a code fence before it or not; None
    for any other reply."""
    opening = _REQUEST.match(text)
    if opening is None:
        return None
    try:
        request, _ = json.JSONDecoder().raw_decode(text, opening.end())
    except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth
        return None
    name = request.get("request") if isinstance(request, dict) else None
    return name if isinstance(name, str) else None


def as_tools(names: list[str]) -> list[dict[str, Any]]:
    """langroid's listed tools `names` in the shape of a chat request's `tools`, which the
    classifier reads by name (`classifier.toolset.tool_name`)."""
    return [{"type": "function", "function": {"name": name}} for name in names]
