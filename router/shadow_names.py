"""A shadow's calls of a Responses request's namespaced tools, named as the live answer's.

The live answer's tally keeps a namespaced tool's call under its joined name,
`<namespace>__<name>` (`router.translate.events`); the shadow, asked in chat, calls it by
the chat name the translation gave it, which is hashed where the joined name is taken by
another tool or past chat's 64 characters (`router.translate.namespaces`): `mcp__github_
enterprise_server` with `list_pull_request_review_comments_for_repo`, the same call on both
sides, was compared as "different tools" (found in review). Before the comparison the
shadow's calls, and the chat request's tools (whose schemas say which arguments count), go
back to the joined name. Where a plain tool has that joined name itself, the two read as one
name on both sides alike. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from router.comparison import Reply
from router.record import Api
from router.translate.namespaces import chat_names, joined


def live_names(api: Api, request: Mapping[str, Any]) -> dict[str, str]:
    """The joined name of each namespaced tool of a Responses `request` whose chat name is
    another (hashed), by that chat name; none for any other request."""
    if api != "responses":
        return {}
    pairs = chat_names(request.get("tools")).pairs
    return {chat: joined(*pair) for chat, pair in pairs.items() if chat != joined(*pair)}


def renamed_calls(reply: Reply, names: Mapping[str, str]) -> Reply:
    """`reply` with each call of a chat name in `names` under the name it maps to."""
    if not names or not reply.tool_calls:
        return reply
    return Reply(reply.text, tuple(_renamed(call, names) for call in reply.tool_calls))


def renamed_tools(body: dict[str, Any], names: Mapping[str, str]) -> dict[str, Any]:
    """The chat `body` with each tool of a chat name in `names` under the name it maps to."""
    tools = body.get("tools")
    if not names or not isinstance(tools, list):
        return body
    return {**body, "tools": [_renamed(tool, names) for tool in tools]}


def _renamed(call: Any, names: Mapping[str, str]) -> Any:
    """A chat tool or tool call (`{"function": {"name": ...}}`) under its mapped name."""
    function = call.get("function") if isinstance(call, Mapping) else None
    if not isinstance(function, Mapping):
        return call
    name = function.get("name")
    if not isinstance(name, str) or name not in names:
        return call
    return {**call, "function": {**function, "name": names[name]}}
