"""A command's argv, an array of strings, is filled with the command's words.

open-codex 0.1.31 offers one `shell` tool whose `command` is an argv (an array of strings).
The simulator filled each item with the whole command hint, `{"command": ["ls -la"]}`, and
open-codex tried to run a program named "ls -la" (spawn ENOENT) on every call (found in a
live review). A command written as one string is still the whole command line, and so is
each item of a list of commands (`commands`): only an argv's own names, whole, are split.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from typing import Any

import pytest

from router.simulator import SimThread
from tests.agent_shapes.open_codex import SHELL
from tests.simulator.calls import client, only_call, string_tool

MODEL = "tiny"


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


def array_tool(field: str, **limits: Any) -> dict[str, Any]:
    """A `run` tool of one required array of strings, `field`, with `limits` (`maxItems`)."""
    parameters = {
        "type": "object",
        "properties": {field: {"type": "array", "items": {"type": "string"}, **limits}},
        "required": [field],
    }
    return {"type": "function", "function": {"name": "run", "parameters": parameters}}


@pytest.mark.parametrize("field", ["argv", "args", "cmd", "Command", "ARGV"])
def test_other_argv_names_get_words_too(start_sim: Callable[..., SimThread], field: str) -> None:
    words = called(start_sim(), array_tool(field))[field]
    assert len(words) > 1 and all(" " not in word for word in words)


def test_a_list_of_commands_gets_whole_command_lines(
    start_sim: Callable[..., SimThread],
) -> None:
    """`run_commands(commands: string[])` runs each item as a command: it got `["ls",
    "-la"]`, and "-la" was run on its own (found in review). Each item is a whole line."""
    sim = start_sim()
    line = called(sim, string_tool("bash", "command"))["command"]
    assert called(sim, array_tool("commands"))["commands"] == [line]


@pytest.mark.parametrize("field", ["command_args", "shell_command", "commandArgv"])
def test_a_name_that_holds_command_is_filled_item_by_item(
    start_sim: Callable[..., SimThread], field: str
) -> None:
    """Only `command`, `cmd`, `argv` and `args`, whole, name an argv: an array by another
    name that holds one of them is filled as any array of strings is, each item what a
    string of that name gets."""
    sim = start_sim()
    one = called(sim, string_tool("run", field))[field]
    assert called(sim, array_tool(field))[field] == [one]


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
    assert len(called(start_sim(), array_tool("command", maxItems=1))["command"]) == 1
