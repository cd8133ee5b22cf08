"""Tool results without their `tool_call_id` are given the ids of the calls they answer
(`router.backends.tool_result_ids`); a body with none to fill goes as it came, itself."""

from __future__ import annotations

from typing import Any

from router.backends.tool_result_ids import with_call_ids

CALLS: Any = [
    {"id": "call_a", "type": "function", "function": {"name": "f", "arguments": "{}"}},
    {"id": "call_b", "type": "function", "function": {"name": "g", "arguments": "{}"}},
]
ASKED: Any = [
    {"role": "user", "content": "Use both tools."},
    {"role": "assistant", "content": None, "tool_calls": CALLS},
]


def test_results_after_calls_are_given_their_ids_in_order() -> None:
    body = {"model": "m", "messages": [*ASKED, {"role": "tool", "content": "1"}]}
    body["messages"].append({"role": "tool", "content": "2", "tool_call_id": None})
    filled = with_call_ids(body)
    assert [m.get("tool_call_id") for m in filled["messages"][2:]] == ["call_a", "call_b"]
    assert body["messages"][2] == {"role": "tool", "content": "1"}  # the client's untouched


def test_a_body_with_no_result_to_fill_is_returned_itself() -> None:
    with_ids = [
        {"role": "tool", "content": "1", "tool_call_id": "call_a"},
        {"role": "tool", "content": "2", "tool_call_id": "call_b"},
    ]
    for messages in ([{"role": "user", "content": "Hi"}], [*ASKED, *with_ids], "not a list"):
        body = {"model": "m", "messages": messages}
        assert with_call_ids(body) is body


def test_results_that_do_not_pair_one_for_one_go_as_sent() -> None:
    one_short = {"model": "m", "messages": [*ASKED, {"role": "tool", "content": "1"}]}
    assert with_call_ids(one_short) is one_short
    orphan = {"model": "m", "messages": [{"role": "tool", "content": "1"}]}
    assert with_call_ids(orphan) is orphan
