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
Read only where no `tools` are sent, and bounded: the block's lines up to `BLOCK_CHARS`.
"""

from __future__ import annotations

import json
from typing import Any

from router.simulator.prompt import ToolCall, ToolSpec

_OPEN, _CLOSE = "<tools>\n", "\n</tools>"
_CALL = "<tool_call>"  # the prompt asks calls written so: its block is no other format's
_RESPONSE_END = "</tool_response>"
BLOCK_CHARS = 262_144  # of the tools' list, at most: a longer one is read as no list
MAX_TOOLS = 64  # of the tools listed, as many as are read
BLOCKS_TRIED = 8  # of `<tools>\n`'s occurrences, the first looked at for a list


def listed(system: str) -> tuple[ToolSpec, ...]:
    """The tools the system prompt's `<tools>` block lists, () where it lists none or does not
    ask calls written in `<tool_call>` (the block's mention "within <tools></tools> XML tags"
    is passed over: it holds no line)."""
    if _CALL not in system:
        return ()
    start = 0
    for _ in range(BLOCKS_TRIED):
        start = system.find(_OPEN, start)
        if start < 0:
            return ()
        start += len(_OPEN)
        end = system.find(_CLOSE, start, start + BLOCK_CHARS)
        tools = _specs(system[start:end]) if end >= 0 else ()
        if tools:
            return tools
    return ()


def _specs(block: str) -> tuple[ToolSpec, ...]:
    specs = (_spec(line) for line in block.splitlines() if line.strip())
    return tuple(spec for spec in specs if spec is not None)[:MAX_TOOLS]


def _spec(line: str) -> ToolSpec | None:
    """One line's tool: `{"type": "function", "function": {...}}` (Qwen-Agent's, vLLM's
    template's) or the function object alone; None where the line is no such JSON."""
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):  # a line of a thousand "[": too deep for Python
        return None
    if isinstance(value, dict) and isinstance(value.get("function"), dict):
        value = value["function"]
    if not isinstance(value, dict):
        return None
    name, schema, about = value.get("name"), value.get("parameters"), value.get("description")
    if not isinstance(name, str) or not name:
        return None
    return ToolSpec(
        name,
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
    blocks, one a call, the last at its end."""
    return user.rstrip().endswith(_RESPONSE_END)
