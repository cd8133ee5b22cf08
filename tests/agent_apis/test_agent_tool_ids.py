"""The tool_use ids a chat backend's calls become must be ones Anthropic's API takes back,
when the session moves on to a native Anthropic backend: unique in the conversation, and of
`^[a-zA-Z0-9_-]+$`. A backend that named no call gave `toolu_0` every turn, a Kimi-K2-style
vLLM parser `functions.get_weather:0`, and Anthropic refused the history (found in review).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import anthropic.types as at
import orjson
import pytest

from router.config import parse
from router.translate import anthropic_reply, anthropic_request
from tests.agent_apis.agent_stack import WEATHER_TOOLS, anthropic_client, stack_config
from tests.agent_apis.chat_chunks import chunk, run
from tests.harness import router, scripted_stream, simulator

ANTHROPIC_ID = re.compile(r"^[a-zA-Z0-9_-]+$")  # Anthropic's own check of tool_use.id
KIMI = "functions.get_weather:0"


def sse(chunks: list[dict[str, Any]]) -> bytes:
    events = b"".join(b"data: " + orjson.dumps(c) + b"\n\n" for c in chunks)
    return events + b"data: [DONE]\n\n"


def weather_call(call_id: str | None) -> dict[str, Any]:
    call: dict[str, Any] = {
        "index": 0,
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
    }
    return call if call_id is None else {**call, "id": call_id}


@pytest.mark.parametrize("call_id", [None, KIMI])
def test_a_chat_backends_call_ids_are_taken_back_by_a_native_anthropic_backend(
    tmp_path: Path, call_id: str | None
) -> None:
    """Two turns from a chat backend that names every call alike (or not at all), then the
    session's next turn to the Anthropic backend: the history it gets holds distinct ids of
    Anthropic's pattern, each answered by its tool_result."""
    reply = sse(
        [
            chunk({"role": "assistant", "content": ""}),
            chunk({"tool_calls": [weather_call(call_id)]}),
            chunk({}, "tool_calls"),
        ]
    )
    with (
        scripted_stream(reply) as chat,
        simulator(profile="anthropic", model="claude-model", keep_requests=1) as claude,
    ):
        data = stack_config({"cloud": chat, "claude": claude}, tmp_path, ["cloud", "claude"])
        with router(parse({**data.model_dump(), "resilience": {"enabled": False}})) as proxy:
            client = anthropic_client(proxy)
            history: list[dict[str, Any]] = [{"role": "user", "content": "Paris, then Rome?"}]
            for _ in range(2):
                with client.messages.stream(
                    model="cloud",
                    max_tokens=50,
                    tools=WEATHER_TOOLS,
                    messages=history,  # type: ignore[arg-type]
                ) as stream:
                    message = stream.get_final_message()
                (use,) = [block for block in message.content if block.type == "tool_use"]
                history += [
                    {"role": "assistant", "content": [use.model_dump(exclude_none=True)]},
                    {
                        "role": "user",
                        "content": [
                            {"type": "tool_result", "tool_use_id": use.id, "content": "18C"}
                        ],
                    },
                ]
            client.messages.create(
                model="claude",
                max_tokens=50,
                tools=WEATHER_TOOLS,
                messages=history,  # type: ignore[arg-type]
            )
            sent = claude.stats()["last_request"]["messages"]
    blocks = [
        block for turn in sent if isinstance(turn["content"], list) for block in turn["content"]
    ]
    uses = [block["id"] for block in blocks if block["type"] == "tool_use"]
    answered = [block["tool_use_id"] for block in blocks if block["type"] == "tool_result"]
    assert len(uses) == len(set(uses)) == 2
    assert all(ANTHROPIC_ID.match(used) for used in uses)
    assert answered == uses
    if call_id == KIMI:
        assert uses[0] == "functions_get_weather_0"  # its own id, cleaned


def test_a_cleaned_id_is_the_same_whole_and_streamed() -> None:
    calls = [weather_call(KIMI)]
    whole = {
        "id": "c1",
        "model": "m",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {"role": "assistant", "content": None, "tool_calls": calls},
            }
        ],
    }
    message = at.Message.model_validate(anthropic_reply.from_chat(whole))
    streamed = run(
        anthropic_reply.MessagesStream(), [chunk({"tool_calls": calls}), chunk({}, "tool_calls")]
    )
    started = [p["content_block"] for name, p in streamed if name == "content_block_start"]
    assert [b.id for b in message.content if b.type == "tool_use"] == ["functions_get_weather_0"]
    assert [block["id"] for block in started] == ["functions_get_weather_0"]


def test_each_message_makes_its_own_ids_for_unnamed_calls() -> None:
    """The same reply twice (a backend that names no call, turn after turn): two ids."""
    whole = {
        "id": "c1",
        "model": "m",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {"role": "assistant", "tool_calls": [weather_call(None)]},
            }
        ],
    }
    first, second = (anthropic_reply.from_chat(whole)["content"][0]["id"] for _ in range(2))
    assert first != second and all(ANTHROPIC_ID.match(given) for given in (first, second))


def test_the_ids_go_back_to_a_chat_backend_paired_as_the_client_sent_them() -> None:
    """A chat backend pairs a call with its result within the one request: the id the client
    was given goes back in both, unchanged (no mapping back to the backend's own is needed)."""
    history = [
        {"role": "user", "content": "Paris?"},
        {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "functions_get_weather_0",
                    "name": "get_weather",
                    "input": {},
                }
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "functions_get_weather_0", "content": "18C"}
            ],
        },
    ]
    chat = anthropic_request.to_chat({"model": "m", "max_tokens": 5, "messages": history}, False)
    call = chat["messages"][1]["tool_calls"][0]
    assert call["id"] == chat["messages"][2]["tool_call_id"] == "functions_get_weather_0"
