"""rigging's tools listed in its system prompt's text, and its request to rewrite a reply it
failed to parse.

rigging (3.3.5) calls tools natively (`mode="api"`, a `tools` field) or, in its text modes,
lists them in a block it appends to the system prompt (`rigging/message.py:1399`
`inject_system_content`: a system message of its own, or a blank line after the one sent),
and parses the call out of the reply:

- `json-in-xml` (its fallback when its function-calling probe fails) and the JSON modes
  (`rigging/transform/json_tools.py:74` and `:99`): `HEADING`, then `<available-tools>` and
  one JSON object a line (`{"name": ..., "description": ..., "parameters": ...}`) before
  `</available-tools>` (`JSON_TOOLS`);
- `xml` (`rigging/transform/xml_tools.py:122` `XML_TOOLS_PREFIX`): `HEADING`, then `<tools>`
  and an `<rg-tool name="..." description="...">` element a tool before `</tools>`
  (`XML_TOOLS`).

Read as sent, the router saw no tool: "What is 1234 * 5678? Use the multiply tool." was math
0.58 (`json-in-xml`) and 0.61 (`xml`) on the cloud, where with `mode="api"` it is tool_calling
0.90, local, by the tool it names (found in a live review of rigging 3.3.5). So the tools
such a block lists are offered (`offered`, `classifier.frameworks.offered_tools`), as if sent
in `tools`, and the block is not read as the system prompt's words (`system_words`). Offered,
not forced: "If you decide to invoke one or more of the tools" (its text modes), as its native
calls leave `tool_choice` unset; an ask that names no tool is read by its words.

`until_parsed_as` sends the reply it failed to parse back with a user message of its own
(`rigging/chat.py:1580`, `rigging/prompt.py:575`): the error as `<system-error ...>` or
`<validation-error ...>` (`rigging/model.py:955`, `:959`), then `RETRY`. Read as the ask,
it was coding 0.80 where the question before it was reasoning (found in the same review); it
is passed over (`passed_over`), as pydantic-ai's retry feedback is (`classifier.pydantic_ai`).
rigging is no coding agent (`classifier.rules.agent_session`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from classifier.listed_tools import BLOCK_CHARS, MAX_TOOLS, block_start, json_tools
from classifier.message import System, one_text, per_text, role

# The tools block's opening (`json_tools.py`, `xml_tools.py`): alike in every text mode
HEADING = (
    "# Tools\n\nYou may call one or more functions to assist with the user query. Don't make"
    " assumptions about what values to plug into functions.\n\n"
)
JSON_TOOLS = ("<available-tools>\n", "\n</available-tools>\n")
XML_TOOLS = ("<tools>\n", "\n</tools>\n")
_XML_TOOL = re.compile(r'^<rg-tool name="([A-Za-z_][\w.-]{0,127})" description="', re.MULTILINE)
# `Message.from_model(error, suffix=...)`: the error element, a blank line, the suffix
RETRY = "\n\nRewrite your entire message with all of the required xml elements."
_ERROR = re.compile(r'<(system|validation)-error type="[\w.]{1,128}">')


def offered(system: System) -> list[dict[str, Any]]:
    """The tools rigging's block lists in the system prompt `system`, in the shape of a
    request's `tools` (a name, and for the JSON modes the parameters' schema); none when it
    holds no such block."""
    text = system.prompt
    return [] if text is None else list(_listed(text))


@per_text
def _listed(text: str) -> tuple[dict[str, Any], ...]:
    """`offered` of the system prompt's text `text`."""
    start = _heading(text)
    if start < 0:
        return ()
    at = start + len(HEADING)
    for (opening, closing), read in ((JSON_TOOLS, json_tools), (XML_TOOLS, _xml_tools)):
        if text.startswith(opening, at):
            end = text.find(closing, at, at + BLOCK_CHARS)
            return () if end < 0 else read(text[at + len(opening) : end])[:MAX_TOOLS]
    return ()


def _heading(text: str) -> int:
    """Where rigging's tools block opens in `text` (`classifier.listed_tools.block_start`:
    its start or after a blank line); -1 when it holds none."""
    if "<available-tools>" not in text and "<rg-tool " not in text:  # most prompts: one C scan
        return -1
    return block_start(text, HEADING)


def _xml_tools(block: str) -> tuple[dict[str, Any], ...]:
    """The tools of a `<tools>` block: an `<rg-tool>` element a line, by its name."""
    names = dict.fromkeys(match.group(1) for match in _XML_TOOL.finditer(block))
    return tuple({"type": "function", "function": {"name": name}} for name in names)


def system_words(text: str) -> str:
    """The system prompt's text `text` without rigging's tools block and all after it: the
    system message it was appended to; any other text as it is."""
    start = _heading(text)
    return text if start < 0 or not _listed(text) else text[:start].rstrip("\n")


def passed_over(messages: Sequence[Any], index: int) -> bool:
    """Whether the user message `messages[index]` is rigging's request to rewrite the reply
    before it (an assistant's), which it failed to parse: its error element, then `RETRY`."""
    text = one_text(messages[index])
    error = _ERROR.match(text) if text is not None and text.endswith(RETRY) else None
    if text is None or error is None or index == 0:
        return False
    closing = f"</{error.group(1)}-error>"
    return text.endswith(closing + RETRY) and role(messages[index - 1]) == "assistant"
