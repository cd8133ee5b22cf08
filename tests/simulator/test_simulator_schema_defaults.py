"""A field whose schema gives a `default` it allows is answered with it: code-puppy's
auto-continue check gets "no approval", and its interactive demo waits for its user.

After every reply interactive code-puppy 0.0.946 asks the model (its core plugin
`auto_continue`, on by default, no cap) whether the reply only waits for permission to go
on, forcing one tool, `final_result`, whose `approval` is pydantic's
`Literal["yes, go.", "continue", "okay"] | None = None`. The simulator built the first
non-null branch, "yes, go.", so code-puppy sent "yes, go." as the user's next turn, forever:
44 auto-continues and 179 requests in 60 s, the user's message and `/exit` blocked (a live
review of demo mode). A model told nothing of the field gives its default. The request is
the one recorded (`/tmp/live_codepuppy/autocont.json`, byte for byte one of the 44 alike),
replayed through the official openai SDK, a real socket, the simulator.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from router.simulator import SimThread
from router.simulator.instances import arguments_for, structured
from tests.simulator.calls import client, only_call

MODEL = "tiny"
SYSTEM = (
    "Decide whether the assistant is merely waiting for permission to\n"
    "continue routine work the user already requested.\n\n"
    "Approve only a clear request to continue, proceed, or perform an explicitly\n"
    "described next step within the existing task. Do not approve destructive or\n"
    "risky actions, credential or payment requests, ambiguous choices, requests for\n"
    "new requirements, completed work, or anything needing a real human decision.\n"
    "Return no approval when uncertain."
)
USER = (
    "Classify this assistant response:\n\n"
    "Based on the tool result, here is the answer. And decision every tokens system and it a"
    " agents fallback cost request the visible."
)
APPROVAL: dict[str, Any] = {
    "properties": {
        "approval": {
            "default": None,
            "anyOf": [
                {"enum": ["yes, go.", "continue", "okay"], "type": "string"},
                {"type": "null"},
            ],
        }
    },
    "type": "object",
    "additionalProperties": False,
}
TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "final_result",
        "description": "Strict classifier result; ``None`` means wait for the user.",
        "parameters": APPROVAL,
    },
}


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_code_puppys_auto_continue_check_is_not_approved(
    start_sim: Callable[..., SimThread], profile: str
) -> None:
    """The recorded request gets `final_result` with `approval` null: code-puppy waits."""
    reply = client(start_sim(profile=profile)).chat.completions.create(
        model=MODEL,
        messages=[{"role": "system", "content": SYSTEM}, {"role": "user", "content": USER}],
        max_completion_tokens=64,
        tool_choice="required",
        tools=[TOOL],  # type: ignore[list-item]
        stream=False,
    )
    assert only_call(reply) == ("final_result", {"approval": None})


def test_a_default_the_schema_allows_is_given() -> None:
    """pydantic's defaults as it writes them: a `$ref`'d enum's, a number's, a boolean's,
    a nullable's; each beside a required field built as before."""
    schema = {
        "type": "object",
        "properties": {
            "query": {"type": "string"},
            "colour": {"$ref": "#/$defs/Colour", "default": "red"},
            "limit": {"type": "integer", "minimum": 1, "default": 20},
            "recursive": {"type": "boolean", "default": False},
            "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
        },
        "required": ["query", "colour", "limit", "recursive", "note"],
        "$defs": {"Colour": {"enum": ["blue", "red"], "type": "string"}},
    }
    assert json.loads(structured(schema, "find the bug")) == {
        "query": "find the bug",
        "colour": "red",
        "limit": 20,
        "recursive": False,
        "note": None,
    }


def test_a_default_the_schema_does_not_allow_is_passed_over() -> None:
    """A default outside the field's enum, of another type, or null where null is not
    allowed is no answer a constrained decoder gives: the value is built as before."""
    schema = {
        "type": "object",
        "properties": {
            "mode": {"enum": ["fast", "slow"], "default": "medium"},
            "count": {"type": "integer", "default": True},
            "name": {"type": "string", "default": None},
            "kind": {"const": "dog", "default": "cat"},
        },
    }
    assert arguments_for(schema, "go") == {"mode": "fast", "count": 1, "name": "go", "kind": "dog"}


def test_a_shown_id_wins_over_a_null_default() -> None:
    """An id field the prompt shows an id for gets that id (`called_ids`), its default
    notwithstanding: the prompt says what the field holds."""
    schema = {
        "type": "object",
        "properties": {
            "task_id": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None}
        },
    }
    assert arguments_for(schema, "go", shown_id="step-2") == {"task_id": "step-2"}
    assert arguments_for(schema, "go") == {"task_id": None}
