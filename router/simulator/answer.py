"""What the simulated model says: an answer shaped by the prompt's intent, decided purely.

Coding prompts get a fenced Python block (calling the functions a prompt shows as provided,
`dataprompt`), a prompt asking for a commit message for a git diff one line naming its
first file (`commit_messages`), a prompt asking for a SQL query a ```sql block over the
first table its schema shows, arithmetic gets `\\boxed{}` (`arithmetic`), offered tools get a call
(`tool_calls`: the tool `tool_choice` names, else the one the ask names, else the first,
with arguments built from its JSON schema; none unforced where the latest instructions
forbid one, `text_only`), tools a system prompt lists in the Hermes format the same call
written in the text as it asks (`hermes_tools`: Qwen-Agent's default), a tool result (there,
a user message of `<tool_response>`s) gets a short summary (unless `tool_choice` forces
another call: of the tool after the one called last, `tool_calls.tool_call`), anything else
plain prose. A request for structured output
(`response_format`, `text.format`, vLLM's `structured_outputs`) gets, where it would get
text, a JSON document built from its schema the way tool arguments are (of named `anyOf` or
`oneOf` branches, BeeAI's tools, the one a fixed rule picks from the conversation:
`tool_calls.chooser`; of a field naming an agent, one the prompt lists:
`tool_calls.named_agent`),
or the first of the strings it allows; on vLLM also where it would call an offered tool
unforced, as vLLM's constraint holds the whole output. A prompt that holds a JSON schema
and asks for JSON (instructor's JSON modes), or shows an example object and asks for JSON
(Open WebUI's title and tags), gets an instance of it, or an object of the example's shape,
where it would get text or any JSON object (`prompted`); so does an example object shown
between markers (MetaGPT's `[CONTENT]`), between the same markers, and a list of strings
asked for in a form shown (gpt-researcher's sub-queries), as many strings as shown. A DSPy
2.x call (dsp's template) gets its answer laid out in the fields it asks for
(`dsp_fields`). A question for Yes or No gets one word (`yes_no`: NeMo Guardrails'
self-check rails), NeMo's prompt for the user's intent one of the intents it shows
(`colang_intents`). Claude Code's security monitor gets its verdict allowing the action
(`security_monitor`). A compaction request (text only, in an `<analysis>` and a `<summary>`
block: Claude Code's) gets those blocks (`text_only.summary_blocks`). Same prompt and seed,
same answer.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from dataclasses import replace
from typing import Any

from classifier.dsp_template import legacy_outputs
from router.simulator import dataprompt, hermes_tools
from router.simulator.arithmetic import math_answer, sum_written
from router.simulator.colang_intents import user_intent
from router.simulator.commit_messages import asks_commit_message, commit_message
from router.simulator.described import alternatives_in
from router.simulator.dsp_fields import laid_out
from router.simulator.instances import JSON_OBJECT, structured
from router.simulator.prompt import Prompt, Reply, ToolCall, ToolSpec, ends
from router.simulator.prompted import asked_json, framed
from router.simulator.security_monitor import monitor_verdict
from router.simulator.text_only import forbids_tools, summary_blocks
from router.simulator.tool_calls import chooser, chosen_call, named_agent, tool_call
from router.simulator.yes_no import yes_or_no

_CODE = re.compile(
    r"```|\bdef\b|\bclass\b|\bfunction\b|\bpython\b|\bcode\b|\bbug\b|\bimplement|\bscript\b"
    r"|\bregex\b|\bsql\b|\brefactor|\bunit tests?\b",
    re.I,
)
# math asked in words; one written (`arithmetic.sum_written`) is math too
_MATH = re.compile(
    r"\\boxed|\bsolve\b|\bcompute\b|\bcalculate\b|\bhow many\b|\bequation\b|\bsum of\b",
    re.I,
)
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


def rng_for(seed: int, text: str, salt: int = 0) -> random.Random:
    """A private random stream per (seed, prompt, choice index): temperature-0 determinism."""
    digest = hashlib.blake2b(f"{seed}\x00{salt}\x00{text}".encode(), digest_size=8).digest()
    return random.Random(int.from_bytes(digest, "big"))


def compose(prompt: Prompt, rng: random.Random, index: int = 0) -> Reply:
    """The model's answer to `prompt`, as the request's `index`th choice."""
    if prompt.forces_call:  # even after a tool result: the output is constrained to a call
        return Reply(tool_calls=(tool_call(prompt),))
    if prompt.continues:
        return Reply(text=continuation(prompt.continues, rng))
    if (verdict := monitor_verdict(prompt)) is not None:  # its examples are no JSON asked
        return Reply(text=verdict)
    call = _unforced_call(prompt)
    if call is not None:  # OpenAI: an agent's tools before its structured output
        return Reply(tool_calls=(call,))
    listed = () if prompt.tools else hermes_tools.listed(prompt.system)
    if listed and (written := _written_call(prompt, listed)) is not None:
        return Reply(text=written)
    if prompt.output_choice:
        return Reply(text=prompt.output_choice[0])
    if prompt.output_schema is None or prompt.output_schema is JSON_OBJECT:
        asked = prompted_json(prompt, rng)
        if asked is not None:
            return Reply(text=asked)
    if prompt.output_schema is not None:
        schema = prompt.output_schema
        # the ask, not the message: Claude Code's title request wraps it in `<session>` tags
        return Reply(text=structured(schema, prompt.ask, chooser(prompt), named_agent(prompt)))
    if blocks := summary_blocks(prompt):  # a compaction's summary, in the blocks it asks
        return Reply(text="\n\n".join(f"<{b}>\n{prose(rng, 2)}\n</{b}>" for b in blocks))
    if prompt.after_tool_result or (listed and hermes_tools.responded(prompt.user)):
        return Reply(text=f"Based on the tool result, here is the answer. {prose(rng, 1)}")
    text = _answer_text(prompt, rng, index)
    if fields := legacy_outputs(prompt.user):  # a DSPy 2.x call: in its fields
        return Reply(text=laid_out(fields, text, lambda: prose(rng, 1)))
    return Reply(text=text)


def _unforced_call(prompt: Prompt) -> ToolCall | None:
    """The call the model makes where none is forced (`tool_calls.chosen_call`), None where
    it answers text instead: no tool offered, tools disabled or just run, a JSON constraint
    that holds the whole output (vLLM's, `structured.Constraint`), the latest instructions
    forbidding calls ("Do NOT call any tools", `text_only`), or a subagent's tool first
    that the ask never named (`delegation`)."""
    if not prompt.tools or prompt.tools_disabled or prompt.after_tool_result:
        return None
    if prompt.output_exclusive or forbids_tools(prompt):
        return None
    return chosen_call(prompt)


def _written_call(prompt: Prompt, listed: tuple[ToolSpec, ...]) -> str | None:
    """The call of a tool the system prompt lists in the Hermes format (`hermes_tools`),
    written in the text as it asks: the call the same rules make of tools sent
    (`_unforced_call`), None where they make none, after the tools' results (the last user
    message holds them) or where an output constraint holds the text."""
    constrained = prompt.output_schema is not None or bool(prompt.output_choice)
    if constrained or hermes_tools.responded(prompt.user):
        return None
    call = _unforced_call(replace(prompt, tools=listed))
    return None if call is None else hermes_tools.written(call)


def _answer_text(prompt: Prompt, rng: random.Random, index: int) -> str:
    """The text `compose` answers where no tool, schema or tool's result shapes it: a
    yes or a no, an intent, a commit message, a SQL query, code, a sum or prose, by the ask.
    A question for Yes or No and NeMo Guardrails' intent prompt are read first, in the text
    as sent: their policy's and examples' words ("code") are no ask (`yes_no`,
    `colang_intents`)."""
    if (word := yes_or_no(prompt.user)) is not None:
        return word
    if (intent := user_intent(prompt.user)) is not None:
        return intent
    if asks_commit_message(prompt):  # before the diff is read as code or a sum
        return commit_message(prompt, index)
    read = ends(prompt.ask)
    # a ReAct or DSPy prompt asking for SQL keeps the answer it got: a bare query is no
    # answer in its format either (`prompted.framed`)
    if dataprompt.asks_sql(read, ends(prompt.system)) and not framed(prompt.user, prompt.system):
        table = dataprompt.first_table(prompt.user, prompt.system)
        return dataprompt.sql_answer(table)
    if _CODE.search(read):
        return code_answer(read, prompt)
    if _MATH.search(read) or sum_written(read):
        return math_answer(read)
    return prose(rng, 3)


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
        text = structured(asked.schema, prompt.user, chooser(prompt, ask), named_agent(prompt))
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
    """A value of `example`'s shape: the same keys, a string a few words of its own (of one
    written as alternatives, `"ADD|UPDATE"`, the first: `described.alternatives_in`), an
    array two or three of its first item's shape (empty stays empty), a number, boolean or
    null as it is. An example's strings are placeholders ("your concise title here"), so
    none is copied; its depth is bounded (`prompted._is_example`)."""
    if isinstance(example, str) and (options := alternatives_in(example)) is not None:
        return options[0]
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
