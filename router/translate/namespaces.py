"""Responses' namespaced tools on a chat backend: each tool of a namespace a chat function of
its own, named `<namespace>__<name>`, and its calls back under their two names.

Codex (0.171) groups its sub-agent tools in one tool, `{"type": "namespace", "name":
"multi_agent_v1", "tools": [spawn_agent, wait_agent, send_input, resume_agent,
close_agent]}`, and may group an MCP server's tools so (`mcp__<server>`). Chat has no
namespaces: the translation dropped the whole group, and a model on a chat backend never saw
those tools (found in review). A call of one comes back as OpenAI writes it: a
`function_call` (or `custom_tool_call`) item whose `name` is the tool's own and whose
`namespace` names its group (the `openai` SDK's `ResponseFunctionToolCall.namespace`).
Codex dispatches by the two (`ToolName::new(namespace, name)`, codex-rs/core/src/tools/
router.rs): a joined name alone names no tool it has. Codex replays the call with both,
and it reaches the chat backend under the joined name again.

The joined name is Codex's own flat name (`ToolName::canonical_flat_name`: `_` trimmed at
the join). One another tool of the request already has, or longer than the 64 characters
OpenAI's chat takes, is the namespace's and the tool's names hashed instead: the same every
turn, so that a replayed call keeps its name. Pure.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

SEPARATOR = "__"
MAX_NAME = 64  # OpenAI's chat refuses a longer function name
MEMBERS = ("function", "custom")  # what a namespace holds (the `openai` SDK's NamespaceTool)


def joined(namespace: str, name: str) -> str:
    """Codex's flat name of a namespaced tool: `multi_agent_v1__spawn_agent`."""
    return f"{namespace.rstrip('_')}{SEPARATOR}{name.lstrip('_')}"


def _hashed(namespace: str, name: str) -> str:
    digest = hashlib.sha256(f"{namespace}\0{name}".encode()).hexdigest()[:10]
    return f"{joined(namespace, name)[: MAX_NAME - len(digest) - 1]}_{digest}"


@dataclass(slots=True)
class ChatNames:
    """The chat function name of each namespaced tool of a request, both ways (made once
    per request by `chat_names`, read only after)."""

    named: dict[tuple[str, str], str] = field(default_factory=dict)  # (namespace, name) →
    pairs: dict[str, tuple[str, str]] = field(default_factory=dict)  # → (namespace, name)

    def chat(self, namespace: Any, name: str) -> str:
        """The chat name of a call or choice of `name` in `namespace` (none: a plain tool).
        A namespace the request no longer offers still gets its joined name."""
        if not isinstance(namespace, str) or not namespace:
            return name
        return self.named.get((namespace, name)) or joined(namespace, name)


def members(tool: Any) -> list[dict[str, Any]]:
    """A namespace tool's function and custom tools (none for any other tool)."""
    if not isinstance(tool, dict) or tool.get("type") != "namespace":
        return []
    inner = tool.get("tools")
    return [
        t
        for t in (inner if isinstance(inner, list) else ())
        if isinstance(t, dict) and t.get("type") in MEMBERS and isinstance(t.get("name"), str)
    ]


def chat_names(tools: Any) -> ChatNames:
    """Every namespaced tool's chat name, none the name of another tool of `tools`."""
    listed = tools if isinstance(tools, list) else []
    taken = {
        t["name"]
        for t in listed
        if isinstance(t, dict) and t.get("type") in MEMBERS and isinstance(t.get("name"), str)
    }
    names = ChatNames()
    for tool in listed:
        namespace = tool.get("name") if isinstance(tool, dict) else None
        if not isinstance(namespace, str) or not namespace:
            continue
        for member in members(tool):
            pair = (namespace, member["name"])
            if pair in names.named:
                continue
            chat = joined(*pair)
            if chat in taken or len(chat) > MAX_NAME:
                chat = _hashed(*pair)
            taken.add(chat)
            names.named[pair] = chat
            names.pairs[chat] = pair
    return names


def flattened(tools: Any, names: ChatNames) -> list[Any]:
    """`tools` with each namespace's tools in its place, each under its chat name, its
    description after the namespace's (which chat has no other place for)."""
    out: list[Any] = []
    for tool in tools if isinstance(tools, list) else ():
        if not isinstance(tool, dict) or tool.get("type") != "namespace":
            out.append(tool)
            continue
        about = tool.get("description")
        for member in members(tool):
            chat = names.chat(tool.get("name"), member["name"])
            own = member.get("description")
            described = "\n\n".join(d for d in (about, own) if isinstance(d, str) and d)
            out.append({**member, "name": chat, "description": described or None})
    return out
