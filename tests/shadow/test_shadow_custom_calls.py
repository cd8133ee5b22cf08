"""Codex's `apply_patch`, a Responses custom tool, shadowed through a running router.

Found in re-review: the live answer's custom call was kept as its bare input text, while
the shadow, asked in chat, gets the tool as a function of one argument `input` and answers
`{"input": "..."}`; the comparison set the text against the object, and every apply_patch
row disagreed, identical patches too. Both sides are now the chat shape: the same patch
agrees (the reply whole or streamed), one indented otherwise does not.
"""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from tests.harness import router, sdk, send_json, upstream
from tests.shadow.shadow_status import comparison_rows, shadow_counts, shadowed_locally, until

TOOLS: Any = [{"type": "custom", "name": "apply_patch", "description": "Apply a patch"}]
CHOICE: Any = {"type": "custom", "name": "apply_patch"}
USAGE = {"prompt_tokens": 20, "completion_tokens": 10, "total_tokens": 30}


def patch(indent: str) -> str:
    return (
        "*** Begin Patch\n*** Update File: a.py\n@@ def f():\n"
        f"-    return 1\n+{indent}return 2\n*** End Patch\n"
    )


class _Patcher(BaseHTTPRequestHandler):
    """A chat backend calling the `apply_patch` function the router made of the custom
    tool; its patch indents by four spaces, or two where the prompt asks for "two spaces"
    and `obliging` (the shadow)."""

    obliging = False

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        asked = json.dumps(body["messages"])
        indent = "  " if self.obliging and "two spaces" in asked else "    "
        call = {
            "id": "call_1",
            "type": "function",
            "function": {"name": "apply_patch", "arguments": json.dumps({"input": patch(indent)})},
        }
        head = {"id": "chatcmpl-1", "created": 1_790_000_000, "model": body["model"]}
        if not body.get("stream"):
            message = {"role": "assistant", "content": None, "tool_calls": [call]}
            choice = {"index": 0, "message": message, "finish_reason": "tool_calls"}
            whole = {**head, "object": "chat.completion", "choices": [choice], "usage": USAGE}
            send_json(self, 200, json.dumps(whole).encode())
            return
        delta = {"role": "assistant", "tool_calls": [{"index": 0, **call}]}
        chunks = [
            {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
            {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
            {"choices": [], "usage": USAGE},
        ]
        framed = [{**head, "object": "chat.completion.chunk", **c} for c in chunks]
        stream = b"".join(b"data: %s\n\n" % json.dumps(c).encode() for c in framed)
        stream += b"data: [DONE]\n\n"
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(stream)))
        self.end_headers()
        self.wfile.write(stream)

    def log_message(self, *args: object) -> None:
        pass


class _Obliging(_Patcher):
    obliging = True


def test_the_same_patch_agrees_and_another_indentation_does_not(tmp_path: Path) -> None:
    """Live in the cloud, shadowed on local, both chat backends behind the Responses API:
    the same patch, whole and streamed, agrees (it disagreed); a patch whose added line is
    indented by two spaces instead of four disagrees."""
    with (
        upstream(_Patcher) as cloud,
        upstream(_Obliging) as local,
        router(shadowed_locally(local, cloud, tmp_path)) as r,
    ):
        client = sdk(r, timeout=10)
        asks = [
            ("Fix the bug in a.py", False),
            ("Fix the bug in a.py", True),
            ("Fix the bug in a.py, indenting by two spaces", False),
        ]
        for done, (ask, stream) in enumerate(asks, 1):
            kwargs: Any = {"model": "auto", "input": ask, "tools": TOOLS}
            if stream:
                with client.responses.stream(**kwargs, tool_choice=CHOICE) as events:
                    reply = events.get_final_response()
            else:
                reply = client.responses.create(**kwargs, tool_choice=CHOICE)
            [item] = reply.output
            assert item.type == "custom_tool_call" and item.input == patch("    ")
            until(lambda done=done: shadow_counts(r).get("compared", 0) == done)
    assert comparison_rows(tmp_path / "ledger") == [
        (True, "tool_call", "same tools, same arguments"),
        (True, "tool_call", "same tools, same arguments"),
        (False, "tool_call", "same tools, different arguments (1 of 1 calls)"),
    ]
