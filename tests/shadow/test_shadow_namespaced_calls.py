"""A namespaced tool's call shadowed through a running router, under a name chat hashes.

Found in review: the live answer's tally keeps the call of a namespaced tool under its
joined name, `<namespace>__<name>`, but where that name is past chat's 64 characters (or
another tool's) the translation offers the tool under a hashed name
(`router.translate.namespaces`), and the shadow, asked in chat, calls it so: the same call
on both sides was "different tools". The shadow's calls are now read back under the joined
name (`router.shadow_names`), and the tool's schema still says which arguments count.
"""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from router.translate.namespaces import MAX_NAME, joined
from tests.harness import router, sdk, send_json, upstream
from tests.shadow.shadow_status import comparison_rows, shadow_counts, shadowed_locally, until

NAMESPACE = "mcp__github_enterprise_server"
TOOL = "list_pull_request_review_comments_for_repo"
PARAMETERS = {
    "type": "object",
    "properties": {"repo": {"type": "string"}, "per_page": {"type": "integer"}},
    "required": ["repo"],
}
TOOLS: Any = [
    {
        "type": "namespace",
        "name": NAMESPACE,
        "description": "GitHub Enterprise",
        "tools": [
            {"type": "function", "name": TOOL, "description": "List", "parameters": PARAMETERS},
            {"type": "function", "name": "get_me", "description": "Who am I", "parameters": {}},
        ],
    }
]
USAGE = {"prompt_tokens": 20, "completion_tokens": 10, "total_tokens": 30}


class _Caller(BaseHTTPRequestHandler):
    """A chat backend calling the first tool it is offered, on `a/b`, 30 a page; the shadow
    (`other`) 50 a page (an optional argument), and its last tool where the prompt asks for
    "me"."""

    other = False

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        names = [tool["function"]["name"] for tool in body["tools"]]
        asked = json.dumps(body["messages"])
        name = names[-1] if self.other and "me" in asked.split() else names[0]
        arguments = {"repo": "a/b", "per_page": 50 if self.other else 30}
        call = {
            "id": "call_1",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)},
        }
        message = {"role": "assistant", "content": None, "tool_calls": [call]}
        choice = {"index": 0, "message": message, "finish_reason": "tool_calls"}
        whole = {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1_790_000_000,
            "model": body["model"],
            "choices": [choice],
            "usage": USAGE,
        }
        send_json(self, 200, json.dumps(whole).encode())

    def log_message(self, *args: object) -> None:
        pass


class _Other(_Caller):
    other = True


def test_the_same_call_of_a_namespaced_tool_agrees_under_a_hashed_chat_name(
    tmp_path: Path,
) -> None:
    """Live in the cloud, shadowed on local, both chat backends behind the Responses API:
    the same tool on the same repo agrees, its optional page size aside (the schema, under
    the hashed name too, says it does not count); another tool of the namespace does not."""
    assert len(joined(NAMESPACE, TOOL)) > MAX_NAME  # chat gets a hashed name
    with (
        upstream(_Caller) as cloud,
        upstream(_Other) as local,
        router(shadowed_locally(local, cloud, tmp_path)) as r,
    ):
        client = sdk(r, timeout=10)
        for done, ask in enumerate(["List the review comments of a/b", "Tell me about me"], 1):
            reply = client.responses.create(model="auto", input=ask, tools=TOOLS)
            [item] = reply.output
            assert item.type == "function_call" and (item.namespace, item.name) == (NAMESPACE, TOOL)
            until(lambda done=done: shadow_counts(r).get("compared", 0) == done)
    assert comparison_rows(tmp_path / "ledger") == [
        (True, "tool_call", "same tools, same required arguments"),
        (False, "tool_call", "different tools (1 vs 1 calls)"),
    ]
