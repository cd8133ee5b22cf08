"""Which offered tool the simulated model calls and with what arguments, and, by the same
reading of the ask, which named branch or agent a structured answer picks.

A call goes to the tool `tool_choice` forces, else the one the ask names (`asked_tool`), else
the first (one that starts a subagent only where asked: `delegation`), with arguments built
from its JSON schema (`instances.arguments_for`); under a forced choice, after a call of one
offered, to the tool after it (`tool_call`). Of named `anyOf` or `oneOf` branches (BeeAI's
tools) a structured answer takes the one a fixed rule picks from the conversation
(`chooser`); of a field naming an agent, in a structured answer or a call's arguments,
one the tool's description or the prompt lists (`named_agent`); of a file's path that must
be absolute, one under the working directory the system prompt states (`workdir`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from classifier import swarms
from router.simulator.arithmetic import evaluate_first
from router.simulator.asked_tool import (
    asked_index,
    expression_arguments,
    file_verb_index,
    finishing_index,
)
from router.simulator.delegation import delegates, first_index, handed
from router.simulator.instances import Chooser, Named, arguments_for
from router.simulator.offered_agents import described, listing
from router.simulator.prompt import Prompt, ToolCall, ToolSpec, ends
from router.simulator.scalars import runs_commands
from router.simulator.workdir import working_directory


def tool_call(prompt: Prompt) -> ToolCall:
    """A call of the forced tool, else `_next_tool`'s. A tool the ask named (not one
    `tool_choice` forced, nor the first by default) that takes one plain string gets the
    ask's arithmetic expression where it holds one (`asked_tool.expression_arguments`):
    Langflow's `evaluate_expression` got the prompt's first words."""
    tool = next((t for t in prompt.tools if t.name == prompt.forced_tool), None)
    if tool is not None:
        return ToolCall(tool.name, json.dumps(_arguments(tool, prompt)))
    return _unforced_call(prompt, _asked_tool(prompt))


def chosen_call(prompt: Prompt) -> ToolCall | None:
    """The call a model makes where it may answer text instead (no call forced): `tool_call`'s,
    but None where the first offered tool starts a subagent and the ask names no tool, the
    answer then text (`delegation`: Claude Code offers `Agent` first, and the simulator's
    default call of it nested subagents four deep). The asked tool is read once for both:
    the ask's words are scanned against every offered name (`_asked_tool`)."""
    asked = _asked_tool(prompt)
    if asked is None and delegates(prompt.tools[0].schema):
        return None
    return _unforced_call(prompt, asked)


def _unforced_call(prompt: Prompt, asked: ToolSpec | None) -> ToolCall:
    """A call of `_next_tool`'s tool, given the tool the ask names (`asked`)."""
    tool = _next_tool(prompt, asked)
    found = evaluate_first(ends(prompt.ask)) if tool is asked else None
    expression = expression_arguments(tool.schema, found[0].strip()) if found else None
    return ToolCall(tool.name, json.dumps(expression or _arguments(tool, prompt)))


def _arguments(tool: ToolSpec, prompt: Prompt) -> dict[str, Any]:
    """Arguments for a call of `tool`: its id fields the id the ask shows (`called_ids`), its
    free strings no words of the ask where it runs commands (`scalars.runs_commands`), a
    field naming an agent one the tool's description or the prompt lists (`named_agent`:
    VoltAgent's `delegate_task` got the ask as its `targetAgents`, deepagents' `task` as its
    `subagent_type`, found in live reviews), a path that must be absolute one under the
    working directory the system prompt states (`workdir`: dcode wrote `/fib.py`); a
    subagent's tool's strings the task, the ask less its instruction to start one
    (`delegation.handed`: its subagent, asked for `Agent`, started one again)."""
    shell = runs_commands(tool.name)
    agent = named_agent(prompt, tool.description)
    cwd = working_directory(prompt.system)
    ask = prompt.ask
    if delegates(tool.schema):  # a subagent's task names no tool that starts one
        ask = handed(ask, (t.name for t in prompt.tools if delegates(t.schema)))
    return arguments_for(tool.schema, ask, prompt.shown_id, shell, agent, cwd)


def chooser(prompt: Prompt, ask: str | None = None) -> Chooser:
    """How a structured answer picks among named branches (BeeAI's tools and `final_answer`,
    an `anyOf` or `oneOf` in its `ToolCall` schema): with a tool's result after the latest
    ask, the one that sends the answer (`finishing_index`), so a run finishes after its
    first tool's result, whatever else the ask wanted; else the one the ask names
    (`asked_index`: BeeAI's nudge names `final_answer`); else the first, as before. `ask` is
    the user's text less a schema it writes (`answer.prompted_json`), else the user's text: read
    whole, the schema named every branch, and the longest name (`final_answer`) won before
    any tool ran (found in review)."""
    said = ends(prompt.user if ask is None else ask)

    def choose(names: Sequence[str]) -> int | None:
        done = finishing_index(names) if prompt.after_tool_result else None
        return asked_index(names, said) if done is None else done

    return choose


def named_agent(prompt: Prompt, description: str = "") -> Named:
    """Which agent a field that names one gets, as a model reading the list of agents would
    write one (`offered_agents`): the one the ask names (`asked_index`), else the first
    listed. A tool's arguments read the tool's own `description` first (deepagents' `task`
    lists its subagent types there alone, `described`); then the prompt's list (fast-agent's
    router and orchestrator), the ask read before it. None where neither lists any, and the
    field is filled as before."""

    def named() -> str | None:
        names, ask = described(description), prompt.ask
        offered = None if names else listing(prompt.user, prompt.system)
        if offered is not None:
            names, ask = offered.names, offered.ask
        if not names:
            return None
        index = asked_index(names, ends(ask))
        return names[0 if index is None else index]

    return named


def _asked_tool(prompt: Prompt) -> ToolSpec | None:
    """The offered tool the latest user ask names (`asked_tool.asked_index`), read within
    its head and tail as the keyword rules read it (`ends`). Of a swarms transcript (its
    run's history flattened into the ask), its newest entry (`classifier.swarms.latest_entry`):
    read whole, its head (swarms' system prompt, naming `create_plan` first) named the tool,
    and the final summary's `complete_task` was never called (a live review of demo mode).
    An ask that names none but opens with a verb and a file's path asks for the tool "verb
    file" names (`asked_tool.file_verb_index`: "Read calc.py ..." calls `read_file`)."""
    ask = ends(swarms.latest_entry(prompt.user) or prompt.ask)
    names = [tool.name for tool in prompt.tools]
    index = asked_index(names, ask)
    index = file_verb_index(names, ask) if index is None else index
    return None if index is None else prompt.tools[index]


def _next_tool(prompt: Prompt, asked: ToolSpec | None) -> ToolSpec:
    """The tool a call goes to when `tool_choice` names none: `asked`, the one the ask names ("use
    evaluate_expression", "get weather" for `get_weather`), else the first; under a forced
    choice (`"required"`, Anthropic's `any`), once the conversation holds a call of one
    offered, the tool after it in the list (the last stays the last). An agent offers its function
    tools and then its output tool (pydantic-ai's `final_result`, smolagents'
    `final_answer`) and forces a call: calling the first tool every time, the simulator
    never let one finish (pydantic-ai stopped at its request limit, found in review)."""
    names = [tool.name for tool in prompt.tools]
    if not prompt.tool_required or prompt.last_called not in names:
        default = prompt.tools[first_index([tool.schema for tool in prompt.tools])]
        return asked or default
    return prompt.tools[min(names.index(prompt.last_called) + 1, len(names) - 1)]


def every_tool_call(prompt: Prompt) -> tuple[ToolCall, ...]:
    """Parallel calls: one to each offered tool."""
    return tuple(ToolCall(t.name, json.dumps(_arguments(t, prompt))) for t in prompt.tools)
