"""What the relay reads from translated answers: usage and the answer's tool calls, from
Messages and Responses events, streamed or whole, and from chat chunks however numbered."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from router.comparison import Reply, compare_tool_calls
from router.ledger.usage import usage_of
from router.relay import Tally
from router.shadow_reply import cut_by_limit
from router.translate import anthropic_reply, responses_reply, responses_whole
from tests.agent_apis.chat_chunks import TOOL_STREAM, USAGE, chunk, run, whole_reply


def test_usage_is_normalised_from_the_events_the_relay_watches() -> None:
    tally = Tally(api="messages")
    start = {
        "type": "message_start",
        "message": {
            "usage": {"input_tokens": 10, "cache_read_input_tokens": 30, "output_tokens": 1}
        },
    }
    tally.see(start)
    tally.see(
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": 9, "input_tokens": None},
        }
    )
    tally.see({"type": "message_stop"})
    usage = usage_of("messages", tally.usage)
    assert usage is not None and tally.done and tally.finish_reasons == ["end_turn"]
    assert (usage.prompt_tokens, usage.cached_tokens, usage.completion_tokens) == (40, 30, 9)
    tally = Tally(api="responses")
    final = responses_whole.from_chat(
        {
            "id": "c",
            "model": "m",
            "usage": USAGE,
            "choices": [{"finish_reason": "stop", "message": {"content": "hi"}}],
        },
        {},
    )
    tally.see({"type": "response.completed", "sequence_number": 7, "response": final})
    usage = usage_of("responses", tally.usage)
    assert usage is not None and tally.done and tally.sequence == 7
    assert (usage.prompt_tokens, usage.cached_tokens, usage.completion_tokens) == (40, 30, 9)


def _kept_calls(api: str, objects: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    tally = Tally(api=api, keep_text=True)  # type: ignore[arg-type]
    for obj in objects:
        tally.see(obj)
    return [
        (c["function"]["name"], orjson.loads(c["function"]["arguments"]))
        for c in tally.answer_tool_calls()
    ]


def test_tool_calls_are_kept_from_messages_and_responses_answers() -> None:
    """What shadow comparison reads: the answer's tool calls, streamed or whole, either API."""
    want = [("get_weather", {"city": "Paris"})]
    messages = run(anthropic_reply.MessagesStream(10), TOOL_STREAM)
    responses = run(responses_reply.ResponsesStream({"model": "auto"}), TOOL_STREAM)
    whole_chat = {
        "id": "c",
        "model": "m",
        "usage": USAGE,
        "choices": [
            {
                "finish_reason": "tool_calls",
                "message": {
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                        }
                    ],
                },
            }
        ],
    }
    assert _kept_calls("messages", [p for _, p in messages]) == want
    assert _kept_calls("responses", [p for _, p in responses]) == want
    assert _kept_calls("messages", [anthropic_reply.from_chat(whole_chat)]) == want
    assert _kept_calls("responses", [responses_whole.from_chat(whole_chat, {})]) == want
    unkept = Tally(api="messages")  # the text is not kept: neither are the calls
    for _, payload in messages:
        unkept.see(payload)
    assert unkept.tool_calls == {} and unkept.output_chars > 0


def test_parallel_chat_calls_are_kept_apart_without_openai_numbering() -> None:
    """Ollama numbers every parallel call `index: 0` (ollama/ollama#15457), older Ollama not
    at all (#7881): the tally joined them into one call whose arguments were not JSON."""

    def whole(call_id: str, city: str, index: int | None) -> dict[str, Any]:
        arguments = orjson.dumps({"city": city}).decode()
        function = {"name": "get_weather", "arguments": arguments}
        call: dict[str, Any] = {"id": call_id, "type": "function", "function": function}
        return call if index is None else {"index": index, **call}

    want = [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Rome"})]
    same_index = [
        chunk({"role": "assistant", "content": ""}),
        chunk({"tool_calls": [whole("call_a", "Paris", 0)]}),
        chunk({"tool_calls": [whole("call_b", "Rome", 0)]}),
        chunk({}, "tool_calls"),
    ]
    no_index = [chunk({"tool_calls": [whole("call_a", "Paris", None), whole("c", "Rome", None)]})]
    assert _kept_calls("chat", same_index) == want
    assert _kept_calls("chat", no_index) == want
    assert _kept_calls("chat", TOOL_STREAM) == want[:1]  # OpenAI's numbering, as before


def test_a_first_choice_cut_by_the_limit_stays_cut_when_a_later_chunk_says_stop() -> None:
    """Upstreams repeat a finish reason (litellm's streams sent `stop` after `length`): the
    shadow read only the last, so a live answer the limit cut was compared as whole (found
    in re-review). Another choice's `length` does not count: only the first is compared."""
    tally = Tally()
    tally.see(chunk({"content": "half an ans"}, "length"))
    tally.see(chunk({}, "stop"))
    assert tally.answer_finish_reasons == ["length", "stop"]
    assert cut_by_limit(tally.answer_finish_reasons)

    other = chunk({}, "length")
    other["choices"][0]["index"] = 1
    whole = Tally()
    whole.see(chunk({"content": "all of it"}, "stop"))
    whole.see(other)
    assert whole.answer_finish_reasons == ["stop"]
    assert not cut_by_limit(whole.answer_finish_reasons)


def test_a_namespaced_call_is_kept_under_the_name_a_shadow_asked_in_chat_gives_it() -> None:
    """A Responses call of a namespaced tool names it `spawn_agent` in `multi_agent_v1`; the
    shadow, asked in chat, calls `multi_agent_v1__spawn_agent` (`router.translate.
    namespaces`): kept under its bare name, the same call disagreed."""
    namespaced = {"multi_agent_v1__spawn_agent": ("multi_agent_v1", "spawn_agent")}
    chunks = [
        chunk({"role": "assistant", "content": ""}),
        chunk({"tool_calls": [{"index": 0, "id": "call_s", "type": "function", "function": {}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"name": "multi_agent_v1__spawn_agent"}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"message":"go"}'}}]}),
        chunk({}, "tool_calls"),
    ]
    stream = responses_reply.ResponsesStream({"model": "auto"}, namespaced=namespaced)
    events = [payload for _, payload in run(stream, chunks)]
    done = [e["item"] for e in events if e.get("type") == "response.output_item.done"]
    assert [(i["namespace"], i["name"]) for i in done] == [("multi_agent_v1", "spawn_agent")]
    want = [("multi_agent_v1__spawn_agent", {"message": "go"})]
    assert _kept_calls("responses", events) == want


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "stream"])
def test_a_chat_call_whose_arguments_are_an_object_is_kept_as_their_json(streamed: bool) -> None:
    """TGI's and llama.cpp's (`--tool-args-object`) arguments are an object, which a chat
    client gets as it came. The relay kept none of them (""), and the shadow compared the
    live call as `{}`: it disagreed with the same call (found in review)."""
    arguments = {"city": "Paris"}
    call = {"id": "c9", "type": "function", "function": {"name": "get_weather"}}
    call["function"]["arguments"] = arguments
    tally = Tally(keep_text=True)
    if streamed:
        tally.see(chunk({"tool_calls": [{"index": 0, **call}]}))
        tally.see(chunk({}, "tool_calls"))
    else:
        tally.see(whole_reply({"content": None, "tool_calls": [call]}))
    kept = tally.answer_tool_calls()
    assert [c["function"] for c in kept] == [
        {"name": "get_weather", "arguments": '{"city":"Paris"}'}
    ]
    shadow = Reply("", ({"function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}},))
    assert compare_tool_calls(Reply("", tuple(kept)), shadow).agreed is True
