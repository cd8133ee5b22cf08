"""`request_size.window_tokens` reads a body once for both of its counts, and they are what
the two estimates it replaces say: the offered tools' and every tool's."""

from __future__ import annotations

from typing import Any

import pytest

from router.request_size import estimate_prompt_tokens, window_prompt_tokens, window_tokens

SEARCH = {"name": "ToolSearch", "description": "Loads tools.", "input_schema": {"type": "object"}}
DEFERRED = [
    {"name": f"t{i}", "description": "d" * 40, "defer_loading": True, "input_schema": {}}
    for i in range(5)
]
LOADED = [  # a search's result loaded t1
    {"role": "user", "content": "go"},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "u", "name": "ToolSearch"}]},
    {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "u",
                "content": [{"type": "tool_reference", "tool_name": "t1"}],
            }
        ],
    },
]
ASK = [{"role": "user", "content": "list files " * 20}]


@pytest.mark.parametrize(
    ("tools", "messages"),
    [
        ([SEARCH, *DEFERRED], ASK),  # none loaded
        ([SEARCH, *DEFERRED], LOADED),  # one loaded
        (DEFERRED, ASK),  # nothing offered at all
        (["not a tool", *DEFERRED], LOADED),
    ],
)
def test_a_deferred_body_counts_the_offered_tools_and_every_tool(
    tools: list[Any], messages: list[Any]
) -> None:
    body = {"tools": tools, "messages": messages, "system": "be brief"}
    every = estimate_prompt_tokens("messages", body, every_tool=True)
    assert window_tokens("messages", body) == (estimate_prompt_tokens("messages", body), every)
    assert window_tokens("messages", body)[0] < every


@pytest.mark.parametrize(
    ("api", "body"),
    [
        ("messages", {"tools": [SEARCH], "messages": ASK}),
        ("messages", {"tools": {"not": "a list"}, "messages": ASK}),
        ("messages", {"tools": [SEARCH, DEFERRED[1]], "messages": LOADED}),  # all loaded
        ("chat", {"tools": DEFERRED, "messages": ASK}),
        ("completions", {"prompt": ["a b c", "d e f g h i j k"]}),
    ],
)
def test_any_other_body_is_counted_as_before(api: Any, body: dict[str, Any]) -> None:
    assert window_tokens(api, body) == (window_prompt_tokens(api, body), None)
