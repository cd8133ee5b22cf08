"""A chat backend's reasoning on the Responses API (Codex through a reasoning model).

The translator dropped the reasoning (it only counted its characters): while the model
reasoned, minutes on a long task, Codex got no event at all and its stream idle timeout
gave up; a whole reply carried no reasoning item. Now it is a `reasoning` item as OpenAI
streams one (output_item.added, content_part.added with a `reasoning_text` part,
reasoning_text.delta…, reasoning_text.done, content_part.done, output_item.done), before
the answer: every event one the `openai` SDK types (vLLM's `reasoning_part` events, sent at
first, it typed as audio deltas). Its first pieces are held for a grace
(`REASONING_GRACE_S`), as the Messages translation holds its first ping, so that a backend
failing in its first seconds still falls back; then the held reasoning goes out and the
rest streams as it comes. Its id says the router made it: a client replaying it to a
backend that speaks Responses itself (OpenAI, which answers 404 for an item it never made)
does not send it there (`test_agent_replayed_reasoning`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from openai.types.responses import Response, ResponseReasoningItem, ResponseStreamEvent
from pydantic import TypeAdapter

from router.attempt_errors import Cut
from router.relay import Tally
from router.simulator.playback import THOUGHT
from router.translate import events, responses_reply, responses_whole
from router.translate.keep_alive import REASONING_GRACE_S
from router.translate.responses_items import OWN_REASONING
from router.translate.tool_ids import ToolIds
from tests.agent_apis.agent_stack import openai_client
from tests.agent_apis.chat_chunks import (
    ASK,
    FAILURES,
    SPELLINGS,
    USAGE,
    call,
    chunk,
    payloads,
    run,
    sse,
)
from tests.harness import (
    Running,
    RunningRouter,
    collected,
    config_for,
    router,
    scripted_stream,
    simulator,
)
from tests.memory import small_deltas, traced

# the events of one reasoning item, in OpenAI's order, before what follows it
OPENED = ["response.output_item.added", "response.content_part.added"]
CLOSED = [
    "response.reasoning_text.done",
    "response.content_part.done",
    "response.output_item.done",
]
EVENTS: TypeAdapter[Any] = TypeAdapter(ResponseStreamEvent)  # as the `openai` SDK reads one


def own() -> ToolIds:
    """A stream's ids with a known part (`p1`): its items are named by it."""
    return ToolIds("p1", prefix="call")


def names(events: list[tuple[str, dict[str, Any]]]) -> list[str]:
    return [name for name, _ in events]


def typed(events: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """The `openai` SDK's class for each event, which must read it whole (its type among
    `ResponseStreamEvent`'s): a `reasoning_part` event it refused."""
    return [type(EVENTS.validate_python(event)).__name__ for _, event in events]


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_reasoning_is_held_through_the_grace_then_streams_as_a_reasoning_item(
    spelling: str,
) -> None:
    now = 0.0
    stream = responses_reply.ResponsesStream({"model": "auto"}, clock=lambda: now, ids=own())
    thought = SPELLINGS[spelling]

    def sent(*deltas: Any) -> list[tuple[str, dict[str, Any]]]:
        return [event for d in deltas for event in payloads(stream.feed(chunk(d)))]

    # nothing but the openers all through the grace: a failure then still falls back
    opened = sent({"role": "assistant", **thought("Let me")})
    assert names(opened) == ["response.created", "response.in_progress"]
    now = REASONING_GRACE_S - 0.001
    assert sent(thought(" think")) == []
    assert stream.held_chars == len("Let me think")  # generated, not yet sent
    now = REASONING_GRACE_S  # the grace is over: what was held goes out as one delta
    shown = sent(thought("."))
    assert names(shown) == [*OPENED, "response.reasoning_text.delta"]
    added, part, delta = (event for _, event in shown)
    assert added["item"] == {
        "type": "reasoning",
        "id": "rs_smf_p1_0",  # made by the router, from its reply's part and its place
        "summary": [],
        "status": "in_progress",
    }
    assert part["part"] == {"type": "reasoning_text", "text": ""}
    assert typed(shown) == [
        "ResponseOutputItemAddedEvent",
        "ResponseContentPartAddedEvent",
        "ResponseReasoningTextDeltaEvent",
    ]
    assert added["item"]["id"].startswith("rs_smf_")  # made by the router
    assert (delta["output_index"], delta["content_index"]) == (0, 0)
    assert delta["delta"] == "Let me think." and stream.held_chars == 0
    now += 0.001  # later pieces as they come, the answer after the reasoning item
    assert names(sent(thought(" Hm."))) == ["response.reasoning_text.delta"]
    answered = sent(thought(" So", "Hi"))
    assert names(answered) == [
        "response.reasoning_text.delta",
        *CLOSED,
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
    ]
    assert typed(answered)[1:4] == [
        "ResponseReasoningTextDoneEvent",
        "ResponseContentPartDoneEvent",
        "ResponseOutputItemDoneEvent",
    ]
    assert answered[2][1]["part"] == {"type": "reasoning_text", "text": "Let me think. Hm. So"}
    done = answered[3][1]["item"]
    thinking = "Let me think. Hm. So"
    assert done == {
        "type": "reasoning",
        "id": added["item"]["id"],
        "summary": [],
        "content": [{"type": "reasoning_text", "text": thinking}],
        "status": "completed",
    }
    assert answered[4][1]["output_index"] == 1  # the message follows it
    final = payloads(stream.feed(chunk({}, "stop")) + stream.end())[-1][1]["response"]
    assert [item["type"] for item in final["output"]] == ["reasoning", "message"]
    parsed = Response.model_validate(final)  # as the `openai` SDK reads it
    assert isinstance(parsed.output[0], ResponseReasoningItem)
    assert parsed.output[0].content is not None and parsed.output[0].content[0].text == thinking


def test_reasoning_within_the_grace_goes_out_first_when_the_answer_comes() -> None:
    """The model moves on before the grace is over: its answer commits the stream anyway,
    and the reasoning held goes before it, the reasoning item first."""
    stream = responses_reply.ResponsesStream({"model": "auto"}, clock=lambda: 0.0, ids=own())
    fed = [
        chunk({"role": "assistant", "reasoning": "I need "}),
        chunk({"reasoning": "the weather."}),
        call(0, "", "get_weather"),
        call(0, '{"city": "Paris"}'),
        chunk({}, "tool_calls"),
    ]
    said: list[tuple[str, dict[str, Any]]] = []
    for one in fed:
        said += payloads(stream.feed(one))
    said += payloads(stream.end())
    assert names(said)[2:9] == [
        *OPENED,
        "response.reasoning_text.delta",
        *CLOSED,
        "response.output_item.added",
    ]
    assert said[4][1]["delta"] == "I need the weather."
    final = said[-1][1]["response"]
    assert [(i["type"], i["status"]) for i in final["output"]] == [
        ("reasoning", "completed"),
        ("function_call", "completed"),
    ]


@pytest.mark.parametrize("before", ["text", "call"])
def test_reasoning_after_text_or_a_call_opens_a_new_item_after_it(before: str) -> None:
    """An item once closed takes no more: reasoning that comes after the answer began (a
    model thinking again after a call, as an interleaved-thinking model does) is an item of
    its own, after the one before it, and so is the text after that."""
    stream = responses_reply.ResponsesStream({"model": "auto"}, clock=lambda: 0.0, ids=own())
    fed = [chunk({"role": "assistant", "reasoning": "First."})]
    if before == "text":
        fed.append(chunk({"content": "Hi"}))
    else:
        fed += [call(0, "", "get_weather"), call(0, '{"city": "Paris"}')]
    fed += [chunk({"reasoning": "Then."}), chunk({"content": "Done."}), chunk({}, "stop")]
    final = run(stream, fed)[-1][1]["response"]
    middle = ("message", "msg_p1_1")
    if before == "call":
        middle = ("function_call", "fc_p1_1")
    assert [(item["type"], item["id"]) for item in final["output"]] == [
        ("reasoning", "rs_smf_p1_0"),
        middle,
        ("reasoning", "rs_smf_p1_2"),
        ("message", "msg_p1_3"),
    ]
    thoughts = [item["content"][0]["text"] for item in final["output"][::2]]
    assert thoughts == ["First.", "Then."]


def test_reasoning_alone_within_the_grace_shows_at_the_end_cut_when_the_limit_cut_it() -> None:
    stream = responses_reply.ResponsesStream({"model": "auto"}, clock=lambda: 0.0, ids=own())
    held = stream.feed(chunk({"role": "assistant", "reasoning": "Let me think"}))
    assert names(payloads(held)) == ["response.created", "response.in_progress"]
    assert stream.feed(chunk({}, "length")) == []
    ended = payloads(stream.end())
    assert names(ended) == [
        *OPENED,
        "response.reasoning_text.delta",
        *CLOSED,
        "response.incomplete",
    ]
    assert ended[-2][1]["item"]["status"] == "incomplete"
    assert ended[-1][1]["response"]["output"][0]["content"][0]["text"] == "Let me think"


def test_reasoning_held_through_the_grace_is_joined_as_it_comes() -> None:
    """Held, a piece of a few characters each cost some 60 bytes as its own string: 2 MB of
    reasoning in 4-character deltas held 30 MB (found in re-review). They are joined as
    they come (`so_far.Text`), and shown whole once the grace is over. Past the grace they
    were kept per piece twice, by the open block and by the item (17.7 times the text)."""
    now = 0.0
    stream = responses_reply.ResponsesStream({"model": "auto"}, clock=lambda: now, ids=own())
    stream.feed(chunk({"role": "assistant", "content": ""}))
    count = 50_000  # 200 KB
    with traced() as held:
        for piece in small_deltas(count):
            assert stream.feed(chunk({"reasoning": piece})) == []
    assert stream.held_chars == 4 * count
    assert held.held < 3 * stream.held_chars  # the text, and the joining's spare room
    now = REASONING_GRACE_S
    shown = payloads(stream.feed(chunk({"reasoning": "."})))
    whole = "".join(small_deltas(count)) + "."
    assert shown[-1][1]["delta"] == whole and stream.held_chars == 0
    with traced() as kept:
        for piece in small_deltas(count, "cd"):  # shown as they come, kept for the done item
            assert len(stream.feed(chunk({"reasoning": piece}))) == 1
    assert kept.held < 3 * 4 * count
    done = payloads(stream.feed(chunk({"content": "Hi"})))[2][1]
    assert done["item"]["content"][0]["text"] == whole + "".join(small_deltas(count, "cd"))


def test_a_stream_cut_mid_reasoning_fails_with_the_reasoning_so_far_counted_as_output() -> None:
    """Past the grace the reasoning went out: the `response.failed` that ends a stream cut
    there shows it as far as it went, and the ledger's estimate counts it as sent (the
    translator no longer holds it), not as answer text."""
    now = 0.0
    stream = responses_reply.ResponsesStream({"model": "auto"}, clock=lambda: now, ids=own())
    sent = stream.feed(chunk({"role": "assistant", "reasoning": "Let me "}))
    now = REASONING_GRACE_S
    sent += stream.feed(chunk({"reasoning": "think"}))
    sent += stream.feed(chunk({"reasoning": " more"}))
    tally = Tally(api="responses", keep_text=True, translation=stream)
    for _, payload in payloads(sent):
        events.see("responses", tally, payload)
    said = (tally.output_chars, stream.held_chars, str(tally.text))
    assert said == (len("Let me think more"), 0, "")
    failed = payloads([events.error_event("responses", Cut("cut"), tally)])[0][1]
    assert failed["response"]["output"] == [
        {
            "type": "reasoning",
            "id": "rs_smf_p1_0",
            "summary": [],
            "status": "incomplete",
            "content": [{"type": "reasoning_text", "text": "Let me think more"}],
        }
    ]


def whole_reply(message: dict[str, Any], usage: Any = USAGE) -> dict[str, Any]:
    choice = {"index": 0, "message": {"role": "assistant", **message}, "finish_reason": "stop"}
    reply = {"id": "c", "object": "chat.completion", "created": 0, "model": "local-model"}
    return reply | {"choices": [choice], "usage": usage}


@pytest.mark.parametrize("field", ["reasoning", "reasoning_content"])
def test_a_whole_reply_has_the_reasoning_item_first_counted_as_output_not_text(field: str) -> None:
    chat = whole_reply({field: "Two and two.", "content": "4", "tool_calls": []})
    reply = responses_whole.from_chat(chat, {"model": "auto"})
    made = reply["output"][0]["id"]  # the reply's own part, not the chat id ("c")
    assert made.startswith(OWN_REASONING) and made != f"{OWN_REASONING}c"
    assert reply["output"][0] == {
        "type": "reasoning",
        "id": made,
        "summary": [],
        "content": [{"type": "reasoning_text", "text": "Two and two."}],
        "status": "completed",
    }
    assert [item["type"] for item in reply["output"]] == ["reasoning", "message"]
    assert isinstance(Response.model_validate(reply).output[0], ResponseReasoningItem)
    tally = Tally(api="responses", keep_text=True)
    events.see("responses", tally, reply)
    assert (tally.output_chars, str(tally.text)) == (len("Two and two.") + 1, "4")


@pytest.mark.parametrize("failure", sorted(FAILURES))
def test_reasoning_that_fails_within_the_grace_falls_back(tmp_path: Path, failure: str) -> None:
    """Reasoning, then a failure before any text: nothing reached Codex (the reasoning waits
    out the grace), so the next backend answers, as on Messages."""
    thinking = [chunk({"reasoning": "Let me think. "}) for _ in range(5)]
    body = sse(chunk({"role": "assistant", "content": ""}), *thinking) + FAILURES[failure]
    with (
        scripted_stream(body) as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
        router(config_for({"local": local, "cloud": cloud}, tmp_path)) as proxy,
    ):
        records = collected(proxy)
        sent = list(openai_client(proxy).responses.create(model="coding", input=ASK, stream=True))
        record = records.wait(10)
    assert sent[-1].type == "response.completed"
    assert not any(e.type.startswith("response.reasoning") for e in sent)  # the cloud's answer
    assert [a.backend for a in record.attempts] == ["local", "cloud"]
    assert (record.outcome, record.backend) == ("ok", "cloud")


@pytest.mark.usefixtures("short_grace")
@pytest.mark.parametrize("backend", ["local", "cloud"])
def test_codex_gets_the_reasoning_as_it_comes_and_the_sdk_reads_its_item(
    chat_proxy: RunningRouter, chat_sims: dict[str, Running], backend: str
) -> None:
    """Seconds of reasoning: after the grace the reasoning item streams, the SDK parses its
    done item as a `ResponseReasoningItem` and its final response has it first; its next
    turn, replaying the items as Codex does, is answered."""
    sdk = openai_client(chat_proxy)
    chat_sims[backend].control("faults", {"fault": "thinking:3"})
    try:
        sent = list(sdk.responses.create(model=backend, input=ASK, stream=True))
        with sdk.responses.stream(model=backend, input=ASK) as stream:
            list(stream)
            final = stream.get_final_response()
    finally:
        chat_sims[backend].control("faults", {"fault": None})
    kinds = [e.type for e in sent]
    # each event read as its own class: the SDK took a `reasoning_part` one for an audio delta
    assert [type(EVENTS.validate_python(e.to_dict())) for e in sent] == list(map(type, sent))
    first = kinds.index("response.output_item.added")
    assert kinds[first : first + 3] == [*OPENED, "response.reasoning_text.delta"]
    assert kinds.index("response.reasoning_text.done") < kinds.index("response.output_text.delta")
    thinking = "".join(e.delta for e in sent if e.type == "response.reasoning_text.delta")  # type: ignore[union-attr]
    assert thinking and thinking == THOUGHT * thinking.count(THOUGHT)
    done = [e.item for e in sent if e.type == "response.output_item.done"]  # type: ignore[union-attr]
    assert isinstance(done[0], ResponseReasoningItem) and done[0].content is not None
    assert done[0].content[0].text == thinking
    assert sent[-1].type == "response.completed"
    assert [item.type for item in sent[-1].response.output] == ["reasoning", "message"]  # type: ignore[union-attr]
    assert isinstance(final.output[0], ResponseReasoningItem) and final.output_text
    replayed = [{"role": "user", "content": ASK}, *(i.model_dump() for i in final.output)]
    follow = [*replayed, {"role": "user", "content": "Now in Rust."}]
    assert sdk.responses.create(model=backend, input=follow).output_text  # type: ignore[arg-type]
