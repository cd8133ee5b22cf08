"""Tools a framework lists in its system prompt's text: where its block opens, and its tools
written a JSON object a line.

rigging's JSON text modes (`classifier.rigging`) and the Hermes-style block of Qwen's chat
template, which Qwen-Agent writes itself (`classifier.hermes`), each list the tools a request
offers in a block of the system prompt: a fixed heading, opening the prompt or after a blank
line, then one JSON object a line. Both are read here, once: where the block opens
(`block_start`) and its lines' tools (`json_tools`), in the shape of a request's `tools`
(or as written, `json_functions`: the demo's simulator reads the Hermes block so too).
Every read is bounded (`HEADINGS_TRIED`, `BLOCK_CHARS`, `LINE_CHARS`, `MAX_TOOLS`): the
system prompt is the client's text, of any size.
"""

from __future__ import annotations

import json
from typing import Any

MAX_TOOLS = 64  # of the tools listed, as many as are read of a request's `tools`
BLOCK_CHARS = 262_144  # of the tools' list, at most: a longer one is read as no list
LINE_CHARS = 65_536  # of one tool's JSON line, at most
HEADINGS_TRIED = 8  # of a heading's occurrences, the first looked at for the block's


def block_start(text: str, heading: str) -> int:
    """Where a block opening with `heading` opens in `text`: its start or after a blank line
    (the first `HEADINGS_TRIED` occurrences of `heading` looked at: one a user quotes
    earlier in the system message, mid-line, does not hide the block); -1 when it holds
    none."""
    at = text.find(heading)
    for _ in range(HEADINGS_TRIED):
        if at == 0 or (at > 1 and text.startswith("\n\n", at - 2)):
            return at
        if at < 0:
            return -1
        at = text.find(heading, at + 1)
    return -1


def json_tools(block: str) -> tuple[dict[str, Any], ...]:
    """The tools of a block of one JSON object a line (`json_functions`), in the shape of a
    request's `tools`: a name and the parameters' schema."""
    return tuple(
        {
            "type": "function",
            "function": {"name": spec["name"], "parameters": spec.get("parameters") or {}},
        }
        for spec in json_functions(block)
    )


def json_functions(block: str) -> tuple[dict[str, Any], ...]:
    """The functions of a block of one JSON object a line (the first `MAX_TOOLS` lines read),
    each as written (a non-empty string `name`, its other fields unchecked: `parameters`,
    `description`, which the demo's simulator reads, `router.simulator.hermes_tools`). A line
    is a chat tool (`{"type": "function", "function": {"name": ...}}`, Qwen's template and
    Qwen-Agent write it so) or its function alone (`{"name": ...}`, rigging's); a line that
    is neither, or not JSON, is no tool."""
    functions: list[dict[str, Any]] = []
    for line in block.split("\n", MAX_TOOLS)[:MAX_TOOLS]:
        if len(line) > LINE_CHARS:
            continue
        try:
            spec = json.loads(line)
        except (ValueError, RecursionError):  # a line of a thousand "[": too deep for Python
            continue
        if isinstance(spec, dict) and isinstance(spec.get("function"), dict):
            spec = spec["function"]
        name = spec.get("name") if isinstance(spec, dict) else None
        if isinstance(name, str) and name:
            functions.append(spec)
    return tuple(functions)
