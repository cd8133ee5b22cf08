"""A chat body's empty `tools` list, which OpenAI and vLLM refuse: sent as no tools.

OpenAI answers `"tools": []` with a 400 ("Invalid 'tools': empty array. Expected an array
with minimum length 1, but got an empty array instead.", code `empty_array`), and vLLM does
since 0.32 ("`tools` must not be an empty array. Either provide at least one tool or omit
the field entirely.", vllm-project/vllm#39741, #39780). Clients send it all the same, and
mean no tools: Kimi CLI's compaction call sends `tools: []` on every compaction, so a
session on a vLLM backend could never compact and stayed stuck (found in a live review).
The other APIs' translations to chat leave an empty list out already
(`router.translate.responses_request`, `router.translate.anthropic_request`).

What OpenAI allows only beside tools goes with it: `parallel_tool_calls` ("'parallel_tool_calls'
is only allowed when 'tools' are specified"), and a `tool_choice` that forces nothing
("none", "auto" or null; vLLM refuses any other "When using `tool_choice`, `tools` must be
set."). A choice that forces a call (`"required"`, a named function) with no tool to call is
the client's mistake, not a way of saying "no tools": that body goes as sent, and the
backend refuses it in its own words (vLLM dropped its old reading of "required" beside an
empty list as "none" with #39780).
"""

from __future__ import annotations

from typing import Any

# The choices that force no call: without tools they say what no `tool_choice` says
_FORCING_NOTHING = (None, "none", "auto")
# What OpenAI takes only beside `tools`
_WITH_TOOLS_ONLY = ("tools", "tool_choice", "parallel_tool_calls")


def without_empty_tools(body: dict[str, Any]) -> dict[str, Any]:
    """The chat `body` without its `tools: []` and the fields that go only with tools, when
    its `tool_choice` forces no call; `body` itself otherwise (no empty list, or a choice
    that forces a call, which the backend refuses as it should)."""
    if body.get("tools") != [] or body.get("tool_choice") not in _FORCING_NOTHING:
        return body
    return {k: v for k, v in body.items() if k not in _WITH_TOOLS_ONLY}
