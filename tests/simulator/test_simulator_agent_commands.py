"""What a coding agent runs or reads in demo mode is never the ask's words: a command's field
gets a harmless command, a path's the file the ask names, and a request that forbids tool
calls gets text.

A live review of demo mode (Claude Code 2.1.332, Codex CLI 0.171.0) found three things:
- Codex's `exec_command` has a string `cmd`, which got the ask's first six words: Codex ran
  `/bin/bash -lc 'Read calc.py and fix the bug'`, and an ask opening "rm -rf build and ..."
  would have run.
- Claude Code's `Read` got `file_path` "src/main.py" whatever file the ask named, so its
  demo tool loop never read the file.
- Claude Code's compaction request ("CRITICAL: Respond with TEXT ONLY. Do NOT call any
  tools.") got a `Read` call, twice, and Claude Code gave up compacting.

Through a real socket: the openai SDK on Responses (Codex's API) and chat (the demo router's
translation), and Claude Code's recorded body on the simulator's `/v1/messages`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from router.simulator import SimThread
from tests.recorded import FIXTURES, loader
from tests.simulator.calls import client, only_call, string_tool

MODEL = "tiny"
HTTP = httpx.Client(trust_env=False, timeout=10)
DANGEROUS = "rm -rf build and fix the bug in calc.py"
recorded = loader(FIXTURES)

# Codex 0.171.0's `exec_command` as it sent it (descriptions shortened)
EXEC_COMMAND: dict[str, Any] = {
    "type": "function",
    "name": "exec_command",
    "description": "Runs a command in a PTY, returning output or a session ID for ongoing "
    "interaction.",
    "strict": False,
    "parameters": {
        "type": "object",
        "properties": {
            "cmd": {"type": "string", "description": "Shell command to execute."},
            "justification": {"type": "string"},
            "login": {"type": "boolean"},
            "max_output_tokens": {"type": "number"},
            "prefix_rule": {"type": "array", "items": {"type": "string"}},
            "sandbox_permissions": {
                "type": "string",
                "enum": ["use_default", "require_escalated"],
            },
            "shell": {"type": "string", "description": "Shell binary to launch."},
            "tty": {"type": "boolean"},
            "workdir": {"type": "string"},
            "yield_time_ms": {"type": "number"},
        },
        "required": ["cmd"],
        "additionalProperties": False,
    },
}

# Claude Code 2.1.332's compaction request, its opening and its closing as sent
COMPACTION = (
    "CRITICAL: Respond with TEXT ONLY. Do NOT call any tools.\n\n"
    "- Do NOT use Read, Bash, Grep, Glob, Edit, Write, or ANY other tool.\n"
    "- You already have all the context you need in the conversation above.\n"
    "- Tool calls will be REJECTED and will waste your only turn \u2014 you will fail the "
    "task.\n"
    "- Your entire response must be plain text: an <analysis> block followed by a <summary> "
    "block.\n\n"
    "Your task is to create a detailed summary of the conversation so far, paying close "
    "attention to the user's explicit requests and your previous actions.\n\n"
    "REMINDER: Do NOT call any tools. Respond with plain text only \u2014 an <analysis> block "
    "followed by a <summary> block. Tool calls will be rejected and you will fail the task.\n"
)


def codex_call(sim: SimThread, ask: str, tools: list[dict[str, Any]]) -> tuple[str, Any]:
    """The name and parsed arguments of the one call Codex's ask gets on Responses."""
    reply = client(sim).responses.create(
        model=MODEL,
        input=ask,
        tools=tools,
        tool_choice="auto",  # type: ignore[arg-type]
    )
    (call,) = [item for item in reply.output if item.type == "function_call"]
    return call.name, json.loads(call.arguments)


def test_codexs_exec_command_never_runs_the_asks_words(
    start_sim: Callable[..., SimThread],
) -> None:
    """`cmd` was "rm -rf build and fix the" (the ask's first six words)."""
    name, arguments = codex_call(start_sim(), DANGEROUS, [EXEC_COMMAND])
    assert name == "exec_command"
    assert "rm" not in arguments["cmd"].split() and arguments["cmd"] == "ls -la"


def test_through_the_demo_routers_chat_translation_too(
    start_sim: Callable[..., SimThread],
) -> None:
    """The demo router hands the simulator Codex's tools as chat tools."""
    function = {k: EXEC_COMMAND[k] for k in ("name", "description", "parameters")}
    messages: Any = [{"role": "user", "content": DANGEROUS}]
    tools: Any = [{"type": "function", "function": function}]
    reply = client(start_sim()).chat.completions.create(model=MODEL, messages=messages, tools=tools)
    assert only_call(reply) == ("exec_command", {"cmd": "ls -la"})


@pytest.mark.parametrize("field", ["cmd", "shell_command", "script", "bash", "shell", "code"])
def test_a_commands_field_of_any_tool_gets_the_harmless_command(
    start_sim: Callable[..., SimThread], field: str
) -> None:
    messages: Any = [{"role": "user", "content": DANGEROUS}]
    tools: Any = [string_tool("do_it", field)]
    reply = client(start_sim()).chat.completions.create(model=MODEL, messages=messages, tools=tools)
    assert only_call(reply) == ("do_it", {field: "ls -la"})


@pytest.mark.parametrize("tool", ["run_terminal_cmd", "Bash", "execute_python", "shell"])
def test_every_free_string_of_a_shell_tool_gets_the_harmless_command(
    start_sim: Callable[..., SimThread], tool: str
) -> None:
    """A shell tool's `input` (LangChain's `terminal`), not named for a command, runs too."""
    messages: Any = [{"role": "user", "content": DANGEROUS}]
    tools: Any = [string_tool(tool, "input")]
    reply = client(start_sim()).chat.completions.create(model=MODEL, messages=messages, tools=tools)
    assert only_call(reply) == (tool, {"input": "ls -la"})


def test_another_tools_free_string_still_quotes_the_ask(
    start_sim: Callable[..., SimThread],
) -> None:
    """Only what may run is kept from the ask: a note's text still quotes its first words."""
    messages: Any = [{"role": "user", "content": "Remember that the demo is on Friday."}]
    tools: Any = [string_tool("save_note", "text")]
    reply = client(start_sim()).chat.completions.create(model=MODEL, messages=messages, tools=tools)
    assert only_call(reply) == ("save_note", {"text": "Remember that the demo is on"})


CLAUDE_CODE_DIRECTORY = "/tmp/review_driftlive/work/claude"  # `code.json`'s working directory


def claude_code(ask: str) -> dict[str, Any]:
    """Claude Code 2.1.332's recorded first request (`code.json`) asking `ask`, unstreamed."""
    body = recorded("claude-code-2.1.332/code.json")
    body["messages"][0]["content"][-1]["text"] = ask
    return body | {"model": MODEL, "stream": False}


def messages_reply(sim: SimThread, body: dict[str, Any]) -> list[dict[str, Any]]:
    """The content blocks of the simulator's Messages answer to `body`."""
    response = HTTP.post(sim.url + "/v1/messages", json=body)
    assert response.status_code == 200, response.text
    blocks: list[dict[str, Any]] = response.json()["content"]
    return blocks


@pytest.mark.parametrize(
    ("ask", "path"),
    [
        ("Read calc.py and fix the bug in add so it returns the sum. Edit the file.", "calc.py"),
        (
            "Read /tmp/repo/calc.py and fix the bug in add so it returns the sum.",
            "/tmp/repo/calc.py",
        ),
        ("Read notes.md and tidy its headings.", "notes.md"),
    ],
)
def test_claude_codes_read_takes_the_file_the_ask_names(
    start_sim: Callable[..., SimThread], ask: str, path: str
) -> None:
    """Was "src/main.py" for each. `Read` wants "The absolute path to the file to read": a
    relative one is put under the "Primary working directory" the system prompt states
    (`workdir`)."""
    path = path if path.startswith("/") else f"{CLAUDE_CODE_DIRECTORY}/{path}"
    blocks = messages_reply(start_sim(), claude_code(ask))
    (call,) = [block for block in blocks if block["type"] == "tool_use"]
    assert (call["name"], call["input"]) == ("Read", {"file_path": path})


def compaction(tool_choice: dict[str, str] | None = None) -> dict[str, Any]:
    """Claude Code's compaction request after its first turn: the turn's history, then the
    request to summarize it, its tools still offered."""
    body = claude_code("Read calc.py and fix the bug in add so it returns the sum.")
    body["messages"].extend(
        [
            {"role": "assistant", "content": [{"type": "text", "text": "The file is fixed."}]},
            {"role": "user", "content": COMPACTION},
        ]
    )
    return body if tool_choice is None else body | {"tool_choice": tool_choice}


def test_claude_codes_compaction_request_is_answered_in_text(
    start_sim: Callable[..., SimThread],
) -> None:
    """Was a `Read` call."""
    blocks = messages_reply(start_sim(), compaction())
    assert [block["type"] for block in blocks] == ["text"]
    assert blocks[0]["text"]


def test_a_forced_call_is_made_even_so(start_sim: Callable[..., SimThread]) -> None:
    """`tool_choice` forcing a call constrains the output to one, whatever the text says."""
    blocks = messages_reply(start_sim(), compaction({"type": "any"}))
    assert [block["type"] for block in blocks] == ["tool_use"]


@pytest.mark.parametrize(
    ("system", "ask"),
    [
        ("You are a helpful assistant.", "Summarize our chat. Do not use any tools."),
        ("You are a helpful assistant.\n\nRespond with text only.", "Read calc.py for me."),
        ("You are a helpful assistant.", "Read calc.py, but don't call any tools."),
    ],
)
def test_a_chat_request_forbidding_tools_gets_text(
    start_sim: Callable[..., SimThread], system: str, ask: str
) -> None:
    messages: Any = [{"role": "system", "content": system}, {"role": "user", "content": ask}]
    tools: Any = [string_tool("read_file", "path")]
    reply = client(start_sim()).chat.completions.create(model=MODEL, messages=messages, tools=tools)
    message = reply.choices[0].message
    assert not message.tool_calls and message.content
