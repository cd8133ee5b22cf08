"""A message's words key its conversation whatever their shape (`router.keyed_content.keyed`).

Found live with llama-stack 0.2.12 in front of the router: its Responses API sends a turn's
ask to the router's chat completions as a string, and on the follow-up resends it in the
history as a list of text parts. Keyed by its shape, each follow-up was a conversation of
its own: a math chat pinned to the cloud went local on its second turn. The OpenAI Agents
SDK and the Vercel AI SDK convert between the two shapes too. Real sockets, the official
SDKs, a real DuckDB ledger, the simulators as backends; each test sends as a caller of its
own.
"""

from __future__ import annotations

import copy
from typing import Any

import anthropic
import openai

from router import request as req
from router.conversation import conversation_key
from tests.agent_apis.sticky_stack import first_choice, ledger_rows, sent_rows
from tests.harness import Collect, RunningRouter
from tests.resilience.conftest import until

KEYS = {
    name: f"sk-content-shapes-{name}-41c7"
    for name in ("chat", "responses", "messages", "image", "explained")
}
MATH = "Prove that the square root of 2 is irrational."
ANSWER = "Suppose sqrt(2) = p/q in lowest terms; then p and q are both even, a contradiction."
# On its own, a follow-up the default routes send to the local backend first
FOLLOW_UP = 'Thanks! Now translate "good morning" into French.'
PNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8AB"


def parts(text: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": text}]


def llama_stack_turns() -> list[dict[str, Any]]:
    """A chat's two turns as llama-stack sends them: the first ask a string, then the
    history with that ask (and the answer) as text parts."""
    first = {"model": "auto", "messages": [{"role": "user", "content": MATH}]}
    second = {
        "model": "auto",
        "messages": [
            {"role": "user", "content": parts(MATH)},
            {"role": "assistant", "content": parts(ANSWER)},
            {"role": "user", "content": parts(FOLLOW_UP)},
        ],
    }
    return [first, second]


def test_an_ask_sent_as_a_string_then_as_parts_is_one_conversation(
    pinning: tuple[RunningRouter, Collect],
) -> None:
    rows = sent_rows(pinning, KEYS["chat"], llama_stack_turns())
    assert rows[0][1] == rows[1][1]
    assert [row[3] for row in rows] == ["cloud", "cloud"]  # the math chat's pin held


def test_the_follow_up_is_pinned_where_the_first_turn_went(
    pinning: tuple[RunningRouter, Collect],
) -> None:
    """Before the first turn its follow-up would go by its own route, to the local backend;
    after it, `sticky` to the cloud the math ask went to."""
    running, _ = pinning
    first, second = llama_stack_turns()
    headers = {"authorization": f"Bearer {KEYS['explained']}"}
    assert first_choice(running, second, headers) == {"backend": "local", "reason": "route"}
    sent_rows(pinning, KEYS["explained"], [first])
    assert first_choice(running, second, headers) == {"backend": "cloud", "reason": "sticky"}


def test_a_responses_input_sent_as_a_string_then_as_items_is_one_conversation(
    pinning: tuple[RunningRouter, Collect],
) -> None:
    """Over the Responses API: `input` a string, then the whole conversation resent as items
    of `input_text` and `output_text` parts (no `previous_response_id`)."""
    running, records = pinning
    client = openai.OpenAI(base_url=running.url, api_key=KEYS["responses"], max_retries=0)
    inputs: list[Any] = [
        MATH,
        [
            {"role": "user", "content": [{"type": "input_text", "text": MATH}]},
            {"role": "assistant", "content": [{"type": "output_text", "text": ANSWER}]},
            {"role": "user", "content": [{"type": "input_text", "text": FOLLOW_UP}]},
        ],
    ]
    ids = []
    for sent in inputs:
        finished = len(records.records)
        raw = client.responses.with_raw_response.create(model="auto", input=sent, store=False)
        raw.parse()
        ids.append(raw.headers["x-request-id"])
        until(lambda n=finished: len(records.records) > n, what="the record finished")
    rows = ledger_rows(running, ids)
    assert len(rows) == 2 and rows[0][1] is not None and rows[0][1] == rows[1][1]


def test_a_messages_ask_sent_as_a_string_then_as_blocks_is_one_conversation(
    pinning: tuple[RunningRouter, Collect],
) -> None:
    running, records = pinning
    client = anthropic.Anthropic(base_url=running.root, api_key=KEYS["messages"], max_retries=0)
    turns: list[Any] = [
        [{"role": "user", "content": MATH}],
        [
            {"role": "user", "content": parts(MATH)},
            {"role": "assistant", "content": parts(ANSWER)},
            {"role": "user", "content": parts(FOLLOW_UP)},
        ],
    ]
    ids = []
    for messages in turns:
        finished = len(records.records)
        raw = client.messages.with_raw_response.create(
            model="auto", max_tokens=100, system="Answer briefly.", messages=messages
        )
        raw.parse()
        ids.append(raw.headers["x-request-id"])
        until(lambda n=finished: len(records.records) > n, what="the record finished")
    rows = ledger_rows(running, ids)
    assert len(rows) == 2 and rows[0][1] is not None and rows[0][1] == rows[1][1]


def test_an_ask_with_an_image_is_keyed_by_its_text(
    pinning: tuple[RunningRouter, Collect],
) -> None:
    """The image passed over: its text a string on the next turn, the image gone from the
    history (an app that keeps images out of what it resends), one conversation."""
    image = {"type": "image_url", "image_url": {"url": PNG}}
    ask = "What is in this picture?"
    bodies = [
        {"model": "auto", "messages": [{"role": "user", "content": [*parts(ask), image]}]},
        {
            "model": "auto",
            "messages": [
                {"role": "user", "content": ask},
                {"role": "assistant", "content": "A single pixel."},
                {"role": "user", "content": FOLLOW_UP},
            ],
        },
    ]
    rows = sent_rows(pinning, KEYS["image"], bodies)
    assert rows[0][1] == rows[1][1]


def key(messages: list[Any]) -> str:
    return conversation_key({"messages": messages}, {}, "c", b"secret")


def test_each_api_keys_the_same_words_alike() -> None:
    """A chat's string, a Responses input's `input_text` part and a Messages request's text
    block, read as each API's chat view (`router.request.readable_view`): one key; a system
    prompt's too."""
    chat = {"model": "auto", "messages": [{"role": "system", "content": "S"}]}
    chat["messages"].append({"role": "user", "content": MATH})
    responses = {
        "model": "auto",
        "instructions": "S",
        "input": [{"role": "user", "content": [{"type": "input_text", "text": MATH}]}],
    }
    messages = {
        "model": "auto",
        "max_tokens": 10,
        "system": [{"type": "text", "text": "S"}],
        "messages": [{"role": "user", "content": parts(MATH)}],
    }
    views = [
        req.readable_view("chat", chat),
        req.readable_view("responses", responses),
        req.readable_view("messages", messages),
        {"messages": [{"role": "system", "content": parts("S")}, *chat["messages"][1:]]},
    ]
    assert len({conversation_key(view, {}, "c", b"secret") for view in views}) == 1


def test_content_of_no_text_is_keyed_by_its_parts() -> None:
    """An image alone keys by its parts as sent: the same image again alike, another apart;
    an image with text by the text alone, wherever the image is."""
    image = {"type": "image_url", "image_url": {"url": PNG}}
    other = copy.deepcopy(image)
    other["image_url"]["url"] = PNG.replace("iVBOR", "R0lGO")
    alone = [{"role": "user", "content": [image]}]
    assert key(alone) == key(copy.deepcopy(alone))
    assert key(alone) != key([{"role": "user", "content": [other]}])
    assert key([{"role": "user", "content": [image, *parts("Hi")]}]) == key(
        [{"role": "user", "content": "Hi"}]
    )
    assert key([{"role": "user", "content": [*parts("Hi"), other]}]) == key(
        [{"role": "user", "content": "Hi"}]
    )
