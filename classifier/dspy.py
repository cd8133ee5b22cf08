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
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from classifier.message import one_text

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
# A field's line in the system prompt (`get_field_description_string`): its number, its name
_FIELD = re.compile(r"(?:^|\n)(\d{1,4})\. `(\w+)` \(")
# How far a text of DSPy's is looked for past the last (a field's description or value, the
# instructions): past it, the text is read as written
WITHIN = 65_536


def framed(messages: Sequence[Any]) -> bool:
    """Whether `messages` are one of DSPy's requests: the first is its system prompt."""
    return bool(_input_names(messages))


def task_ask(message: object, messages: Sequence[Any]) -> object:
    """The content of `message`, the values of its input fields but `trajectory`, a line
    apart, when `messages` are DSPy's and it lays them out as DSPy does; any other content
    as it is."""
    content = message.get("content") if isinstance(message, dict) else None
    names = _input_names(messages) if isinstance(content, str) else []
    if not names or not isinstance(content, str):
        return content
    sections = _sections(_without_tail(content), names)
    if not sections:
        return content
    return "\n".join(value for name, value in sections if name != TRAJECTORY and value)


def passed_over(messages: Sequence[Any], index: int) -> bool:
    """Whether the user message `messages[index]` is one of a DSPy program's demos: a user
    message with a reply after it and no order to answer, in DSPy's request."""
    after = messages[index + 1] if index + 1 < len(messages) else None
    if not isinstance(after, dict) or after.get("role") != "assistant" or not framed(messages):
        return False
    text = one_text(messages[index])
    return text is not None and _tail_at(text) < 0


def picks_tool(messages: Sequence[Any]) -> bool:
    """Whether `messages` are a ReAct step's: its outputs the next thought, tool and
    arguments, its instructions ReAct's."""
    system = _system(messages)
    if system is None or not _input_names(messages):
        return False
    outputs = system.find(OUTPUTS, 0, WITHIN)
    structure = system.find(STRUCTURE, outputs, outputs + WITHIN)
    if _names(system[outputs + len(OUTPUTS) : structure]) != STEP_OUTPUTS:
        return False
    objective = system.find(OBJECTIVE, structure, structure + WITHIN)
    return objective >= 0 and system.find(AGENT, objective, objective + WITHIN) >= 0


def _system(messages: Sequence[Any]) -> str | None:
    """The system prompt that opens `messages` when it is one text, else None."""
    first = messages[0] if messages else None
    if not isinstance(first, dict) or first.get("role") not in ("system", "developer"):
        return None
    return one_text(first)


def _input_names(messages: Sequence[Any]) -> list[str]:
    """The input fields' names in the DSPy system prompt that opens `messages`, in order;
    none when it opens with no such prompt."""
    system = _system(messages)
    if system is None or not system.startswith(FIELDS):
        return []
    outputs = system.find(OUTPUTS, len(FIELDS), WITHIN)
    if outputs < 0 or system.find(STRUCTURE, outputs, outputs + WITHIN) < 0:
        return []
    return _names(system[len(FIELDS) : outputs])


def _names(block: str) -> list[str]:
    """The fields' names in a block of field lines, numbered from 1 (a line a description
    holds that is not the next number is no field's)."""
    names: list[str] = []
    for match in _FIELD.finditer(block):
        if int(match.group(1)) == len(names) + 1:
            names.append(match.group(2))
    return names


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


def _sections(text: str, names: list[str]) -> list[tuple[str, str]]:
    """Each input field's name and value in `text`, in the signature's order, as one of
    the adapters lays them out (a field of no value in the call is left out of it): none
    when `text` opens with no field's section."""
    for opening, closing in LAYOUTS:
        found: list[tuple[str, int, int]] = []  # name, where its section and its value start
        at = 0
        for name in names:
            head = opening.format(name)
            if not found:
                where = 0 if text.startswith(head) else -1
            else:
                where = text.find("\n\n" + head, at, at + WITHIN)
                where = where + 2 if where >= 0 else -1
            if where >= 0:
                found.append((name, where, where + len(head)))
                at = where + len(head)
        if found:
            ends = [start - 2 for _, start, _ in found[1:]] + [len(text)]
            return [
                (name, _unclosed(text[value:end], closing.format(name)))
                for (name, _, value), end in zip(found, ends, strict=True)
            ]
    return []


def _unclosed(value: str, closing: str) -> str:
    """A section's value without its closing tag (the XML adapter's)."""
    return value[: -len(closing)] if closing and value.endswith(closing) else value
