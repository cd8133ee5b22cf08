"""The Hermes-style tools block of Qwen's chat template, sent in a system prompt's text, and the
tools' results sent back as user messages.

Qwen2.5's and Qwen3's chat templates write the tools a request offers into the system turn:
the system message, a blank line, then `HEADING` ("# Tools ... within <tools></tools> XML
tags:" and `<tools>`), one JSON object a line (`{"type": "function", "function": {...}}`),
`</tools>`, and the instruction to answer `<tool_call>{"name": ..., "arguments":
...}</tool_call>`; a tool's result goes back in a user turn, as `<tool_response>` ...
`</tool_response>` (several results of a reply in one turn, a line break apart). Qwen-Agent
(0.0.34, `qwen_agent/llm/fncall_prompts/nous_fncall_prompt.py`: `FN_CALL_TEMPLATE`,
`preprocess_fncall_messages`) writes the same text itself in its default function calling
(`fncall_prompt_type` "nous") and sends no `tools` field: the block appended to the system
message a blank line apart, or the whole system message when none is sent; each tool a
chat tool; its results as a user message of `<tool_response>` blocks alone. So may any
client that renders the template's text itself, a raw prompt's users on vLLM among them.

Read as sent, the router saw no tool: "What is 1234 * 5678? Use the multiply tool." was math
0.60 on the cloud, where with Qwen-Agent's `use_raw_api` (its tools in `tools`) it is
tool_calling 0.90, local, by the tool it names; and the tool's result, `<tool_response>`,
was read as the new ask, no tool's result (found in a live review of Qwen-Agent 0.0.34). So:

- the tools the block lists are offered (`offered`, `classifier.frameworks.offered_tools`),
  as if sent in `tools`, by their names; a line of a function alone (`{"name": ...}`) is read
  too (`classifier.listed_tools.json_tools`). Offered, not forced: "You may call one or more
  functions";
- the block is not read as the system prompt's words (`system_words`): the system message it
  was appended to;
- a user message of `<tool_response>` blocks alone right after an assistant's reply, in a
  request whose system prompt holds the block, is the tools' result (`tool_result`): passed
  over, the user's ask before it the latest, and the request read as after a tool's result
  (`classifier.asks.user_messages`), as a `tool` message is.

Qwen-Agent's other prompt (`fncall_prompt_type` "qwen", its ✿FUNCTION✿ block) is not read:
0.0.34 fails on every streamed reply in that mode, and folds the tool's result into the
user's ask.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from classifier.listed_tools import BLOCK_CHARS, MAX_TOOLS, block_start, json_tools
from classifier.message import System, one_text, per_text, role

# The block's opening, through `<tools>` (Qwen2.5's and Qwen3's templates, Qwen-Agent's
# `FN_CALL_TEMPLATE`): its tools' lines follow
HEADING = (
    "# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are"
    " provided with function signatures within <tools></tools> XML tags:\n<tools>\n"
)
CLOSING = "\n</tools>"
# A tool's result in a user turn: `RESPONSE[0]`, the result, `RESPONSE[1]`
RESPONSE = ("<tool_response>", "</tool_response>")
# How far from a user message's ends its `<tool_response>` tags are looked for, past white
# space: the message is not copied, however long the tools' results
EDGE_CHARS = 256


def offered(system: System) -> list[dict[str, Any]]:
    """The tools the block lists in the system prompt `system`, in the shape of a request's
    `tools` (a name and the parameters' schema); none when it holds no such block."""
    text = system.prompt
    return [] if text is None else list(_listed(text))


@per_text
def _listed(text: str) -> tuple[dict[str, Any], ...]:
    """`offered` of the system prompt's text `text`: read once for a request, not again for
    each user message scanned (`tool_result`)."""
    block = tools_block(text)
    return () if block is None else json_tools(block)[:MAX_TOOLS]


def tools_block(text: str) -> str | None:
    """The lines between the block's `HEADING` and its `CLOSING` in the system prompt's text
    `text` (the heading at its start or after a blank line, `block_start`; its lines within
    `BLOCK_CHARS`); None when it holds no such block. The demo's simulator reads the tools
    it lists here too (`router.simulator.hermes_tools`): it calls no tool the router does not
    see offered."""
    start = block_start(text, HEADING)
    if start < 0:
        return None
    at = start + len(HEADING)
    end = text.find(CLOSING, at - 1, at + BLOCK_CHARS)  # `at - 1`: a block of no line
    return None if end < 0 else text[at:end]


def system_words(text: str) -> str:
    """The system prompt's text `text` without the block and all after it: the system message
    it was appended to; any other text as it is."""
    start = block_start(text, HEADING)
    return text if start < 0 or not _listed(text) else text[:start].rstrip("\n")


def tool_result(messages: Sequence[Any], index: int, system: System) -> bool:
    """Whether the user message `messages[index]` is the tools' result in a request whose
    system prompt `system` holds the block: `<tool_response>` blocks alone (`responses`),
    right after an assistant's reply."""
    if index == 0 or role(messages[index - 1]) != "assistant":
        return False
    text = one_text(messages[index])
    return text is not None and responses(text) and bool(offered(system))


def responses(text: str) -> bool:
    """Whether `text` opens with `<tool_response>` and ends with `</tool_response>`, white
    space around them aside: the demo's simulator reads a tool's result so too
    (`router.simulator.hermes_tools.responded`), and summarises no result the router reads as
    an ask."""
    opening, closing = RESPONSE
    head, tail = text[:EDGE_CHARS].lstrip(), text[-EDGE_CHARS:].rstrip()
    return head.startswith(opening) and tail.endswith(closing)
