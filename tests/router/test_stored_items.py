"""The items the router made, kept for a later `item_reference` (`router.stored_items`):
bounded by entries and by bytes, each item its caller's, a reference used kept again."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from router import request
from router.errors import BadRequest, BodyTooLarge
from router.stored_items import SENT_WHOLE, ChainBroken, Own, SizedTable, StoredItems
from router.stored_responses import KEPT_S, StoredResponses
from router.stored_said import after, said, said_part
from router.translate.responses_request import to_chat

LIMIT = 1 << 20


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def message(item_id: str, text: str = "hi") -> dict[str, Any]:
    content = [{"type": "output_text", "text": text, "annotations": []}]
    return {"type": "message", "id": item_id, "role": "assistant", "content": content}


def named(*ids: str) -> dict[str, Any]:
    return {"input": [{"type": "item_reference", "id": i} for i in ids]}


def test_the_bytes_held_are_bounded_oldest_out_and_counted_out_however_they_leave() -> None:
    clock = Clock()
    table = SizedTable(10.0, 100, 10, clock)
    table.remember("a", b"1234")
    table.remember("b", b"1234")
    table.remember("a", b"12")  # replaced: its old bytes leave
    assert table.bytes == 6
    table.remember("c", b"123456")  # 12 > 10: the least recently kept, b, goes
    assert (table.get("b"), table.bytes) == (None, 8)
    table.remember("d", b"x" * 11)  # larger than the whole budget: kept by nothing
    assert (table.get("d"), len(table), table.bytes) == (None, 2, 8)  # and pushes none out
    table.resize(0.0, 100)  # kept for no time: nothing, and no bytes
    assert (len(table), table.bytes) == (0, 0)
    table.resize(10.0, 100)
    table.remember("e", b"123")
    clock.now = 10.0  # expired, found so on reading it
    assert (table.get("e"), table.bytes) == (None, 0)
    for key in "fgh":
        table.remember(key, b"12")
    table.resize(10.0, 1)  # fewer entries
    assert (len(table), table.bytes) == (1, 2)
    table.resize(0.0, 1)  # kept for no time: nothing
    assert (len(table), table.bytes) == (0, 0)


def test_an_entry_kept_again_is_the_newest_its_bytes_counted_once() -> None:
    """As `remember` of the same value: its age restarts and it goes out last."""
    clock = Clock()
    table = SizedTable(10.0, 100, 10, clock)
    table.remember("a", b"1234")
    clock.now = 5.0
    table.remember("b", b"1234")
    clock.now = 8.0
    assert table.kept_again("a") == b"1234" and table.bytes == 8
    clock.now = 16.0  # b's 10 s are up, not a's, kept again at 8
    assert (table.kept_again("b"), table.kept_again("a"), table.bytes) == (None, b"1234", 4)
    table.remember("c", b"1234")
    table.remember("d", b"1234")  # 12 > 10: the least recently kept goes, a
    assert (table.kept_again("a"), table.kept_again("missing"), table.bytes) == (None, None, 8)


def test_a_reference_is_its_callers_item_and_the_routers_reasoning_none() -> None:
    items = StoredItems(KEPT_S, 10, Clock())
    items.keep("alice", [message("msg_1"), {"type": "reasoning", "id": "rs_smf_1"}])
    body = named("rs_smf_1", "msg_1", "msg_2")
    expected = [message("msg_1"), named("msg_2")["input"][0]]
    assert items.expanded(body, "alice", LIMIT)["input"] == expected
    assert items.expanded(body, "bob", LIMIT)["input"] == named("msg_1", "msg_2")["input"]
    assert len(items.table) == 1  # reasoning is not kept
    plain = {"input": [message("msg_1")]}
    assert items.expanded(plain, "alice", LIMIT) is plain  # nothing named: the body itself


def test_an_item_expanded_is_kept_again_and_a_copy() -> None:
    """An agent sends its session's first answer on every turn: it outlasts later ones."""
    items = StoredItems(KEPT_S, 2, Clock())
    items.keep("alice", [message("msg_1")])
    items.keep("alice", [message("msg_2")])
    expanded = items.expanded(named("msg_1"), "alice", LIMIT)["input"][0]
    expanded["content"][0]["text"] = "changed"  # the kept item is its own
    items.keep("alice", [message("msg_3")])  # the least recently kept, msg_2, goes
    assert items.expanded(named("msg_2"), "alice", LIMIT) == named("msg_2")
    assert items.expanded(named("msg_1"), "alice", LIMIT)["input"] == [message("msg_1")]


def test_only_a_stored_response_the_router_made_keeps_its_items() -> None:
    stored = StoredResponses(10)
    output = [message("msg_a"), {"type": "function_call", "id": "fc_a", "call_id": "c"}]
    stored.made("responses", {}, "alice", "resp_a", None, output=output)
    stored.made("responses", {}, "alice", "resp_b", "local", output=[message("msg_b")])
    stored.made("responses", {"store": False}, "alice", "resp_c", None, output=[message("msg_c")])
    kept = stored.items.expanded(named("msg_a", "fc_a", "msg_b", "msg_c"), "alice", LIMIT)["input"]
    assert [item["type"] for item in kept] == ["message", "function_call", *["item_reference"] * 2]
    assert kept[1] == output[1]
    stored.resize(1)  # a reload resizes the items with the ids
    assert stored.items.table.max_entries == 1 and len(stored.items.table) == 1


def test_an_input_naming_only_the_routers_reasoning_is_refused() -> None:
    """Left out, it leaves nothing to send, as the router's reasoning items replayed whole."""
    only = {"model": "cloud", "input": [*named("rs_smf_1")["input"], {"id": "rs_smf_2"}]}
    with pytest.raises(BadRequest, match="or references to them") as refused:
        request.validate("responses", only)
    assert refused.value.param == "input"


def test_references_that_name_more_than_the_body_limit_are_a_413() -> None:
    """One large item named again and again: each reference a copy, 3,000 of them 2 GB held
    and sent on (found in review). What the references add is bounded as a body is."""
    items = StoredItems(KEPT_S, 100, Clock())
    items.keep("alice", [message("msg_1", "x" * 1000)])
    limit = 4 * len(orjson.dumps(message("msg_1", "x" * 1000)))
    assert len(items.expanded(named(*["msg_1"] * 4), "alice", limit)["input"]) == 4
    with pytest.raises(BodyTooLarge) as refused:
        items.expanded(named(*["msg_1"] * 5), "alice", limit)
    assert (refused.value.status, refused.value.param) == (413, "input")
    assert items.expanded(named(*["msg_9"] * 50), "alice", 10)["input"]  # not held: no bytes


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def test_a_chain_is_each_turns_own_input_then_its_answer_oldest_first() -> None:
    """Each response keeps only its turn's own input and the one it continues: the walk
    tells the conversation whole, without any turn's instructions or tools."""
    stored, names = StoredResponses(10), {"cloud"}
    ask = {"instructions": "be terse", "tools": [{"type": "function", "name": "f"}]}
    first, own = stored.whole("responses", {**ask, "input": "one"}, "alice", None, LIMIT)
    assert first == {**ask, "input": "one"} and own is not None and own.previous is None
    stored.made("responses", first, "alice", "resp_1", None, output=[message("msg_1")], own=own)
    second = {"input": [user("two")], "previous_response_id": "resp_1"}
    whole, own = stored.whole(
        "responses", second, "alice", stored.continued("responses", second, "alice"), LIMIT
    )
    said_one = {"type": "message", "role": "user", "content": "one"}
    assert whole == {"input": [said_one, message("msg_1"), user("two")]}
    assert own is not None and own.previous == "resp_1" and own.items == [user("two")]
    stored.made("responses", second, "alice", "resp_2", None, output=[message("msg_2")], own=own)
    third = {"input": "three", "previous_response_id": "resp_2", "instructions": "now"}
    told, _ = stored.whole("responses", third, "alice", None, LIMIT)
    said_three = {"type": "message", "role": "user", "content": "three"}
    assert told == {
        "input": [said_one, message("msg_1"), user("two"), message("msg_2"), said_three],
        "instructions": "now",
    }
    bob, mine = stored.whole("responses", third, "bob", None, LIMIT)  # not his: as sent
    assert (bob, mine) == (third, None)
    assert stored.lookup("responses", third, "alice", names)[0] is None  # pinned nowhere


def test_a_link_no_longer_held_is_a_400_naming_it() -> None:
    stored = StoredResponses(10)
    _, own = stored.whole("responses", {"input": "one"}, "alice", None, LIMIT)
    stored.made("responses", {}, "alice", "resp_1", None, output=[message("msg_1")], own=own)
    second = {"input": "two", "previous_response_id": "resp_1"}
    _, own = stored.whole("responses", second, "alice", None, LIMIT)
    stored.made("responses", {}, "alice", "resp_2", None, output=[message("msg_2")], own=own)
    del stored.items.table._entries["turn\0alice\0resp_1"]  # pushed out
    with pytest.raises(ChainBroken) as broken:
        stored.whole(
            "responses", {"input": "3", "previous_response_id": "resp_2"}, "alice", None, LIMIT
        )
    assert broken.value.param == "previous_response_id"
    assert "'resp_2' continues 'resp_1', which the router made and no longer holds" in str(
        broken.value.message
    )
    assert "whole input" in broken.value.message and "store: false" in broken.value.message


def test_an_answer_reusing_the_id_it_continues_keeps_no_loop() -> None:
    """A backend may give two answers one id: a loop ends in a 400, never walks on."""
    items = StoredItems(KEPT_S, 10, Clock())
    items.keep("alice", [message("msg_1")], "resp_1", Own("resp_2", []))
    items.keep("alice", [message("msg_2")], "resp_2", Own("resp_1", []))
    items.keep("alice", [message("msg_3")], "resp_2", Own("resp_2", []))  # itself: not kept
    with pytest.raises(ChainBroken, match="or one that loops"):
        items.history("alice", "resp_2", LIMIT)
    assert items.history("alice", "resp_9", LIMIT) is None  # not held: a backend's


def test_a_turn_sending_its_conversation_whole_keeps_only_its_new_items() -> None:
    """A client storing its responses but sending its whole conversation each turn (the
    Vercel AI SDK, the OpenAI Agents SDK's tool loop): each turn begins with the one before,
    so it keeps only its new items, and its answer can be continued by id. Kept whole, what
    the router held grew as the square of the turns (found in review)."""
    stored = StoredResponses(100)
    conversation: list[Any] = []
    for turn in range(1, 21):
        ask = user(f"ask {turn} " + "x" * 500)
        conversation.append(ask)
        whole, own = stored.whole("responses", {"input": conversation}, "alice", None, LIMIT)
        assert whole == {"input": conversation}  # sent as it came
        previous = f"resp_{turn - 1}" if turn > 1 else None
        assert own is not None and (own.previous, own.items, own.whole) == (previous, [ask], False)
        answer = message(f"msg_{turn}", "y" * 500)
        stored.made("responses", whole, "alice", f"resp_{turn}", None, output=[answer], own=own)
        conversation.append(answer)
    each = len(orjson.dumps(conversation[0])) + len(orjson.dumps(conversation[1])) + 100
    assert stored.items.table.bytes < 20 * each  # each ask and answer once: linear
    more = {"input": "more", "previous_response_id": "resp_20"}
    told, own = stored.whole(
        "responses", more, "alice", stored.continued("responses", more, "alice"), LIMIT
    )
    assert told["input"] == [*conversation, {"type": "message", "role": "user", "content": "more"}]
    assert own is not None and not own.found  # named by the client: echoed


def test_a_turn_sending_whole_a_conversation_the_router_does_not_hold_keeps_no_input() -> None:
    """A client that rewrites the answers it was given (or sends another server's) begins
    each turn with no conversation the router holds: its inputs are not kept, or what the
    router held grew as the square of the turns, and continuing one by id is a 400 saying
    what the router keeps and what to do."""
    stored = StoredResponses(100)
    conversation: list[Any] = []
    for turn in range(1, 21):
        conversation.append(user(f"ask {turn} " + "x" * 500))
        whole, own = stored.whole("responses", {"input": conversation}, "alice", None, LIMIT)
        assert own is not None and own.whole == (turn > 1)  # the first is a start: kept
        answer = message(f"msg_{turn}", "y" * 500)
        stored.made("responses", whole, "alice", f"resp_{turn}", None, output=[answer], own=own)
        conversation.append(message(f"msg_{turn}", "z" * 500))  # not what the router said
    assert stored.items.table.bytes < 20 * 1200  # each answer once, one first ask: linear
    more = {"input": "more", "previous_response_id": "resp_20"}
    with pytest.raises(ChainBroken, match="'resp_20' is the answer to an input whose") as no:
        stored.whole(
            "responses", more, "alice", stored.continued("responses", more, "alice"), LIMIT
        )
    assert "auto_previous_response_id=True" in no.value.message
    assert "whole input" in no.value.message


def test_an_input_sent_whole_is_read_for_what_its_items_say() -> None:
    """An SDK writes the router's items back its own way (nulls added, `logprobs: null` for
    `[]`, a string for one text part, no `type`), and the router's reasoning, which no
    backend gets, among them; the turn keeps what comes after the answer, once."""
    stored = StoredResponses(100)
    ask = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}
    _, own = stored.whole("responses", {"input": [ask]}, "alice", None, LIMIT)
    call = {"type": "function_call", "id": "fc_1", "call_id": "c", "name": "f", "arguments": "{}"}
    answer = [message("msg_1"), {**call, "status": "completed"}]
    stored.made("responses", {}, "alice", "resp_1", None, output=answer, own=own)
    written = {**message("msg_1"), "phase": None, "status": "completed"}
    written["content"] = [{"type": "output_text", "text": "hi", "logprobs": None}]
    result = {"type": "function_call_output", "call_id": "c", "output": "1"}
    reasoning = {"type": "reasoning", "id": "rs_smf_1", "summary": []}
    sent = [{"role": "user", "content": "hi"}, reasoning, written, {**call, "namespace": None}]
    _, own = stored.whole("responses", {"input": [*sent, result]}, "alice", None, LIMIT)
    assert own == Own("resp_1", [result], found=True)
    for edited in ({**call, "arguments": '{"a": 1}'}, {**call, "id": "fc_2"}):
        _, own = stored.whole("responses", {"input": [*sent[:3], edited]}, "alice", None, LIMIT)
        assert own is not None and own.whole  # another call, or none the router made
    _, own = stored.whole("responses", {"input": [*sent, result]}, "bob", None, LIMIT)
    assert own is not None and own.whole  # alice's answer, not bob's
    del stored.items.table._entries["turn\0alice\0resp_1"]  # pushed out
    _, own = stored.whole("responses", {"input": [*sent, result]}, "alice", None, LIMIT)
    assert own is not None and own.whole


def test_a_conversation_larger_than_the_body_limit_is_a_413() -> None:
    stored = StoredResponses(100)
    previous: str | None = None
    for turn in range(1, 6):
        body = {"input": "x" * 1000, **({"previous_response_id": previous} if previous else {})}
        whole, own = stored.whole("responses", body, "alice", None, LIMIT)
        stored.made("responses", whole, "alice", f"resp_{turn}", None, output=[], own=own)
        previous = f"resp_{turn}"
    continuing = {"input": "next", "previous_response_id": previous}
    assert len(stored.whole("responses", continuing, "alice", None, 6000)[0]["input"]) == 6
    with pytest.raises(BodyTooLarge) as refused:
        stored.whole("responses", continuing, "alice", None, 4000)
    assert (refused.value.status, refused.value.param) == (413, "previous_response_id")


UNREAD = {
    "no text": {"type": "input_text"},
    "a list type": {"type": ["input_text"], "text": "hi"},
    "an object type": {"type": {"of": "input_text"}, "text": "hi"},
    "a text no string": {"type": "input_text", "text": 5},
}


@pytest.mark.parametrize("part", UNREAD.values(), ids=UNREAD)
def test_a_part_read_as_no_text_is_compared_as_it_came(part: dict[str, Any]) -> None:
    """A text part without a string `text`, or whose `type` is no string, is no error: it
    says what the router holds only where it is written so there too (its null fields
    aside). Read as text, it was a KeyError or a TypeError, a 500 (found in review)."""
    stored = StoredResponses(100)
    _, own = stored.whole("responses", {"input": [user("hi")]}, "alice", None, LIMIT)
    call = {"type": "function_call", "id": "fc_1", "call_id": "c", "name": "f", "arguments": "{}"}
    stored.made("responses", {}, "alice", "resp_1", None, output=[call], own=own)
    result = {"type": "function_call_output", "call_id": "c", "output": "1"}
    sent = [{"role": "user", "content": [part]}, call, result]
    _, own = stored.whole("responses", {"input": sent}, "alice", None, LIMIT)
    assert own == SENT_WHOLE  # "hi" it does not say
    assert said(sent[0]) == {"type": "message", "role": "user", "content": [part]}
    written = {"role": "user", "content": [{**part, "annotations": None}], "id": "msg_9"}
    assert after([sent[0]], [written, result]) == [result]
    assert after([user("hi")], [written, result]) is None


PARTS = {
    "a text part": {"type": "input_text", "text": "hi"},
    "an answer's, as an SDK writes it": {
        "type": "output_text",
        "text": "hi",
        "annotations": [{"type": "url_citation", "url": "https://example.com"}],
        "logprobs": None,
    },
    "a refusal": {"type": "refusal", "refusal": "I can't help with that."},
    "a refusal with a text": {"type": "refusal", "text": "hi"},
    "a summary": {"type": "summary_text", "text": "hi"},
    "a text no string": {"type": "output_text", "text": ["hi"]},
    "an image": {"type": "input_image", "image_url": "https://example.com/a.png"},
}


@pytest.mark.parametrize("part", PARTS.values(), ids=PARTS)
def test_a_part_says_the_text_the_translation_tells_the_model(part: dict[str, Any]) -> None:
    """One reading of which parts are text (`router.translate.text_parts`): an input sent
    whole is compared by the text a part holds exactly where the translation tells the model
    that text, and as it came where it tells none. The translation read a refusal's `text`
    (none: an empty assistant turn) where the comparison took the part whole."""
    (told,) = to_chat({"model": "m", "input": [{"role": "assistant", "content": [part]}]})[
        "messages"
    ]
    assert said_part(part) == (told["content"] or {k: v for k, v in part.items() if v is not None})


def read_whole(items: StoredItems, body: list[Any]) -> Own:
    """`related` as it read before: the response the input's last item the router made
    ends, the whole conversation up to it parsed (`history`), then `after`."""
    for item in reversed(body):
        ends = items.table.get(f"end\0alice\0{item.get('id')}")
        if ends is not None:
            told = items.history("alice", ends.decode(), LIMIT)
            rest = None if told is None else after(told, body)
            return SENT_WHOLE if rest is None else Own(ends.decode(), rest, found=True)
    return SENT_WHOLE


def test_an_input_sent_whole_is_read_a_kept_turn_at_a_time_as_if_read_whole() -> None:
    """`related` compares a kept turn at a time (its own input as the bytes kept first) and
    stops at the first item that differs; its answer is the one `after` gives reading the
    whole conversation held (`history`), whatever the client changed, left out or added:
    the router's reasoning among the items, a turn with no input, a key order of its own."""
    items = StoredItems(KEPT_S, 100, Clock())
    call = {"type": "function_call", "id": "fc_2", "call_id": "c", "name": "f", "arguments": "{}"}
    result = {"type": "function_call_output", "call_id": "c", "output": "1"}
    reasoning = {"type": "reasoning", "id": "rs_smf_1", "summary": []}
    turns = [([user("one"), user("two")], message("msg_1")), ([], call), ([result], message("m"))]
    previous = None
    conversation: list[Any] = []
    for number, (own, answer) in enumerate(turns, 1):
        items.keep("alice", [answer], f"resp_{number}", Own(previous, own))
        previous = f"resp_{number}"
        conversation += [*own, {**answer, "phase": None}]  # as an SDK writes it back
    ask = user("three")
    sent = [
        [*conversation, ask],
        [*conversation],
        [reasoning, *conversation[:3], reasoning, *conversation[3:], reasoning, ask],
        [*conversation[:-1], ask],  # the last answer left out
        [{"content": "one", "role": "user"}, *conversation[1:], ask],  # keys in its order
        [user("zero"), *conversation, ask],
        [*conversation[:1], *conversation[2:], ask],
        [*conversation[:2], {**call, "arguments": '{"a": 1}'}, *conversation[3:], ask],
        [*conversation[:-1], message("msg_9", "changed"), ask],
        [*conversation[:-1], {**conversation[-1], "content": "rewritten"}, ask],
        [*conversation[:-1], {**conversation[-1], "id": "msg_1"}, ask],  # another id: the same
    ]
    for number, body in enumerate(sent):
        assert items.related("alice", body, LIMIT) == read_whole(items, body), number
    assert items.related("alice", sent[0], LIMIT).items == [ask]
    thought = [user("four"), reasoning, user("five")]  # kept so, continuing by id
    items.keep("alice", [message("msg_4")], "resp_4", Own("resp_3", thought))
    conversation += [*thought, message("msg_4")]
    for body in ([*conversation, ask], [*conversation[:-3], *conversation[-2:], ask]):
        assert items.related("alice", body, LIMIT) == read_whole(items, body)
    assert items.related("alice", sent[2], LIMIT).items == [reasoning, ask]
    assert items.related("alice", sent[4], LIMIT).items == [ask]
