"""A command's argv, an array of strings, is filled with the command's words.

open-codex 0.1.31 offers one `shell` tool whose `command` is an argv (an array of strings).
The simulator filled each item with the whole command hint, `{"command": ["ls -la"]}`, and
open-codex tried to run a program named "ls -la" (spawn ENOENT) on every call (found in a
live review). A command written as one string is still the whole command line.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from typing import Any

import pytest

from router.simulator import SimThread
from tests.simulator.calls import client, only_call, string_tool

MODEL = "tiny"
# open-codex's `shell` tool as it offers it (`agent-loop.ts`)
SHELL = {
    "type": "function",
    "function": {
        "name": "shell",
        "description": "Runs a shell command, and returns its output.",
        "parameters": {
            "type": "object",
            "properties": {
                "command": {"type": "array", "items": {"type": "string"}},
                "workdir": {"type": "string", "description": "The working directory."},
                "timeout": {"type": "number", "description": "The maximum time to wait."},
            },
            "required": ["command"],
            "additionalProperties": False,
        },
    },
}


def called(sim: SimThread, tool: dict[str, Any]) -> dict[str, Any]:
    """The arguments of the call the simulator answers "List the files here." with."""
    messages: Any = [{"role": "user", "content": "List the files here."}]
    reply = client(sim).chat.completions.create(model=MODEL, messages=messages, tools=[tool])
    return only_call(reply)[1]


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_open_codexs_shell_gets_an_argv(start_sim: Callable[..., SimThread], profile: str) -> None:
    """Each word of the command its own item, as `execvp` takes them: no item holds a
    space, and the items joined are the command."""
    command = called(start_sim(profile=profile), SHELL)["command"]
    assert isinstance(command, list) and len(command) > 1
    assert all(isinstance(word, str) and word and " " not in word for word in command)
    assert shlex.split(shlex.join(command)) == command


@pytest.mark.parametrize("field", ["argv", "args", "cmd"])
def test_other_argv_names_get_words_too(start_sim: Callable[..., SimThread], field: str) -> None:
    parameters = {
        "type": "object",
        "properties": {field: {"type": "array", "items": {"type": "string"}}},
        "required": [field],
    }
    tool = {"type": "function", "function": {"name": "run", "parameters": parameters}}
    words = called(start_sim(), tool)[field]
    assert len(words) > 1 and all(" " not in word for word in words)


def test_a_command_string_is_the_whole_command_line(
    start_sim: Callable[..., SimThread],
) -> None:
    """A schema that takes the command as one string gets it as one string."""
    command = called(start_sim(), string_tool("bash", "command"))["command"]
    assert isinstance(command, str) and len(command.split()) > 1


def test_an_array_too_short_for_the_words_keeps_to_its_bound(
    start_sim: Callable[..., SimThread],
) -> None:
    """`maxItems: 1` allows no argv of two words: one item, as before."""
    parameters = {
        "type": "object",
        "properties": {"command": {"type": "array", "items": {"type": "string"}, "maxItems": 1}},
        "required": ["command"],
    }
    tool = {"type": "function", "function": {"name": "run", "parameters": parameters}}
    assert len(called(start_sim(), tool)["command"]) == 1
