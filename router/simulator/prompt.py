"""What the simulated model reads and writes: a `Prompt` (the ask, the offered `ToolSpec`s
and what constrains the answer) and a `Reply` (text or `ToolCall`s), in any API's shape, and
how the keyword rules read a long ask (`ends`). Shared by the answer's text (`answer`) and
its tool calls (`tool_calls`), and by each API's parsing and rendering.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# how much of a long text the keyword rules read, a head and a tail in characters, as the
# classifier reads a request (`classifier.clip`'s HEAD_BYTES, TAIL_BYTES): searched whole, an
# 8 MB prompt took 10-16 s in `answer._CODE` and `answer._MATH` (found in review)
_HEAD, _TAIL = 1500, 500


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool offered to the model, in any API's shape: its name, JSON-schema parameters
    and description (what may list the values a parameter takes: deepagents' `task` lists
    its subagent types there, `offered_agents.described`)."""

    name: str
    schema: dict[str, Any]
    description: str = ""


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
    """What the model reads: the last user text, offered tools, and whether a tool ran since
    the latest ask (`after_tool_result`: its result the last message, or a call after the ask
    whatever follows it, `latest_ask.Latest.answered`).

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


def ends(text: str) -> str:
    """The head and the tail of a long text, the keyword rules' reading (`_HEAD`, `_TAIL`):
    an ask is usually at its start or its end, and the search stays bounded."""
    if len(text) <= _HEAD + _TAIL:
        return text
    return f"{text[:_HEAD]}\n…\n{text[-_TAIL:]}"
