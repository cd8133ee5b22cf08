"""A tool search's deferred tools, for a chat backend. Pure.

Anthropic's tool search: a tool sent with `defer_loading: true` is not shown to the model
until a search loads it, and a custom (client-side) search loads tools by answering with a
`tool_result` whose content holds `{"type": "tool_reference", "tool_name": ...}` blocks; the
API expands each reference, wherever it stands in the history, into the tool's definition
(its server-side search answers with a `tool_search_tool_result` of such references). From
2.1.332 (at least) Claude Code defers MCP tools (the Agent SDK's in-process ones among them) and
some of its own behind its `ToolSearch` tool, which answers so.

Chat has neither the flag nor the block. The translation dropped a reference, so the model
got an empty tool message and never learnt what its search had loaded, and it offered every
deferred tool as an ordinary function (found live, Claude Agent SDK 0.2.190). Here:

- a reference becomes a line the model reads in its tool message, "Tool loaded: NAME";
- a deferred tool is offered once a reference in the history names it, as Anthropic shows
  it (the tools without the flag always are). Claude Code's `DeferredToolPlaceholder`
  ("Reserved placeholder that keeps deferred tool loading active; never call this tool.",
  deferred itself) is named by no reference, so it is not offered: a chat model got it as
  one more function it could call.

Only a string names a tool a reference can load: a deferred tool whose `name` is anything else
is passed on as before tool search (the backend refuses it as it would any malformed tool),
and a reference whose `tool_name` is not a string loads nothing. A list there was hashed and
failed the request with the router's own 500 (found in review).

A trade-off: a load changes the tool list mid-session, so a backend whose template renders
the tools into the prompt (Qwen's on vLLM) loses its prefix cache once per load, where
Anthropic expands the reference in place; loads are rare, and every tool every turn cost more.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

LOADED = "Tool loaded: %s"


def reference_part(block: dict[str, Any]) -> dict[str, Any] | None:
    """The text part for a `tool_reference` block (None without a tool name)."""
    name = block.get("tool_name")
    return {"type": "text", "text": LOADED % name} if isinstance(name, str) and name else None


def offered(tools: list[Any], messages: Any) -> list[Any]:
    """The `tools` the model may call: a deferred one only once the history (`messages`)
    loaded it. The history is read only when a tool is deferred; an item that is no tool
    (not an object) is left as it is, the caller's to drop or count."""
    if not any(_deferred(t) for t in tools):
        return tools
    names = set(_referenced(messages if isinstance(messages, list) else ()))
    return [t for t in tools if not _deferred(t) or t["name"] in names]


def _deferred(tool: Any) -> bool:
    """A tool a search must load before it is offered: flagged, and named by a string."""
    return (
        isinstance(tool, dict)
        and tool.get("defer_loading") is True
        and isinstance(tool.get("name"), str)
    )


def _referenced(messages: Iterable[Any]) -> Iterator[str]:
    """The tool names of the history's references (`_references`)."""
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else ():
            for ref in _references(block):
                name = ref.get("tool_name") if isinstance(ref, dict) else None
                if isinstance(name, str) and ref.get("type") == "tool_reference":
                    yield name


def _references(block: Any) -> list[Any]:
    """The items of a content block that may be tool references: a tool result's content (a
    custom search's), a server tool search's result's `tool_references`; none of another."""
    if not isinstance(block, dict):
        return []
    kind, inner = block.get("type"), block.get("content")
    if kind not in ("tool_result", "tool_search_tool_result"):
        return []
    if kind == "tool_search_tool_result" and isinstance(inner, dict):
        inner = inner.get("tool_references")
    return inner if isinstance(inner, list) else []
