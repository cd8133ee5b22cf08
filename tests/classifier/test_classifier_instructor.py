"""instructor's retry after a reply that failed validation is no ask (`classifier.instructor`):
the recorded bodies (`tests/fixtures/instructor-1.17.0.md`), chat and Messages, on the
classifier's view of them, and the edges of the reader's scope. The running app reads them in
`tests/agent_apis/test_agent_instructor.py`. instructor's texts are quoted from its installed
1.17.0 sources (`instructor/v2/providers/openai/handlers.py`,
`instructor/v2/providers/anthropic/handlers.py`), not taken from the module under test.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from classifier import classify
from classifier.request import view
from router.translate.view import chat_view

FIXTURES = Path(__file__).parents[1] / "fixtures" / "instructor-1.17.0"
ASK = "A train travels 120 km in 1.5 hours. What is its average speed in km/h?"
ERRORS = (
    "1 validation error for Answer\nspeed_kmh\n  Value error, must be distance/time"
    " [type=value_error, input_value=1.0, input_type=float]"
)
# Each of instructor 1.17.0's retry texts, its errors `ERRORS`
RETRIES = [
    # `reask_md_json`: JSON, MD_JSON, JSON_SCHEMA
    f"Correct your JSON ONLY RESPONSE, based on the following errors:\n{ERRORS}",
    # `reask_tools` streamed or with no call; Anthropic tool modes with no reply
    f"Validation Error found:\n{ERRORS}\nRecall the function correctly, fix the errors",
    # Anthropic tool modes, a reply with no tool_use
    "Validation Error due to no tool invocation:\n"
    f"{ERRORS}\nRecall the function correctly, fix the errors",
    # `reask_responses_tools`
    f"Validation Error found:\n{ERRORS}\nRecall the function correctly, fix the errors with"
    ' {"a": 1} (tool call name=Answer, id=fc_1)',
    f"Validation Error found:\n{ERRORS}\nThe function was called with empty arguments '{{}}'."
    " You MUST populate ALL required fields in the function call according to the schema."
    " Do not return empty arguments. (tool call name=Answer)",
    # ANTHROPIC_JSON, Anthropic's JSON_SCHEMA
    f"Validation Errors found:\n{ERRORS}\nRecall the function correctly, fix the errors found"
    ' in the following attempt:\n{"speed_kmh": 1.0}',
    # `reask_default`: OpenRouter's JSON_SCHEMA
    f"Recall the function correctly, fix the errors, exceptions found\n{ERRORS}",
]


def captured(name: str) -> dict[str, Any]:
    return dict(json.loads((FIXTURES / name).read_text(encoding="utf-8")))


# The system prompt of instructor's JSON modes (`handle_json_modes`), as it indents it
GENIUS = (
    "\n            As a genius expert, your task is to understand the content and provide\n"
    "            the parsed objects in json that match the following json_schema:\n\n"
    '            {"properties": {"speed_kmh": {"type": "number"}}}'
)


def chat(*messages: tuple[str, str]) -> dict[str, Any]:
    """instructor's request of `messages`, under its JSON modes' system prompt."""
    return bare(("system", GENIUS), *messages)


def bare(*messages: tuple[str, str]) -> dict[str, Any]:
    """A chat of `messages`, nothing of instructor's around them."""
    return {"model": "auto", "messages": [{"role": r, "content": c} for r, c in messages]}


@pytest.mark.parametrize(
    ("retry", "first", "api"),
    [
        ("json-schema-retry.json", "json-schema.json", "chat"),
        ("md-json-retry.json", "md-json.json", "chat"),
        ("anthropic-json-retry.json", "anthropic-json.json", "messages"),
        ("anthropic-json-retry-2.json", "anthropic-json.json", "messages"),
        ("anthropic-tools-stream-retry.json", "anthropic-tools-stream.json", "messages"),
    ],
)
def test_a_recorded_retry_reads_as_its_first_request(retry: str, first: str, api: Any) -> None:
    """Read as the ask, `json-schema-retry.json` was instruction (math before it), the
    MD_JSON and ANTHROPIC_JSON retries coding."""
    seen, asked = chat_view(api, captured(retry)), chat_view(api, captured(first))
    assert (view(seen).latest, view(seen).first) == (view(asked).latest, "")
    assert view(seen).harness_cut is False  # instructor is no coding agent
    assert classify(seen) == classify(asked)


def test_the_recorded_asks_go_by_their_task() -> None:
    assert classify(chat_view("chat", captured("json-schema-retry.json"))).label == "math"
    assert classify(chat_view("messages", captured("anthropic-json-retry-2.json"))).label == "math"


@pytest.mark.parametrize("retry", RETRIES)
@pytest.mark.parametrize("before", ["assistant", "user"])
def test_each_retry_after_a_reply_or_the_ask_is_passed_over(retry: str, before: str) -> None:
    """After the failed reply (unstreamed), or right after the ask or an earlier retry (a
    streamed retry, ANTHROPIC_JSON's: no reply sent back)."""
    turns = [("user", ASK), ("assistant", '{"speed_kmh": 1.0}')] if before == "assistant" else []
    body = chat(*(turns or [("user", ASK)]), ("user", retry), ("user", retry))
    seen = view(body)
    assert (seen.latest, seen.first, seen.harness_cut) == (ASK, "", False)
    parts = chat(("user", ASK), ("user", retry))
    parts["messages"][2]["content"] = [{"type": "text", "text": retry}]
    assert view(parts).latest == ASK


@pytest.mark.parametrize(
    "messages",
    [
        # a conversation's first message: a user's paste
        [("user", RETRIES[0])],
        [("user", RETRIES[1])],
        # after a tool's result: instructor sends a call's errors in the tool message itself
        [("user", ASK), ("tool", "42"), ("user", RETRIES[1])],
        # the first user message of the same words: a user's paste, all read as written
        [("user", RETRIES[0]), ("assistant", "ok"), ("user", RETRIES[0])],
        # a user's words before the opening, or after the fixed end
        [("user", ASK), ("assistant", "20"), ("user", f"Why? {RETRIES[0]}")],
        [("user", ASK), ("assistant", "20"), ("user", f"{RETRIES[1]}\nWhat does it mean?")],
        # an opening with nothing after it, or without its fixed end
        [("user", ASK), ("assistant", "20"), ("user", "Validation Error found:\nspeed")],
        [
            ("user", ASK),
            ("user", "Correct your JSON ONLY RESPONSE, based on the following errors:\n"),
        ],
    ],
)
def test_its_words_elsewhere_are_read_as_written(messages: list[tuple[str, str]]) -> None:
    body = chat(*messages)
    if messages[1:2] == [("tool", "42")]:
        body["messages"][2]["tool_call_id"] = "call_1"
    assert view(body).latest == messages[-1][1]


PASTED = [
    # found in review: the user's question after instructor's text, read as the poem's ask
    f"Correct your JSON ONLY RESPONSE, based on the following errors:\n{ERRORS}\n\nWhy does"
    " my program keep getting this message, and how do I fix my pydantic model?",
    *RETRIES,
]


@pytest.mark.parametrize("pasted", PASTED)
@pytest.mark.parametrize(
    "before", ["Write a short poem about autumn leaves.", "hi, tell me a joke"]
)
def test_its_texts_in_another_apps_chat_are_the_users(pasted: str, before: str) -> None:
    """Pasted into a chat with nothing of instructor's (its JSON modes' system prompt, a
    `json_schema` response format, a tool forced), its texts are the user's ask: the first
    was read as the poem's (prose 0.9955 where it reads coding), each after "hi" as "hi".
    ("hi" alone is no ask now, `classifier.greeting`: a task follows it here.)"""
    body = bare(("system", "You are a helpful assistant."), ("user", before))
    body["messages"] += [{"role": "assistant", "content": "Hello!"}]
    body["messages"] += [{"role": "user", "content": pasted}]
    assert view(body).latest == pasted
    assert view(chat(("user", before), ("assistant", "Hello!"), ("user", pasted))).latest == before


def forced_tool(*names: str) -> dict[str, Any]:
    """A bare chat offering `names`, the first forced (instructor's tool modes)."""
    body = bare(("user", ASK), ("assistant", "20"), ("user", RETRIES[1]))
    body["tools"] = [{"type": "function", "function": {"name": n}} for n in names]
    body["tool_choice"] = {"type": "function", "function": {"name": names[0]}}
    return body


def test_instructors_request_is_told_by_its_schema_its_forced_tool_or_its_prompt() -> None:
    """JSON_SCHEMA sends a `json_schema` response format and the caller's system prompt
    alone; the tool modes force their one tool; the JSON modes append their prompt to the
    caller's."""
    schema = bare(("system", "You are a tutor."), ("user", ASK), ("user", RETRIES[0]))
    schema["response_format"] = {"type": "json_schema", "json_schema": {"name": "Answer"}}
    after = bare(("system", f"You are a tutor.\n\n{GENIUS}"), ("user", ASK), ("user", RETRIES[0]))
    for body in (schema, forced_tool("Answer"), after):
        assert view(body).latest == ASK
    # a forced tool beside others, a `json_object` format alone: any app's
    assert view(forced_tool("Answer", "get_weather")).latest == RETRIES[1]
    plain = bare(("user", ASK), ("user", RETRIES[0]))
    plain["response_format"] = {"type": "json_object"}
    assert view(plain).latest == RETRIES[0]
