"""The tool_use ids a chat backend's calls become: present and unique in the session, and
otherwise the backend's own. A backend that named no call gave `toolu_0` every turn, and a
native Anthropic backend refused the history (found in review). Kimi-K2 on vLLM names its
calls `functions.get_weather:0` and needs that form back in its prompt, so an id reaches the
client as given, and only a request to a native Anthropic backend has its history's ids made
of `^[a-zA-Z0-9_-]+$` and unique (cleaned in the reply, they broke Kimi: found in review).
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
from tests.agent_apis.agent_stack import WEATHER_ASK, WEATHER_TOOLS, anthropic_client, stack_config
from tests.agent_apis.chat_chunks import DONE, chunk, run, sse, whole_reply
from tests.harness import router, scripted_stream, simulator

ANTHROPIC_ID = re.compile(r"^[a-zA-Z0-9_-]+$")  # Anthropic's own check of tool_use.id
KIMI = "functions.get_weather:0"


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
    reply = (
        sse(
            chunk({"role": "assistant", "content": ""}),
            chunk({"tool_calls": [weather_call(call_id)]}),
            chunk({}, "tool_calls"),
        )
        + DONE
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


def test_an_upstream_id_is_kept_the_same_whole_and_streamed() -> None:
    """Kimi's `functions.get_weather:0` stays itself, whole and streamed alike."""
    calls = [weather_call(KIMI)]
    whole = whole_reply({"content": None, "tool_calls": calls})
    message = at.Message.model_validate(anthropic_reply.from_chat(whole))
    streamed = run(
        anthropic_reply.MessagesStream(), [chunk({"tool_calls": calls}), chunk({}, "tool_calls")]
    )
    started = [p["content_block"] for name, p in streamed if name == "content_block_start"]
    assert [b.id for b in message.content if b.type == "tool_use"] == [KIMI]
    assert [block["id"] for block in started] == [KIMI]


def test_each_message_makes_its_own_ids_for_unnamed_calls() -> None:
    """The same reply twice (a backend that names no call, turn after turn): two ids."""
    whole = whole_reply({"tool_calls": [weather_call(None)]})
    first, second = (anthropic_reply.from_chat(whole)["content"][0]["id"] for _ in range(2))
    assert first != second and all(ANTHROPIC_ID.match(given) for given in (first, second))


def test_each_message_is_named_by_the_router_not_by_the_backends_completion_id() -> None:
    """The same completion id twice (a backend that repeats its ids), whole and streamed: each
    reply a message id of its own, none made of the backend's."""
    whole = whole_reply({"content": "Hi."}, "stop") | {"id": "chatcmpl-repeated"}
    wholes = [anthropic_reply.from_chat(whole)["id"] for _ in range(2)]
    opening = chunk({"role": "assistant", "content": "Hi."}) | {"id": "chatcmpl-repeated"}
    streams = [run(anthropic_reply.MessagesStream(), [opening, chunk({}, "stop")]) for _ in "ab"]
    streamed = [payload["message"]["id"] for events in streams for name, payload in events[:1]]
    given = wholes + streamed
    assert len(set(given)) == 4 and all(name.startswith("msg_") for name in given)
    assert not any("repeated" in name for name in given)


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


def tool_turns(*turns: list[str]) -> list[dict[str, Any]]:
    """A history: per list of ids, an assistant turn calling get_weather under each, then a
    user turn answering each in order."""
    history: list[dict[str, Any]] = [{"role": "user", "content": "Paris, then Rome?"}]
    for ids in turns:
        history.append(
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": i, "name": "get_weather", "input": {"city": "P"}}
                    for i in ids
                ],
            }
        )
        history.append(
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": i, "content": "18C"} for i in ids
                ],
            }
        )
    return history


def without_ids(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    ids = ("id", "tool_use_id")
    return [
        {**turn, "content": [{k: v for k, v in b.items() if k not in ids} for b in turn["content"]]}
        if isinstance(turn["content"], list)
        else turn
        for turn in history
    ]


# Kimi's ids; one whose cleaned form another id holds already; a `toolu_0` of every turn,
# twice in one message too: a history Anthropic refuses as sent.
REFUSED = tool_turns(
    [KIMI, "toolu_0"],
    ["functions_get_weather_0", "toolu_0"],
    ["toolu_0", "toolu_0"],
)


@pytest.mark.parametrize("streamed", [True, False])
def test_a_chat_backends_call_id_reaches_the_client_as_the_backend_gave_it(
    tmp_path: Path, streamed: bool
) -> None:
    """Kimi-K2 on vLLM reads its calls' ids back from the history in its prompt, and its
    parser expects new calls as `functions.<name>:<idx>`: the client gets the id unchanged
    (it was cleaned to `functions_get_weather_0`, which the model might copy)."""
    call = weather_call(KIMI)
    whole = whole_reply({"content": None, "tool_calls": [call]})
    streamed_reply = [
        chunk({"role": "assistant", "content": ""}),
        chunk({"tool_calls": [call]}),
        chunk({}, "tool_calls"),
    ]
    reply, kind = (
        (sse(*streamed_reply) + DONE, "text/event-stream")
        if streamed
        else (orjson.dumps(whole), "application/json")
    )
    with (
        scripted_stream(reply, kind) as chat,
        router(stack_config({"cloud": chat}, tmp_path, ["cloud"])) as proxy,
    ):
        client = anthropic_client(proxy)
        ask: Any = {"model": "cloud", "max_tokens": 50, "tools": WEATHER_TOOLS}
        if streamed:
            with client.messages.stream(**ask, messages=WEATHER_ASK) as stream:
                message = stream.get_final_message()
        else:
            message = client.messages.create(**ask, messages=WEATHER_ASK)
    assert [block.id for block in message.content if block.type == "tool_use"] == [KIMI]


def test_a_native_anthropic_backend_gets_the_historys_ids_valid_unique_and_paired(
    tmp_path: Path,
) -> None:
    """One mapping for the request: an id outside Anthropic's pattern is cleaned (past an id
    that is its cleaned form already), a repeated tool_use id is made unique, and each
    tool_result gets the id of the tool_use it answers, the one of the turn before it."""
    with (
        simulator(profile="anthropic", model="claude-model", keep_requests=1) as claude,
        router(stack_config({"claude": claude}, tmp_path, ["claude"])) as proxy,
    ):
        anthropic_client(proxy).messages.create(
            model="claude",
            max_tokens=50,
            tools=WEATHER_TOOLS,
            messages=REFUSED,  # type: ignore[arg-type]
        )
        sent = claude.stats()["last_request"]["messages"]
    uses = [[b["id"] for b in turn["content"]] for turn in sent[1::2]]
    answered = [[b["tool_use_id"] for b in turn["content"]] for turn in sent[2::2]]
    flat = [given for turn in uses for given in turn]
    assert all(ANTHROPIC_ID.match(given) for given in flat)
    assert len(flat) == len(set(flat)) == 6
    assert answered == uses  # each result answers its own turn's tool_use, in order
    # an id Anthropic takes, met first, stays itself; Kimi's is cleaned, past its look-alike
    assert uses[1][0] == "functions_get_weather_0" and uses[0][1] == "toolu_0"
    assert uses[0][0].startswith("functions_get_weather_0_")
    assert without_ids(sent) == without_ids(REFUSED)  # all but the ids went as sent


def test_a_chat_backend_gets_the_historys_ids_as_the_client_sent_them(tmp_path: Path) -> None:
    """Only a native Anthropic backend has the ids rewritten: a chat backend (Kimi on vLLM)
    gets each call's id and its result's as the client sent them, Kimi's form kept."""
    with (
        simulator(profile="vllm", model="cloud-model", keep_requests=1) as chat,
        router(stack_config({"cloud": chat}, tmp_path, ["cloud"])) as proxy,
    ):
        anthropic_client(proxy).messages.create(
            model="cloud",
            max_tokens=50,
            tools=WEATHER_TOOLS,
            messages=REFUSED,  # type: ignore[arg-type]
        )
        sent = chat.stats()["last_request"]["messages"]
    calls = [[c["id"] for c in m["tool_calls"]] for m in sent if m.get("tool_calls")]
    results = [m["tool_call_id"] for m in sent if m["role"] == "tool"]
    expected = [[b["id"] for b in turn["content"]] for turn in REFUSED[1::2]]
    assert calls == expected
    assert results == [given for turn in expected for given in turn]
