"""What the simulated model says: an answer shaped by the prompt's intent, decided purely.

Coding prompts get a fenced Python block (calling the functions a prompt shows as provided,
`dataprompt`), a prompt asking for a SQL query a ```sql block over the first table its
schema shows, arithmetic gets `\\boxed{}`, offered tools get a
call to the tool `tool_choice` names, else the one the ask names (`asked_tool`), else the
first, with arguments built from its JSON schema, a tool
result gets a short summary (unless `tool_choice` forces another call: of the tool after the
one called last, `tool_call`), anything else plain prose. A request for structured output
(`response_format`, `text.format`, vLLM's `structured_outputs`) gets, where it would get
text, a JSON document built from its schema the way tool arguments are (of named `anyOf` or
`oneOf` branches, BeeAI's tools, the one a fixed rule picks from the conversation: `_chooser`;
of a field naming an agent, one the prompt lists: `_agent`),
or the first of the strings it allows; on vLLM also where it would call an offered tool
unforced, as vLLM's constraint holds the whole output. A prompt that holds a JSON schema
and asks for JSON (instructor's JSON modes), or shows an example object and asks for JSON
(Open WebUI's title and tags), gets an instance of it, or an object of the example's shape,
where it would get text or any JSON object (`prompted`); so does an example object shown
between markers (MetaGPT's `[CONTENT]`), between the same markers, and a list of strings
asked for in a form shown (gpt-researcher's sub-queries), as many strings as shown. Same
prompt and seed, same answer.
"""

from __future__ import annotations

import ast
import hashlib
import json
import operator
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from classifier import swarms
from router.simulator import dataprompt
from router.simulator.asked_tool import asked_index, expression_arguments, finishing_index
from router.simulator.delegation import delegates, first_index
from router.simulator.instances import JSON_OBJECT, Chooser, Named, arguments_for, structured
from router.simulator.offered_agents import listing
from router.simulator.prompted import asked_json, framed

_CODE = re.compile(
    r"```|\bdef\b|\bclass\b|\bfunction\b|\bpython\b|\bcode\b|\bbug\b|\bimplement|\bscript\b"
    r"|\bregex\b|\bsql\b|\brefactor|\bunit tests?\b",
    re.I,
)
_MATH = re.compile(
    r"\\boxed|\bsolve\b|\bcompute\b|\bcalculate\b|\bhow many\b|\bequation\b|\bsum of\b"
    r"|\d+\s*[-+*/^×]\s*\d+",
    re.I,
)
# how much of a long text the keyword rules read, a head and a tail in characters, as the
# classifier reads a request (`classifier.clip`'s HEAD_BYTES, TAIL_BYTES): searched whole, an
# 8 MB prompt took 10-16 s in `_CODE` and `_MATH` (found in review)
_HEAD, _TAIL = 1500, 500
_EXPR = re.compile(r"[\d.(][\d.\s+\-*/^×()]*[\d)]")
_FUNC_NAME = re.compile(r"(?:function|def|method)\s+(?:called\s+|named\s+)?`?([A-Za-z_]\w*)`?")
# a function the prompt asks written, where it shows others as provided: a definition or
# a name given as one ("a function called `f`"), not any word after "method"
_NAMED = re.compile(r"(?:\bdef\s+|(?:function|method)\s+(?:called|named)\s+)`?([A-Za-z_]\w*)`?")
_TEXT = (
    "the system routes each request to the backend that serves it best while keeping a "
    "fallback ready so that agents never wait on a single failing model and every decision "
    "stays visible in the ledger with its tokens latency and cost"
)
_WORDS = _TEXT.split()


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool offered to the model, in any API's shape: its name and JSON-schema parameters."""

    name: str
    schema: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ToolCall:
    name: str
    arguments: str  # JSON text, as the wire carries it


@dataclass(frozen=True, slots=True)
class Reply:
    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()

    @property
    def has_code(self) -> bool:
        return "```" in self.text


@dataclass(frozen=True, slots=True)
class Prompt:
    """What the model reads: the last user text, offered tools, and whether a tool just ran.

    `tool_required` is a request that demands some call without naming one (chat's and
    Responses' `"required"`, Anthropic's `{"type": "any"}`); `forced_tool` names one.
    `continues` is the last assistant message's text when vLLM is asked to continue it
    (`continue_final_message`): the answer goes on from it (`continuation`). `last_called`
    is the tool the conversation shows called last (`turns.last_called`), `system` the
    system's text (`turns.system_text`), `shown_id` what a call's id field gives back
    (`called_ids.shown_id`)."""

    user: str
    tools: tuple[ToolSpec, ...] = ()
    forced_tool: str | None = None
    tools_disabled: bool = False
    after_tool_result: bool = False
    tool_required: bool = False
    continues: str = ""  # a prefill the server was asked to go on from (vLLM's chat)
    # the JSON schema a structured-output request constrains the text to, or the strings
    # one of which it must be (vLLM's `structured_outputs.choice`): `structured.Constraint`
    output_schema: dict[str, Any] | None = None
    output_choice: tuple[str, ...] = ()
    output_exclusive: bool = False  # and no tool call beside it (vLLM's guided decoding)
    last_called: str | None = None
    system: str = ""
    shown_id: str | None = None  # an id an earlier call gave that the ask shows (`called_ids`)
    asked: str | None = None  # the latest ask as the classifier reads it (`latest_ask`)

    @property
    def ask(self) -> str:
        """What the user asked: the latest ask as the classifier reads it (`latest_ask`),
        else the last user message's text. What picks the tool called and fills its
        arguments and the keyword rules' reading; `user` keeps the message as sent, for what
        shapes the answer (a framework's frame, a schema shown in it)."""
        return self.user if self.asked is None else self.asked

    @property
    def forces_call(self) -> bool:
        """Whether the server must answer with a tool call: vLLM and OpenAI constrain the
        output to one, so nothing (not even a test's scripted text) may answer instead."""
        forced = self.tool_required or self.forced_tool is not None
        return forced and bool(self.tools) and not self.tools_disabled


def rng_for(seed: int, text: str, salt: int = 0) -> random.Random:
    """A private random stream per (seed, prompt, choice index): temperature-0 determinism."""
    digest = hashlib.blake2b(f"{seed}\x00{salt}\x00{text}".encode(), digest_size=8).digest()
    return random.Random(int.from_bytes(digest, "big"))


def compose(prompt: Prompt, rng: random.Random) -> Reply:
    """The model's answer to `prompt`."""
    if prompt.forces_call:  # even after a tool result: the output is constrained to a call
        return Reply(tool_calls=(tool_call(prompt),))
    if prompt.continues:
        return Reply(text=continuation(prompt.continues, rng))
    calls = bool(prompt.tools) and not prompt.tools_disabled and not prompt.after_tool_result
    calls = calls and not prompt.output_exclusive  # vLLM: JSON, never a call (`Constraint`)
    calls = calls and not _unasked_subagent(prompt)
    if prompt.output_choice and not calls:
        return Reply(text=prompt.output_choice[0])
    if not calls and (prompt.output_schema is None or prompt.output_schema is JSON_OBJECT):
        asked = prompted_json(prompt, rng)
        if asked is not None:
            return Reply(text=asked)
    if prompt.output_schema is not None and not calls:  # OpenAI: an agent's tools first
        schema = prompt.output_schema
        return Reply(text=structured(schema, prompt.user, _chooser(prompt), _agent(prompt)))
    if prompt.after_tool_result:
        return Reply(text=f"Based on the tool result, here is the answer. {prose(rng, 1)}")
    if calls:
        return Reply(tool_calls=(tool_call(prompt),))
    read = ends(prompt.ask)
    # a ReAct or DSPy prompt asking for SQL keeps the answer it got: a bare query is no
    # answer in its format either (`prompted.framed`)
    if dataprompt.asks_sql(read, ends(prompt.system)) and not framed(prompt.user, prompt.system):
        table = dataprompt.first_table(prompt.user, prompt.system)
        return Reply(text=dataprompt.sql_answer(table))
    if _CODE.search(read):
        return Reply(text=code_answer(read, prompt))
    if _MATH.search(read):
        return Reply(text=math_answer(read))
    return Reply(text=prose(rng, 3))


def ends(text: str) -> str:
    """The head and the tail of a long text, the keyword rules' reading (`_HEAD`, `_TAIL`):
    an ask is usually at its start or its end, and the search stays bounded."""
    if len(text) <= _HEAD + _TAIL:
        return text
    return f"{text[:_HEAD]}\n…\n{text[-_TAIL:]}"


def prompted_json(prompt: Prompt, rng: random.Random) -> str | None:
    """An instance of the JSON schema the prompt's text asks an answer of (`prompted`), or
    a value of the example's shape it shows, in a ```json fence where it asks for one and
    nothing holds the text to bare JSON, between the example's markers where it shows them
    (MetaGPT's `[CONTENT]`); None where the text asks for none. A list of strings is no
    answer where the request holds the text to a JSON object (`response_format`)."""
    asked = asked_json(prompt.user, prompt.system)
    if asked is None or (isinstance(asked.example, list) and prompt.output_schema is not None):
        return None
    if asked.schema is not None:
        ask = _outside(prompt.user, asked.span)  # the schema's text names every branch
        text = structured(asked.schema, prompt.user, _chooser(prompt, ask), _agent(prompt))
    elif isinstance(asked.example, list):  # as many strings as shown
        text = json.dumps([shaped_like(item, rng) for item in asked.example])
    else:
        text = json.dumps(shaped_like(asked.example, rng), indent=4 if asked.tag else None)
    if asked.tag is not None and prompt.output_schema is None:
        return f"[{asked.tag}]\n{text}\n[/{asked.tag}]"
    return f"```json\n{text}\n```" if asked.fenced and prompt.output_schema is None else text


def _outside(text: str, span: tuple[int, int] | None) -> str:
    """`text` less the part `span` marks (a schema it writes), the rest read as one."""
    if span is None:
        return text
    start, end = span
    return f"{text[:start]} {text[end:]}"


def shaped_like(example: Any, rng: random.Random) -> Any:
    """A value of `example`'s shape: the same keys, a string a few words of its own, an
    array two or three of its first item's shape (empty stays empty), a number, boolean or
    null as it is. An example's strings are placeholders ("your concise title here"), so
    none is copied; its depth is bounded (`prompted._is_example`)."""
    if isinstance(example, str):
        return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(2, 4))).capitalize()
    if isinstance(example, list):
        count = rng.randint(2, 3) if example else 0
        return [shaped_like(example[0], rng) for _ in range(count)]
    if isinstance(example, dict):
        return {key: shaped_like(value, rng) for key, value in example.items()}
    return example


def continuation(prefill: str, rng: random.Random) -> str:
    """What follows a prefill, never the prefill again (vLLM answers the new text alone): the
    rest of a JSON object after a prefill that opens one (`{`, as one forcing JSON does),
    else the text running on."""
    if prefill.rstrip().endswith("{"):
        return f'"answer": "{prose(rng, 1)}"}}'
    return " " + prose(rng, 2)


def prose(rng: random.Random, sentences: int) -> str:
    out = []
    for _ in range(sentences):
        words = [rng.choice(_WORDS) for _ in range(rng.randint(8, 14))]
        out.append(" ".join(words).capitalize() + ".")
    return " ".join(out)


def filler(rng: random.Random) -> str:
    """More text to run on with (for `ignore_eos`)."""
    return " " + prose(rng, 4)


def code_answer(read: str, prompt: Prompt) -> str:
    """A function of the name the prompt's ends (`read`) give one, else `solve`; where the
    prompt shows functions as already provided (`dataprompt.provided`) and names no other, code
    that calls the first of them: pandas-ai requires its `execute_sql_query` called, and
    rejected every answer that redefined it (found in review)."""
    texts = (prompt.user, prompt.system)
    functions = dataprompt.provided(*texts)
    given = {function.name for function in functions}
    # beside provided functions, their docstrings: "This method connects to the database"
    naming = _NAMED if functions else _FUNC_NAME
    named = (match.group(1) for match in naming.finditer(read))
    name = next((name for name in named if name not in given), None)
    if functions and name is None:
        table, variable = dataprompt.first_table(*texts), dataprompt.declared(*texts)
        return dataprompt.call_answer(functions, table, read, variable)
    name = name or "solve"
    return (
        "Here is a solution:\n\n```python\n"
        f"def {name}(items):\n"
        '    """Return the items in ascending order without duplicates."""\n'
        "    return sorted(set(items))\n"
        "```\n\nIt runs in O(n log n) time."
    )


def math_answer(user: str) -> str:
    value = _evaluate_first(user)
    if value is None:
        return "Working through the problem step by step gives the result $\\boxed{42}$."
    expr, result = value
    return f"Computing {expr.strip()} step by step gives {result}.\n\n" + boxed(result)


def boxed(answer: str) -> str:
    return f"The answer is $\\boxed{{{answer}}}$."


_OPS: dict[type, Any] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
    ast.USub: operator.neg,
}


def _eval_node(node: ast.AST) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        left, right = _eval_node(node.left), _eval_node(node.right)
        if isinstance(node.op, ast.Pow) and abs(right) > 64:
            raise ValueError("exponent too large")
        return float(_OPS[type(node.op)](left, right))
    if isinstance(node, ast.UnaryOp) and type(node.op) in _OPS:
        return float(_OPS[type(node.op)](_eval_node(node.operand)))
    raise ValueError("not arithmetic")


def _evaluate_first(text: str) -> tuple[str, str] | None:
    for match in _EXPR.finditer(text):
        expr = match.group(0)
        if not re.search(r"[-+*/^×]", expr):
            continue
        try:
            value = _eval_node(
                ast.parse(expr.replace("^", "**").replace("×", "*"), mode="eval").body
            )
        except (SyntaxError, ValueError, ZeroDivisionError, OverflowError):
            continue
        return expr, (str(int(value)) if float(value).is_integer() else f"{value:.6g}")
    return None


def tool_call(prompt: Prompt) -> ToolCall:
    """A call of the forced tool, else `_next_tool`'s. A tool the ask named (not one
    `tool_choice` forced, nor the first by default) that takes one plain string gets the
    ask's arithmetic expression where it holds one (`asked_tool.expression_arguments`):
    Langflow's `evaluate_expression` got the prompt's first words."""
    tool = next((t for t in prompt.tools if t.name == prompt.forced_tool), None)
    if tool is not None:
        return ToolCall(tool.name, json.dumps(_arguments(tool, prompt)))
    tool = _next_tool(prompt)
    found = _evaluate_first(ends(prompt.ask)) if tool is _asked_tool(prompt) else None
    expression = expression_arguments(tool.schema, found[0].strip()) if found else None
    return ToolCall(tool.name, json.dumps(expression or _arguments(tool, prompt)))


def _arguments(tool: ToolSpec, prompt: Prompt) -> dict[str, Any]:
    """Arguments for a call of `tool`: its id fields the id the ask shows (`called_ids`)."""
    return arguments_for(tool.schema, prompt.ask, prompt.shown_id)


def _chooser(prompt: Prompt, ask: str | None = None) -> Chooser:
    """How a structured answer picks among named branches (BeeAI's tools and `final_answer`,
    an `anyOf` or `oneOf` in its `ToolCall` schema): with a tool's result after the latest
    ask, the one that sends the answer (`finishing_index`), so a run finishes after its
    first tool's result, whatever else the ask wanted; else the one the ask names
    (`asked_index`: BeeAI's nudge names `final_answer`); else the first, as before. `ask` is
    the user's text less a schema it writes (`prompted_json`), else the user's text: read
    whole, the schema named every branch, and the longest name (`final_answer`) won before
    any tool ran (found in review)."""
    said = ends(prompt.user if ask is None else ask)

    def choose(names: Sequence[str]) -> int | None:
        done = finishing_index(names) if prompt.after_tool_result else None
        return asked_index(names, said) if done is None else done

    return choose


def _agent(prompt: Prompt) -> Named:
    """Which agent a structured answer's field that names one gets, as a model reading the
    prompt's list of agents would write one (`offered_agents`: fast-agent's router and
    orchestrator): the one the ask before the list names (`asked_index`), else the first
    listed; None where the prompt lists none, and the field is filled as before."""

    def named() -> str | None:
        offered = listing(prompt.user, prompt.system)
        if offered is None:
            return None
        index = asked_index(offered.names, ends(offered.ask))
        return offered.names[0 if index is None else index]

    return named


def _asked_tool(prompt: Prompt) -> ToolSpec | None:
    """The offered tool the latest user ask names (`asked_tool.asked_index`), read within
    its head and tail as the keyword rules read it (`ends`). Of a swarms transcript (its
    run's history flattened into the ask), its newest entry (`classifier.swarms.latest_entry`):
    read whole, its head (swarms' system prompt, naming `create_plan` first) named the tool,
    and the final summary's `complete_task` was never called (a live review of demo mode)."""
    ask = swarms.latest_entry(prompt.user) or prompt.ask
    index = asked_index([tool.name for tool in prompt.tools], ends(ask))
    return None if index is None else prompt.tools[index]


def _next_tool(prompt: Prompt) -> ToolSpec:
    """The tool a call goes to when `tool_choice` names none: the one the ask names ("use
    evaluate_expression", "get weather" for `get_weather`), else the first; under a forced
    choice (`"required"`, Anthropic's `any`), once the conversation holds a call of one
    offered, the tool after it in the list (the last stays the last). An agent offers its function
    tools and then its output tool (pydantic-ai's `final_result`, smolagents'
    `final_answer`) and forces a call: calling the first tool every time, the simulator
    never let one finish (pydantic-ai stopped at its request limit, found in review)."""
    names = [tool.name for tool in prompt.tools]
    if not prompt.tool_required or prompt.last_called not in names:
        default = prompt.tools[first_index([tool.schema for tool in prompt.tools])]
        return _asked_tool(prompt) or default
    return prompt.tools[min(names.index(prompt.last_called) + 1, len(names) - 1)]


def _unasked_subagent(prompt: Prompt) -> bool:
    """Whether the first offered tool starts a subagent and the ask names no tool: the
    answer is then text, unless a call is forced (`delegation`: Claude Code offers `Agent`
    first, and the simulator's default call of it nested subagents four deep)."""
    return delegates(prompt.tools[0].schema) and _asked_tool(prompt) is None


def every_tool_call(prompt: Prompt) -> tuple[ToolCall, ...]:
    """Parallel calls: one to each offered tool."""
    return tuple(ToolCall(t.name, json.dumps(_arguments(t, prompt))) for t in prompt.tools)
