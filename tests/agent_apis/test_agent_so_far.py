"""The output a failed Responses stream carries (`router.translate.so_far`), read by the
relay's tally from the events it forwards, as the `response.failed` the router ends the
stream with shows it.

Found in review: a cut reasoning item came back `incomplete` with no text, though its text
had streamed (its reasoning and summary events were not read), and every delta was kept as
its own string, some 15 times the text streamed.
"""

from __future__ import annotations

import sys
from typing import Any

import orjson
import pytest
from openai.types.responses import ResponseReasoningItem

from router.attempt_errors import UpstreamError
from router.relay import Tally
from router.translate import events

Event = dict[str, Any]


def _failed(stream: list[Event]) -> dict[str, Any]:
    """The `response.failed` the router ends `stream` with when it breaks there."""
    tally = Tally(api="responses")
    for number, event in enumerate(stream):
        tally.see({**event, "sequence_number": number})
    sent = events.error_event("responses", UpstreamError("backend went away"), tally)
    data = next(line for line in sent.splitlines() if line.startswith(b"data: "))
    failed: dict[str, Any] = orjson.loads(data[len(b"data: ") :])
    return failed


def _added(index: int, item: Event) -> Event:
    return {"type": "response.output_item.added", "output_index": index, "item": item}


def _delta(kind: str, index: int, delta: str, **part: int) -> Event:
    return {"type": kind, "output_index": index, "item_id": "x", "delta": delta, **part}


def _part_added(index: int, part: Event, kind: str = "response.content_part.added") -> Event:
    return {"type": kind, "output_index": index, "content_index": 0, "part": part}


MESSAGE = {"type": "message", "id": "m", "role": "assistant", "content": []}
TEXT_PART = {"type": "output_text", "text": "", "annotations": []}
CALL = {"type": "function_call", "id": "fc", "call_id": "c", "name": "f", "arguments": ""}
# vLLM's reasoning item (`ResponseReasoningItem` as it streams it) and its reasoning part
VLLM_REASONING: Event = {
    "type": "reasoning",
    "id": "rs_1",
    "summary": [],
    "content": None,
    "encrypted_content": None,
    "status": "in_progress",
}
REASONING_PART = {"type": "reasoning_text", "text": ""}
THOUGHT = ["Let me think about ", "the weather in Paris."]
SUMMARY = [["**Planning** ", "checking weather"], ["Then ", "answering"]]


@pytest.mark.parametrize(
    "part_added", ["response.reasoning_part.added", "response.content_part.added"]
)
def test_a_reasoning_item_cut_mid_text_keeps_its_text(part_added: str) -> None:
    """Its part added as vLLM (`reasoning_part.added`) or OpenAI (`content_part.added`) adds
    it, the item comes back as vLLM writes a done one: the text in a `reasoning_text` part
    of its `content`."""
    stream = [_added(0, VLLM_REASONING), _part_added(0, REASONING_PART, part_added)]
    kind = "response.reasoning_text.delta"
    stream += [_delta(kind, 0, text, content_index=0) for text in THOUGHT]
    output = _failed(stream)["response"]["output"]
    content = [{"type": "reasoning_text", "text": "".join(THOUGHT)}]
    assert output == [{**VLLM_REASONING, "content": content, "status": "incomplete"}]
    read = ResponseReasoningItem.model_validate(output[0])  # as the `openai` SDK reads it
    assert read.content is not None and read.content[0].text == "".join(THOUGHT)


def test_a_reasoning_summary_cut_mid_text_keeps_its_parts() -> None:
    """OpenAI's summary, in parts counted by `summary_index`: each `summary_text` with its
    text, the one done and the one cut; then a message the reasoning was done before."""
    item = {"type": "reasoning", "id": "rs_1", "summary": []}
    stream = [_added(0, item)]
    kind = "response.reasoning_summary_text.delta"
    for number, texts in enumerate(SUMMARY):
        part = {"type": "summary_text", "text": ""}
        added = {"type": "response.reasoning_summary_part.added", "output_index": 0}
        stream.append({**added, "summary_index": number, "part": part})
        stream += [_delta(kind, 0, text, summary_index=number) for text in texts]
    failed = _failed(stream)
    summary = [{"type": "summary_text", "text": "".join(texts)} for texts in SUMMARY]
    assert failed["response"]["output"] == [{**item, "summary": summary, "status": "incomplete"}]
    read = ResponseReasoningItem.model_validate(failed["response"]["output"][0])
    assert read.summary[1].text == "Then answering"  # as the `openai` SDK reads it

    done = {**item, "summary": summary, "status": "completed"}
    stream += [{"type": "response.output_item.done", "output_index": 0, "item": done}]
    stream += [_added(1, MESSAGE), _part_added(1, TEXT_PART)]
    stream += [_delta("response.output_text.delta", 1, "It is sunny.", content_index=0)]
    cut = {**MESSAGE, "content": [{**TEXT_PART, "text": "It is sunny."}], "status": "incomplete"}
    assert _failed(stream)["response"]["output"] == [done, cut]


TEXT = [_added(0, MESSAGE), _part_added(0, TEXT_PART)]
REASONING = [_added(0, VLLM_REASONING)]
REASONING += [_part_added(0, REASONING_PART, "response.reasoning_part.added")]


@pytest.mark.parametrize(
    ("opening", "kind", "where"),
    [
        (TEXT, "response.output_text.delta", {"content_index": 0}),
        ([_added(0, CALL)], "response.function_call_arguments.delta", {}),
        (REASONING, "response.reasoning_text.delta", {"content_index": 0}),
    ],
)
def test_a_long_stream_keeps_few_of_its_deltas(
    opening: list[Event], kind: str, where: dict[str, int]
) -> None:
    """Each delta kept as its own string cost some 60 bytes for its few characters: the
    tally keeps only the last few hundred as they came (counted by the references to
    them), the text whole; an item after it starts afresh."""
    deltas = [f"{n:04x}" for n in range(10_000)]  # each its own new string
    unfed = max(sys.getrefcount(delta) for delta in deltas)  # the list's, the loop's, the call's
    stream = [*opening, *(_delta(kind, 0, text, **where) for text in deltas[:6000])]
    stream += [_added(1, CALL)]
    stream += [_delta("response.function_call_arguments.delta", 1, t) for t in deltas[6000:]]
    tally = Tally(api="responses")
    for event in stream:
        tally.see(event)
    del stream, event
    kept = sum(sys.getrefcount(delta) > unfed for delta in deltas)
    assert kept <= 2 * 256
    cut = tally.so_far.output()
    first = cut[0]["content"][0]["text"] if where else cut[0]["arguments"]
    assert (first, cut[1]["arguments"]) == ("".join(deltas[:6000]), "".join(deltas[6000:]))


def test_a_delta_for_an_earlier_part_goes_into_that_part() -> None:
    """Deltas for part 0 after part 1 opened, and for a summary part before the last: the
    `openai` SDK appends each to the part its index names; they were dropped here, and the
    output disagreed with the SDK's (found in review). Many of them, interleaved, are still
    joined as they come."""
    deltas = [f"{n:04x}" for n in range(6000)]  # each its own new string
    unfed = max(sys.getrefcount(delta) for delta in deltas)
    stream = [*TEXT, _delta("response.output_text.delta", 0, "Hello ", content_index=0)]
    stream.append({**_part_added(0, TEXT_PART), "content_index": 1})
    for number, text in enumerate(deltas):
        stream.append(_delta("response.output_text.delta", 0, text, content_index=number % 2))
    tally = Tally(api="responses")
    for event in stream:
        tally.see(event)
    del stream, event
    kept = sum(sys.getrefcount(delta) > unfed for delta in deltas)
    assert kept <= 2 * 2 * 256
    texts = [part["text"] for part in tally.so_far.output()[0]["content"]]
    assert texts == ["Hello " + "".join(deltas[::2]), "".join(deltas[1::2])]

    summary = "response.reasoning_summary_text.delta"
    stream = [_added(0, {"type": "reasoning", "id": "rs_1", "summary": []})]
    for number in range(2):
        added = {"type": "response.reasoning_summary_part.added", "output_index": 0}
        stream.append({**added, "summary_index": number, "part": {"type": "summary_text"}})
    stream += [_delta(summary, 0, "first", summary_index=0)]
    stream += [_delta(summary, 0, "second", summary_index=1)]
    read = ResponseReasoningItem.model_validate(_failed(stream)["response"]["output"][0])
    assert [part.text for part in read.summary] == ["first", "second"]
