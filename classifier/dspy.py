"""DSPy's own texts around a program's inputs, its demos, and which of its requests pick a tool.

DSPy (3.4.1: `dspy/adapters/base.py`, `chat_adapter.py`, `json_adapter.py`,
`xml_adapter.py`; `dspy/predict/react.py`) sends each call of a predictor as one request:

- its adapter's system prompt describes the signature: `FIELDS` and the input fields, one a
  line ("1. `question` (str): ..."), `OUTPUTS` and the output fields, `STRUCTURE` and how
  each field is laid out, then "In adhering to this structure, your objective is:" and the
  signature's instructions (the JSON adapter's, its fallback after a reply it could not
  parse, lays the fields out otherwise, the opening alike);
- the program's demos (few-shot examples, a compiled program's), each a user message of
  the inputs and an assistant message of the outputs; then a `dspy.History` input's turns,
  each a user message of the inputs and its reply;
- the call's inputs as the last user message: each input field a section of its own
  (`[[ ## question ## ]]` and its value; `<question>` ... `</question>` for the XML adapter),
  then the adapter's order to answer in its form (`TAILS`: "Respond with the corresponding
  output fields, starting with the field `[[ ## answer ## ]]`, ..."), which a History's
  turns carry too and demos never do.

A ReAct module (`dspy.ReAct`) runs two predictors: each step's, whose instructions open "You
are an Agent." (`AGENT`) and list its tools, its inputs the module's and `trajectory` (each
step's thought, tool, arguments and observation so far: its one user message grows every
step), its outputs the next thought, the tool to call ("finish" among them) and its
arguments (`STEP_OUTPUTS`); then the extract step's, with a system prompt of its own.

Read as sent, DSPy's texts decided the intent: "Compute 17 * 23" in a ReAct step was
instruction (local) and its second step coding, the JSON fallback of "Write a haiku" was read
by its order to answer in JSON; and the first user message keyed the conversation: a
compiled program's first demo, the same in every call, pinned unrelated calls together (a
Python question to the cloud, after a haiku), and a ReAct run was a conversation a step
(found in a review of agent frameworks). So in DSPy's requests (told by their system prompt:
`framed`) an ask is the values of its input fields but `trajectory`, a line apart
(`task_ask`): the task, the same in each step of a run; demos are passed over
(`passed_over`), so the first ask is the call's own (or its History's first turn); and the
conversation key hashes that ask without DSPy's system prompts
(`router.conversation.conversation_key`), as a smolagents run's is.

A ReAct step must answer by naming one of its tools, as a smolagents ToolCallingAgent's step
must (`tool_choice: "required"`), which is tool_calling: so is a ReAct step (`picks_tool`,
`classifier.rules.rule_intent`), its tools offered in its instructions rather than in
`tools`. Its extract step is read by the task, as smolagents' final answer is. DSPy is no
coding agent: its texts do not make the request an agent's session
(`classifier.rules.agent_session`). A message with images (content parts) is read as sent.

A DSPy 2.x call (dsp's template, STORM's: one user message, none of these texts) is read by
`classifier.dsp_template` (`legacy_ask`), which `task_ask` falls back on for any message of a
request whose system prompt is not DSPy 3's: dsp's clients may send one of their own (`GPT3`'s
and `AzureOpenAI`'s `system_prompt`, Databricks' and Hugging Face's fixed one, in 2.4.9's
`dsp/modules`), and its guidelines' text tells the call.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import Any

from classifier.dsp_template import legacy_ask
from classifier.message import System, one_text, per_text

# The system prompt (`ChatAdapter.format_field_description`, `format_field_structure`), which
# every adapter but the two-step one opens with
FIELDS = "Your input fields are:\n"
OUTPUTS = "\nYour output fields are:\n"
STRUCTURE = (
    "\nAll interactions will be structured in the following way, with the appropriate values"
    " filled in."
)
# `format_task_description`, then the signature's instructions: a ReAct step's open with its
# own (after the signature's own instructions, when it has some)
OBJECTIVE = "\nIn adhering to this structure, your objective is: "
AGENT = "You are an Agent. In each episode, you will be given the fields "
STEP_OUTPUTS = ["next_thought", "next_tool_name", "next_tool_args"]
TRAJECTORY = "trajectory"  # a ReAct step's input: the run so far, not the task
# How each adapter's order to answer opens (`user_message_output_requirements`: the chat
# adapter's, the JSON adapter's, the XML adapter's), a blank line after the last field
TAILS = (
    "Respond with the corresponding output fields, starting with the field ",
    "Respond with a JSON object in the following order of fields: ",
    "Respond with the corresponding output fields wrapped in XML tags ",
)
TAIL_OPENING = "\n\nRespond with "
# How a field's section opens and closes: the chat, JSON and BAML adapters', the XML adapter's
LAYOUTS = (("[[ ## {} ## ]]\n", ""), ("<{}>\n", "\n</{}>"))
# Fields read of a signature, at most: DSPy's modules declare a handful (ReAct's step three
# outputs), and each field read is another look through the call's inputs; a system prompt
# of 3,000 made a request take 150 ms (found in review)
FIELDS_READ = 32


def _numbered(number: int) -> re.Pattern[str]:
    """A field's line in the system prompt (`get_field_description_string`) of the number
    `number` (of up to four digits, zeros leading), after a line break: its name."""
    zeros = 4 - len(str(number))
    return re.compile(rf"\n0{{0,{zeros}}}{number}\. `(\w+)` \(")


_FIELD = [_numbered(number) for number in range(1, FIELDS_READ + 1)]
# Sections' headings read of a call's inputs, at most (DSPy writes each field's once): each
# is a step of Python's, and a text of nothing but headings would be read to its end
HEADINGS_READ = 256
# How far a text of DSPy's is looked for past the last (a field's description or value, the
# instructions): past it, the text is read as written
WITHIN = 65_536


def framed(system: System) -> bool:
    """Whether a request is one of DSPy's: its system prompt (`system`) is DSPy's."""
    return bool(_input_names(system))


def task_ask(message: object, system: System) -> object:
    """The content of `message`, the values of its input fields but `trajectory`, a line
    apart, when its request is DSPy's (its system prompt `system`) and it lays them out as
    DSPy does; a DSPy 2.x call's task and input values (`classifier.dsp_template.legacy_ask`);
    any other content as it is."""
    content = message.get("content") if isinstance(message, dict) else None
    names = _input_names(system) if isinstance(content, str) else ()
    if not isinstance(content, str):
        return content
    if not names:
        legacy = legacy_ask(content)
        return content if legacy is None else legacy
    sections = _sections(_without_tail(content), names)
    if not sections:
        return content
    return "\n".join(value for name, value in sections if name != TRAJECTORY and value)


def passed_over(messages: Sequence[Any], index: int, system: System) -> bool:
    """Whether the user message `messages[index]` is one of a DSPy program's demos: a user
    message with a reply after it and no order to answer, in DSPy's request (`framed` of
    `system`, the system prompt of `messages`)."""
    after = messages[index + 1] if index + 1 < len(messages) else None
    if not isinstance(after, dict) or after.get("role") != "assistant" or not framed(system):
        return False
    text = one_text(messages[index])
    return text is not None and _tail_at(text) < 0


def picks_tool(system: System) -> bool:
    """Whether a request of the system prompt `system` is a ReAct step's: its outputs the
    next thought, tool and arguments, its instructions ReAct's."""
    text = system.prompt
    if text is None or not _input_names(system):
        return False
    outputs = text.find(OUTPUTS, 0, WITHIN)
    structure = text.find(STRUCTURE, outputs, outputs + WITHIN)
    if _names(text, outputs + len(OUTPUTS) - 1, structure) != tuple(STEP_OUTPUTS):
        return False
    objective = text.find(OBJECTIVE, structure, structure + WITHIN)
    return objective >= 0 and text.find(AGENT, objective, objective + WITHIN) >= 0


def _input_names(system: System) -> tuple[str, ...]:
    """The input fields' names in the system prompt `system` when it is DSPy's, in order (the
    first `FIELDS_READ`); none for any other."""
    text = system.prompt
    if text is None or not text.startswith(FIELDS):
        return ()
    return _signature_inputs(text)


@per_text
def _signature_inputs(system: str) -> tuple[str, ...]:
    """`_input_names` of the system prompt `system`, which opens with `FIELDS`: read once
    for a request (`classifier.message.per_text`), not again for each of its user messages
    (`passed_over`)."""
    outputs = system.find(OUTPUTS, len(FIELDS), WITHIN)
    if outputs < 0 or system.find(STRUCTURE, outputs, outputs + WITHIN) < 0:
        return ()
    return _names(system, len(FIELDS) - 1, outputs)


def _names(text: str, start: int, end: int) -> tuple[str, ...]:
    """The fields' names in the field lines of `text` after its line break at `start`, up to
    `end`, numbered from 1 (a line a description holds that is not the next number is no
    field's): the first `FIELDS_READ`, each looked for past the last."""
    names: list[str] = []
    for field in _FIELD:
        match = field.search(text, start, end)
        if match is None:
            break
        names.append(match.group(1))
        start = match.end()
    return tuple(names)


def _tail_at(text: str) -> int:
    """Where an adapter's order to answer ends `text` (its blank line before), or -1."""
    if text.startswith(TAILS):
        return 0
    at = text.rfind(TAIL_OPENING, max(0, len(text) - WITHIN))
    return at if at >= 0 and text.startswith(TAILS, at + 2) else -1


def _without_tail(text: str) -> str:
    """`text` without the adapter's order to answer that ends it."""
    at = _tail_at(text)
    return text if at < 0 else text[:at]


def _sections(text: str, names: tuple[str, ...]) -> list[tuple[str, str]]:
    """Each input field's name and value in `text`, in the signature's order, as one of
    the adapters lays them out (a field of no value in the call is left out of it): none
    when `text` opens with no field's section. The first section opens `text`, each other
    within `WITHIN` past the last's heading."""
    for layout, (opening, closing) in enumerate(LAYOUTS):
        first = next((name for name in names if text.startswith(opening.format(name))), None)
        if first is None:
            continue
        found = [(first, 0, len(opening.format(first)))]  # name, where its section, its value start
        headings = _Headings(_heading(names, layout).finditer(text, found[0][2]))
        for name in names[names.index(first) + 1 :]:
            head = opening.format(name)
            at = found[-1][2]
            where = headings.first(name, at, at + WITHIN - 2 - len(head))
            if where >= 0:
                found.append((name, where + 2, where + 2 + len(head)))
        ends = [start - 2 for _, start, _ in found[1:]] + [len(text)]
        return [
            (name, _unclosed(text[value:end], closing.format(name)))
            for (name, _, value), end in zip(found, ends, strict=True)
        ]
    return []


@lru_cache(maxsize=8)
def _heading(names: tuple[str, ...], layout: int) -> re.Pattern[str]:
    """A section's heading of any of `names` after a blank line, in the layout `layout` of
    `LAYOUTS`, its line break after it not read: a heading whose blank line is the last's
    line break is found, as `str.find` finds it."""
    before, after = LAYOUTS[layout][0].split("{}")  # `after` ends with the line break
    alternatives = "|".join(re.escape(name) for name in names)
    return re.compile(
        re.escape("\n\n" + before) + f"({alternatives})" + re.escape(after[:-1]) + r"(?=\n)"
    )


class _Headings:
    """The sections' headings of a text (`_heading`'s matches), read once, in order, as far
    as asked (`first`), the first `HEADINGS_READ`: the sections are found in one pass over
    the text, not a look through it for each name."""

    def __init__(self, matches: Iterator[re.Match[str]]) -> None:
        self._matches = matches
        self._starts: dict[str, list[int]] = {}
        self._reached = -1  # where the last heading read starts (the end of the text: all)
        self._read = 0

    def first(self, name: str, start: int, last: int) -> int:
        """Where the first heading of `name` from `start` to `last` starts, or -1."""
        while self._reached <= last:
            match = next(self._matches, None) if self._read < HEADINGS_READ else None
            if match is None:
                self._reached = 1 << 62
                break
            self._read += 1
            self._reached = match.start()
            self._starts.setdefault(match.group(1), []).append(match.start())
        starts = self._starts.get(name, [])
        index = bisect_left(starts, start)
        return starts[index] if index < len(starts) and starts[index] <= last else -1


def _unclosed(value: str, closing: str) -> str:
    """A section's value without its closing tag (the XML adapter's)."""
    return value[: -len(closing)] if closing and value.endswith(closing) else value
