"""Tool calls compared on the arguments the tool's schema requires, normalised: the free-text
and default optional ones Claude Code's and Codex's tools carry made the same call disagree."""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from router.comparison import Reply, compare
from router.tool_arguments import MAX_DEPTH
from tests.harness import router, sdk, send_json, simulator, upstream
from tests.shadow.shadow_status import comparison_rows, shadow_counts, shadowed_locally, until

BASH = {
    "type": "function",
    "function": {
        "name": "Bash",
        "description": "Run a shell command",
        "parameters": {
            "type": "object",
            "properties": {
                "command": {"type": "string"},
                "description": {"type": "string"},
                "timeout": {"type": "number"},
            },
            "required": ["command"],
        },
    },
}
READ = {
    "type": "function",
    "function": {
        "name": "Read",
        "parameters": {
            "type": "object",
            "properties": {"file_path": {"type": "string"}, "limit": {"type": "integer"}},
            "required": ["file_path"],
        },
    },
}
NO_REQUIRED = {
    "type": "function",
    "function": {"name": "search", "parameters": {"type": "object", "properties": {}}},
}


def _body(*tools: dict[str, Any]) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": "list the files"}], "tools": list(tools)}


def _call(name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "x",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(args)},
    }


def _bash(command: str, **more: Any) -> dict[str, Any]:
    return _call("Bash", {"command": command, **more})


@pytest.mark.parametrize(
    ("live", "shadow", "agreed", "detail"),
    [
        # optional free text and defaults are not compared when the schema says what is required
        (
            [_bash("ls -la", description="List files in current directory")],
            [_bash("ls -la", description="List all files")],
            True,
            "same tools, same required arguments",
        ),
        ([_bash("ls -la")], [_bash("ls -la", timeout=120000)], True, None),
        (
            [_call("Read", {"file_path": "/src/a.py"})],
            [_call("Read", {"file_path": "/src/a.py", "limit": 2000})],
            True,
            None,
        ),
        # required strings compare exactly but for line ends and the blank lines around them;
        # numbers as JSON numbers; whitespace inside a line counts (indentation, quoted spaces)
        ([_bash("ls -la")], [_bash("\r\n  \nls -la\r\n \n")], True, "same tools, same arguments"),
        ([_bash("a\r\n b")], [_bash("a\n b")], True, "same tools, same arguments"),
        (
            [_bash("echo 'a  b'")],
            [_bash("echo 'a b'")],
            False,
            "same tools, different arguments (1 of 1 calls)",
        ),
        (
            [_bash("if x:\n    y")],
            [_bash("if x:\ny")],
            False,
            "same tools, different arguments (1 of 1 calls)",
        ),
        # the required arguments still decide
        (
            [_bash("ls -la", description="List files")],
            [_bash("ls -a", description="List files")],
            False,
            "same tools, different arguments (1 of 1 calls)",
        ),
        ([_bash("ls -la")], [_call("Bash", {"description": "ls -la"})], False, None),
        (
            [_bash("ls")],
            [_call("Read", {"file_path": "ls"})],
            False,
            "different tools (1 vs 1 calls)",
        ),
        # parallel calls: matched as a multiset, each on its required arguments
        (
            [_bash("ls", description="a"), _call("Read", {"file_path": "/x", "limit": 5})],
            [_call("Read", {"file_path": "/x"}), _bash("ls", description="b")],
            True,
            None,
        ),
        (
            [_bash("ls"), _call("Read", {"file_path": "/x"})],
            [_bash("ls"), _call("Read", {"file_path": "/y"})],
            False,
            "same tools, different arguments (1 of 2 calls)",
        ),
        # a tool with no `required`: every argument compared, normalised
        (
            [_call("search", {"q": "a b", "n": 1})],
            [_call("search", {"q": "a b\n", "n": 1.0})],
            True,
            None,
        ),
        ([_call("search", {"q": "a"})], [_call("search", {"q": "a", "n": 2})], False, None),
        ([_call("search", {"n": 1})], [_call("search", {"n": True})], False, None),
        ([_call("search", {"n": "1"})], [_call("search", {"n": 1})], False, None),
    ],
)
def test_calls_agree_on_their_required_arguments(
    live: list[Any], shadow: list[Any], agreed: bool, detail: str | None
) -> None:
    body = _body(BASH, READ, NO_REQUIRED)
    result = compare("tool_calling", body, Reply("", live), Reply("", shadow))
    assert (result.agreed, result.method) == (agreed, "tool_call")
    if detail is not None:
        assert result.detail == detail


def _function(name: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties, "required": required}
    return {"type": "function", "function": {"name": name, "parameters": schema}}


STRING = {"type": "string"}
EDIT_ITEM = {"old_string": STRING, "new_string": STRING, "replace_all": {"type": "boolean"}}
EDIT = _function(
    "Edit", {"file_path": STRING, **EDIT_ITEM}, ["file_path", "old_string", "new_string"]
)
MULTI_EDIT = _function(
    "MultiEdit",
    {
        "file_path": STRING,
        "edits": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": EDIT_ITEM,
                "required": ["old_string", "new_string"],
            },
        },
    },
    ["file_path", "edits"],
)
WRITE = _function("Write", {"file_path": STRING, "content": STRING}, ["file_path", "content"])


def _edit(old: str, new: str) -> dict[str, Any]:
    return _call("Edit", {"file_path": "a.py", "old_string": old, "new_string": new})


def _multi(*edits: dict[str, Any]) -> dict[str, Any]:
    return _call("MultiEdit", {"file_path": "a.py", "edits": list(edits)})


def _write(content: str) -> dict[str, Any]:
    return _call("Write", {"file_path": "a.py", "content": content})


SAME, SOME_LEFT = "same tools, same arguments", "same tools, same required arguments"
DIFFERENT = "same tools, different arguments (1 of 1 calls)"


@pytest.mark.parametrize(
    ("live", "shadow", "detail"),
    [
        # whitespace that changes what the call does counts: the first line's indentation
        # (stripped whole, it agreed), trailing spaces an `old_string` must match in the
        # file, a Bash `\ ` (an escaped space) against `\` (the line goes on); each line's
        # end was stripped, so these agreed
        (_edit("    return x", "    return y"), _edit("    return x", "return y"), DIFFERENT),
        (_edit("x = 1", "x = 2"), _edit("x = 1   ", "x = 2"), DIFFERENT),
        (_edit("if a:\n    x = 1", "y"), _edit("if a:  \n    x = 1", "y"), DIFFERENT),
        (_bash("ls \\\n  -la"), _bash("ls \\  \n  -la"), DIFFERENT),
        (_bash("ls -la"), _bash("ls -la "), DIFFERENT),
        # what changes nothing a tool reads does not: line ends, blank lines around the text
        (_edit("    return x", "    return y\n"), _edit("\n    return x", "    return y"), SAME),
        (_write("def f():\r\n    pass\r\n"), _write("\n \ndef f():\n    pass"), SAME),
        # a call lacking a required argument is compared whole: filtered to `{}`, any two agreed
        (_call("Bash", {"cmd": "rm -rf /"}), _call("Bash", {"cmd": "ls"}), DIFFERENT),
        (_call("Bash", {"cmd": "ls"}), _call("Bash", {"cmd": "ls"}), SAME),
        (_bash("ls", description="a"), _call("Bash", {"description": "a"}), DIFFERENT),
        # nested objects keep only what their schema requires: a repeated default in an
        # `edits` item disagreed
        (
            _multi({"old_string": "a", "new_string": "b"}),
            _multi({"old_string": "a", "new_string": "b", "replace_all": False}),
            SOME_LEFT,
        ),
        (
            _multi({"old_string": "a", "new_string": "b"}),
            _multi({"old_string": "a", "new_string": "c", "replace_all": False}),
            DIFFERENT,
        ),
        (
            _multi({"old_string": "a", "replace_all": True}),
            _multi({"old_string": "a", "replace_all": False}),
            DIFFERENT,
        ),
    ],
)
def test_arguments_compare_as_the_tool_reads_them(
    live: dict[str, Any], shadow: dict[str, Any], detail: str
) -> None:
    body = _body(BASH, EDIT, MULTI_EDIT, WRITE)
    for a, b in ((live, shadow), (shadow, live)):
        result = compare("tool_calling", body, Reply("", [a]), Reply("", [b]))
        assert (result.agreed, result.detail) == (detail != DIFFERENT, detail)


def _nested(levels: int) -> tuple[dict[str, Any], Reply, Reply]:
    """A tool whose required `x` nests `levels` deep to an object requiring `v`, and two
    calls differing only in that object's optional `note`."""
    schema: dict[str, Any] = {"type": "object", "properties": {"v": STRING}, "required": ["v"]}
    plain: dict[str, Any] = {"v": "x"}
    noted: dict[str, Any] = {"v": "x", "note": "n"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"x": schema}, "required": ["x"]}
        plain, noted = {"x": plain}, {"x": noted}
    tool = {"type": "function", "function": {"name": "deep", "parameters": schema}}
    return _body(tool), Reply("", [_call("deep", plain)]), Reply("", [_call("deep", noted)])


def test_a_schema_is_followed_only_so_deep() -> None:
    """An object `MAX_DEPTH` levels down is compared whole, its optional keys too: the
    client's schema decides how far the comparison recurses, to a bound."""
    near = compare("tool_calling", *_nested(MAX_DEPTH - 1))
    assert (near.agreed, near.detail) == (True, SOME_LEFT)
    assert compare("tool_calling", *_nested(MAX_DEPTH)).agreed is False


def test_a_tool_the_request_does_not_describe_has_all_its_arguments_compared() -> None:
    live = Reply("", [_bash("ls -la", description="List files in current directory")])
    shadow = Reply("", [_bash("ls -la", description="List all files")])
    plain = {"messages": [{"role": "user", "content": "list the files"}]}
    assert compare("tool_calling", plain, live, shadow).agreed is False
    odd = {**plain, "tools": [{"type": "function", "function": {"name": "Bash"}}, "junk", {}]}
    assert compare("tool_calling", odd, live, shadow).agreed is False
    assert compare("tool_calling", _body(BASH), live, shadow).agreed is True


def test_details_name_no_arguments() -> None:
    live, shadow = Reply("", [_bash("cat secret.txt")]), Reply("", [_bash("rm -rf build")])
    result = compare("tool_calling", _body(BASH), live, shadow)
    assert "secret" not in result.detail and "build" not in result.detail


class _Live(BaseHTTPRequestHandler):
    """A live backend whose Bash call carries Claude Code's free-text `description` (and,
    asked for hidden files, another command than the shadow's)."""

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        hidden = "hidden" in body["messages"][-1]["content"]
        args = {"command": "ls -a" if hidden else "ls -la", "description": "List files here"}
        call = {"id": "call_1", "type": "function", "function": {"name": "Bash"}}
        call["function"]["arguments"] = json.dumps(args)  # type: ignore[index]
        message = {"role": "assistant", "content": None, "tool_calls": [call]}
        reply = {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1_790_000_000,
            "model": "cloud-model",
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
            "usage": {"prompt_tokens": 20, "completion_tokens": 10, "total_tokens": 30},
        }
        send_json(self, 200, json.dumps(reply).encode())

    def log_message(self, *args: object) -> None:
        pass


def test_a_shadowed_call_that_differs_only_in_an_optional_description_agrees(
    tmp_path: Path,
) -> None:
    """Through the router: the local shadow (a simulator) calls Bash with the required
    `command` only; the live call adds a `description`. The same command agrees (it
    disagreed, its arguments compared byte for byte); another command does not."""
    with (
        upstream(_Live) as cloud,
        simulator(profile="vllm", model="local-model") as local,
        router(shadowed_locally(local, cloud, tmp_path)) as r,
    ):
        client = sdk(r, timeout=10)
        for done, ask in enumerate(("List the files.", "List the hidden files."), 1):
            reply = client.chat.completions.create(
                model="auto",
                messages=[{"role": "user", "content": ask}],
                tools=[BASH],  # type: ignore[list-item]
                tool_choice="required",
            )
            assert reply.choices[0].message.tool_calls is not None
            until(lambda done=done: shadow_counts(r).get("compared", 0) == done)
    assert comparison_rows(tmp_path / "ledger") == [
        (True, "tool_call", "same tools, same required arguments"),
        (False, "tool_call", "same tools, different arguments (1 of 1 calls)"),
    ]
