"""Tools a system prompt lists in the Hermes format, and the call the model writes for them.

Qwen-Agent (0.0.34, its default `fncall_prompt_type` "nous",
`qwen_agent/llm/fncall_prompts/nous_fncall_prompt.py`) sends no `tools`: it appends to the
system prompt `# Tools`, then `<tools>`, one `{"type": "function", "function": {...}}` a
line, `</tools>`, and the instruction to answer `<tool_call>\\n{"name": <function-name>,
"arguments": <args-json-object>}\\n</tool_call>`; it parses the call out of the reply's text,
and sends the tool's result back as a user message `<tool_response>\\n…\\n</tool_response>`.
The wording is Qwen2.5's and Qwen3's own chat template (Hermes'), and a Qwen model on vLLM
sent no `tools` answers so in its text. The simulator answered in prose, so no tool ever ran in
demo mode (a live review of Qwen-Agent 0.0.34).

So the tools the block lists are offered as if sent in `tools` (`listed`), the call the usual
rules pick (`tool_calls.chosen_call`) is written in the reply's text as the prompt asks
(`written`), and a last user message of tool responses is a tool's result (`responded`).
Read only where no `tools` are sent. The block is the classifier's (`classifier.hermes`:
its exact heading, at the prompt's start or after a blank line; `classifier.listed_tools`:
its lines, bounded), whose template asks calls written in `<tool_call>`. Read apart, any
`<tools>` block beside a `<tool_call>` was one here, so the simulator could call a tool the
router saw no offer of (found in review).
"""

from __future__ import annotations

import json
from typing import Any

from classifier.hermes import responses, tools_block
from classifier.listed_tools import json_functions
from router.simulator.prompt import ToolCall, ToolSpec

_CALL = "<tool_call>"


def listed(system: str) -> tuple[ToolSpec, ...]:
    """The tools the system prompt's Hermes block lists, as the classifier reads them
    (`classifier.hermes.tools_block`, `classifier.listed_tools.json_functions`), each with
    its description; () where it holds no such block."""
    block = tools_block(system)
    return () if block is None else tuple(_spec(function) for function in json_functions(block))


def _spec(function: dict[str, Any]) -> ToolSpec:
    """The tool of one listed function (`{"name": ..., "parameters": ..., ...}`)."""
    schema, about = function.get("parameters"), function.get("description")
    return ToolSpec(
        function["name"],
        schema if isinstance(schema, dict) else {},
        about if isinstance(about, str) else "",
    )


def written(call: ToolCall) -> str:
    """The call as the prompt asks it written, and a Qwen model writes it:
    `<tool_call>\\n{"name": "multiply", "arguments": {"a": 1234, "b": 5678}}\\n</tool_call>`."""
    arguments: Any = json.loads(call.arguments)
    text = json.dumps({"name": call.name, "arguments": arguments}, ensure_ascii=False)
    return f"{_CALL}\n{text}\n</tool_call>"


def responded(user: str) -> bool:
    """Whether the last user message is tools' results: Qwen-Agent's `<tool_response>`
    blocks, one a call, as the classifier reads them (`classifier.hermes.responses`: the
    message opens with one and ends with one). A message that only ends with one (a user
    quoting a result after an ask) was read so here alone: the demo summarised a result the
    router read as the user's ask (found in review)."""
    return responses(user)
