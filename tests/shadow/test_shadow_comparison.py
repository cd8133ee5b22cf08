"""Each comparator on crafted answer pairs that agree and that disagree."""

from __future__ import annotations

import functools
import json
from typing import Any

import pytest

from evals.sandbox import Limits, run_python
from router.comparison import (
    Reply,
    compare,
    final_answer,
    judge_request,
    judge_verdict,
    request_tests,
)


def _chat(text: str) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}]}


def _call(name: str, args: Any) -> dict[str, Any]:
    raw = args if isinstance(args, str) else json.dumps(args)
    return {"id": "x", "type": "function", "function": {"name": name, "arguments": raw}}


def _wrapped(name: str, args: Any) -> dict[str, Any]:
    """A call whose arguments the translation wrapped, as `Tally.answer_tool_calls` marks it."""
    return {**_call(name, args), "wrapped": True}


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("so \\boxed{42}", "42"),
        ("\\boxed{\\frac{1}{2}}", "0.5"),
        ("The answer is 1,234.", "1234"),
        ("first 3 then 7.50", "7.5"),
        ("Final answer: \\boxed{x+1}", "x+1"),
        ("no numbers at all", None),
    ],
)
def test_final_answer_extraction(text: str, want: str | None) -> None:
    assert final_answer(text) == want


@pytest.mark.parametrize(
    ("live", "shadow", "agreed"),
    [
        ("The total is \\boxed{5555}.", "So we get 5555", True),
        ("\\boxed{0.5}", "The answer is 1/2", True),
        ("\\boxed{5555}", "\\boxed{5556}", False),
        ("\\boxed{12}", "I am not sure.", False),
        ("hmm", "no idea", None),
    ],
)
def test_math_final_answers(live: str, shadow: str, agreed: bool | None) -> None:
    result = compare("math", _chat("Compute 1234+4321"), Reply(live), Reply(shadow))
    assert result.agreed is agreed and result.method == "final_answer"


def test_large_numbers_that_differ_disagree() -> None:
    """Six significant digits made 1234567 and 1234568 the same answer (found in review)."""
    for a, b in (("1234567", "1234568"), ("1000001", "1000002")):
        result = compare("math", _chat("?"), Reply(f"The answer is {a}"), Reply(f"\\boxed{{{b}}}"))
        assert result.agreed is False
    for a, b in (("2.50", "2.5"), ("0.5", "1/2"), ("-0.125", "-1/8")):
        same = compare("math", _chat("?"), Reply(f"The answer is {a}"), Reply(f"\\boxed{{{b}}}"))
        assert same.agreed is True, (a, b)
    long = compare("math", _chat("?"), Reply("1234567890123"), Reply("1234567890124"))
    assert long.agreed is False


def test_reasoning_needs_an_explicit_answer_not_a_stray_count() -> None:
    live = Reply("Of all 3 suspects only one lies, so the liar must be Alice.")
    shadow = Reply("Of all 3 suspects only one lies, so the liar must be Bob.")
    assert compare("reasoning", _chat("Who lies?"), live, shadow).agreed is None
    boxed = compare("reasoning", _chat("?"), Reply("\\boxed{Alice}"), Reply("\\boxed{Bob}"))
    assert boxed.agreed is False


GOOD = "```python\ndef add(a, b):\n    return a + b\n```"
SAME_DEFS = "Sure:\n```python\ndef add(x, y):\n    return x + y\n```"
WRONG = "```python\ndef add(a, b):\n    return a - b\n```"
BROKEN = "```python\ndef add(a, b:\n    return a\n```"
OTHER = "```python\ndef plus(a, b):\n    return a + b\n```"
SNIPPET = "```python\nprint(sorted([3, 1, 2]))\n```"
OTHER_SNIPPET = "```python\nimport os\nprint(os.getcwd())\n```"


@pytest.mark.parametrize(
    ("live", "shadow", "agreed", "method"),
    [
        (GOOD, SAME_DEFS, True, "code_defs"),
        (GOOD, OTHER, False, "code_defs"),
        (GOOD, BROKEN, False, "code_parse"),
        # nothing defined on either side: names cannot tell them apart, so no verdict (two
        # unrelated snippets, or one-word replies, which parse too, agreed: found in review)
        (SNIPPET, OTHER_SNIPPET, None, "code_defs"),
        ("Sorry", "Done", None, "code_defs"),
        (GOOD, "Done", False, "code_defs"),
        (SNIPPET, GOOD, False, "code_defs"),
    ],
)
def test_code_structure(live: str, shadow: str, agreed: bool | None, method: str) -> None:
    result = compare("coding", _chat("Write add(a, b)"), Reply(live), Reply(shadow))
    assert (result.agreed, result.method) == (agreed, method)


def test_code_that_defines_nothing_is_decided_only_by_the_requests_tests() -> None:
    plain = compare("coding", _chat("Sort x"), Reply(SNIPPET), Reply(OTHER_SNIPPET))
    assert plain.detail == "both parse, no top-level defs to compare"
    body = _chat("Sort it.\n```python\nassert sorted([2, 1]) == [1, 2]\n```")
    not_run = compare("coding", body, Reply(SNIPPET), Reply(OTHER_SNIPPET))
    assert (not_run.agreed, not_run.method) == (None, "code_defs")
    assert not_run.detail.endswith("the request's tests not run")
    ran = compare("coding", body, Reply(SNIPPET), Reply(OTHER_SNIPPET), run_python)
    assert (ran.agreed, ran.method) == (True, "code_tests")


INSTALL_FIRST = (
    "Install it first:\n```bash\npip install requests\n```\nThen:\n"
    "```python\nimport requests\n\ndef get(url):\n    return requests.get(url).text\n```"
)
PLAIN_GET = "```python\nimport requests\n\ndef get(url):\n    return requests.get(url).text\n```"
WITH_USAGE = f"Here:\n\n{GOOD}\n\nUsage:\n```python\n>>> add(1, 2)\n3\n```"
UNTAGGED = "```\ndef add(a, b):\n    return a + b\n```"


@pytest.mark.parametrize(
    ("live", "shadow", "agreed", "method"),
    [
        (INSTALL_FIRST, PLAIN_GET, True, "code_defs"),
        (PLAIN_GET, INSTALL_FIRST, True, "code_defs"),
        (WITH_USAGE, GOOD, True, "code_defs"),
        (UNTAGGED, GOOD, True, "code_defs"),
        (INSTALL_FIRST, GOOD, False, "code_defs"),
        ("```bash\npip install -r requirements.txt\n```", GOOD, False, "code_parse"),
    ],
)
def test_the_python_block_is_compared_not_the_first_block(
    live: str, shadow: str, agreed: bool, method: str
) -> None:
    """An answer that opened with a ```bash pip install``` block "did not parse" (found in
    review): the first python, py or untagged block that parses is the code."""
    result = compare("coding", _chat("Write get(url)"), Reply(live), Reply(shadow))
    assert (result.agreed, result.method) == (agreed, method)


def test_code_runs_the_requests_own_tests_in_the_sandbox() -> None:
    body = _chat("Write add(a, b).\n```python\nassert add(2, 3) == 5\n```")
    assert request_tests(body) is not None
    same = compare("coding", body, Reply(GOOD), Reply(SAME_DEFS), run_python)
    assert (same.agreed, same.method) == (True, "code_tests")
    differ = compare("coding", body, Reply(GOOD), Reply(WRONG), run_python)
    assert (differ.agreed, differ.method) == (False, "code_tests")


def test_a_sandbox_that_cannot_start_still_gives_a_verdict() -> None:
    """SandboxUnavailable escaped the comparison: the shadow wrote no row and logged the
    exception, whose text can carry the client's code's stderr (found in review)."""
    body = _chat("Write add(a, b).\n```python\nassert add(2, 3) == 5\n```")
    no_room = functools.partial(run_python, limits=Limits(memory_bytes=1 << 20))
    result = compare("coding", body, Reply(GOOD), Reply(SAME_DEFS), no_room)
    assert (result.agreed, result.method) == (None, "code_tests")
    assert "sandbox unavailable" in result.detail


def test_tests_not_run_are_not_reported_as_passed() -> None:
    """Without an executor (the shadow's default), the verdict is the structural one and its
    detail says the request's tests did not run."""
    body = _chat("Write add(a, b).\n```python\nassert add(2, 3) == 5\n```")
    result = compare("coding", body, Reply(GOOD), Reply(WRONG))
    assert (result.agreed, result.method) == (True, "code_defs")
    assert result.detail.endswith("the request's tests not run")


@pytest.mark.parametrize(
    ("live", "shadow", "agreed"),
    [
        (
            [_call("get_weather", {"city": "Paris", "unit": "c"})],
            [_call("get_weather", '{"unit": "c", "city": "Paris"}')],
            True,
        ),
        (
            [_call("get_weather", {"city": "Paris"})],
            [_call("get_weather", {"city": "Rome"})],
            False,
        ),
        ([_call("get_weather", {"city": "Paris"})], [_call("search", {"q": "Paris"})], False),
        ([_call("get_weather", {"city": "Paris"})], [], False),
        # types count: Python's == made 1 and true, 0 and false the same argument
        ([_call("f", {"n": 1})], [_call("f", {"n": True})], False),
        ([_call("f", {"n": 0})], [_call("f", {"n": False})], False),
        ([_call("f", {"n": [1, {"on": True}]})], [_call("f", {"n": [1, {"on": 1}]})], False),
        ([_call("f", {"n": "1"})], [_call("f", {"n": 1})], False),
        ([_call("f", {"n": 1})], [_call("f", '{"n": 1.0}')], True),  # one JSON number
        # parallel calls in either order are the same calls
        (
            [_call("get_weather", {"city": "Paris"}), _call("get_time", {})],
            [_call("get_time", ""), _call("get_weather", {"city": "Paris"})],
            True,
        ),
        (
            [_call("get_weather", {"city": "Paris"}), _call("get_weather", {"city": "Rome"})],
            [_call("get_weather", {"city": "Rome"}), _call("get_weather", {"city": "Paris"})],
            True,
        ),
        (
            [_call("get_weather", {"city": "Paris"}), _call("get_weather", {"city": "Paris"})],
            [_call("get_weather", {"city": "Paris"}), _call("get_weather", {"city": "Rome"})],
            False,
        ),
        (
            [_call("get_weather", {"city": "Paris"}), _call("get_time", {})],
            [_call("get_weather", {"city": "Paris"})],
            False,
        ),
        # a Messages reply over chat wraps arguments that are no object (a tool_use input
        # must be one), and the relay's tally marks the call so; the shadow, asked in chat,
        # has them as they came
        (
            [_wrapped("f", {"_raw_arguments": '{"city": Paris}'})],
            [_call("f", '{"city": Paris}')],
            True,
        ),
        (
            [_wrapped("f", {"_raw_arguments": '{"city": Paris}'})],
            [_call("f", '{"city": Rome}')],
            False,
        ),
        ([_wrapped("f", {"value": [1, 2]})], [_call("f", "[1, 2]")], True),
        ([_wrapped("f", {"value": "x"})], [_call("f", '"x"')], True),
        ([_wrapped("f", {"value": "x"})], [_call("f", '"y"')], False),
        # a tool whose one argument is `value`, called right, against a shadow's invalid
        # bare value: they agreed, both read as `5` (found in review)
        ([_call("set_volume", {"value": 5})], [_call("set_volume", "5")], False),
        ([_call("set_volume", {"value": 5})], [_call("set_volume", {"value": 5})], True),
    ],
)
def test_tool_calls(live: list[Any], shadow: list[Any], agreed: bool) -> None:
    result = compare("tool_calling", _chat("weather?"), Reply("", live), Reply("", shadow))
    assert (result.agreed, result.method) == (agreed, "tool_call")


def test_prose_structure_keywords_and_length() -> None:
    body = _chat("Write two paragraphs about 'latency' for the team.")
    a = "Latency matters for agents.\n\nWe measure it per route."
    b = "We care about latency a lot.\n\nIt is measured per request."
    assert compare("writing", body, Reply(a), Reply(b)).agreed is True
    no_keyword = "Speed matters for agents.\n\nWe measure it per route."
    assert compare("writing", body, Reply(a), Reply(no_keyword)).agreed is False
    long = "\n\n".join([a] * 4)
    result = compare("prose", body, Reply(a), Reply(long))
    assert result.agreed is False and "length ratio" in result.detail


def test_details_never_carry_answer_text() -> None:
    result = compare("math", _chat("q"), Reply("\\boxed{31337}"), Reply("\\boxed{4242}"))
    assert "31337" not in result.detail and "4242" not in result.detail


def test_judge_request_is_blind_and_ordered() -> None:
    live, shadow = Reply("LIVE-ANSWER"), Reply("SHADOW-ANSWER")
    first = judge_request(_chat("q"), live, shadow, live_first=True)["messages"][0]["content"]
    second = judge_request(_chat("q"), live, shadow, live_first=False)["messages"][0]["content"]
    assert first.index("LIVE-ANSWER") < first.index("SHADOW-ANSWER")
    assert second.index("SHADOW-ANSWER") < second.index("LIVE-ANSWER")
    for word in ("live", "shadow", "local", "cloud"):
        assert word not in first.lower().replace("live-answer", "").replace("shadow-answer", "")


@pytest.mark.parametrize(
    ("winner", "live_first", "want"),
    [("A", True, "live"), ("A", False, "shadow"), ("B", True, "shadow"), ("tie", False, "tie")],
)
def test_judge_verdict_maps_labels_back(winner: str, live_first: bool, want: str) -> None:
    payload = {"choices": [{"message": {"tool_calls": [_call("verdict", {"winner": winner})]}}]}
    assert judge_verdict(payload, live_first) == want
    assert judge_verdict({"choices": []}, live_first) is None


MAGISTRAL = [  # Mistral's reasoning models answer a list of parts, thinking first
    {"type": "thinking", "thinking": [{"type": "text", "text": "A looks wrong, but "}]},
    {"type": "text", "text": "tie"},
]


def test_an_answer_in_parts_is_read_as_its_text_parts() -> None:
    """A Magistral shadow or judge answer was read as the list's repr: the shadow compared
    with its thinking and escaped newlines, the judge's verdict taken from its thinking
    ("A looks wrong") (found in review)."""
    from router.shadow_reply import parse_reply

    whole = {"choices": [{"message": {"role": "assistant", "content": MAGISTRAL}}]}
    reply = parse_reply(json.dumps(whole).encode()).reply
    assert reply.text == "tie"
    assert judge_verdict(whole, live_first=True) == "tie"


def test_a_request_in_content_parts_is_read_for_its_tests_and_quoted_words() -> None:
    """A user message of text parts (how Messages clients' turns reach the shadow in chat)
    was skipped: its tests were not run and its quoted words not checked."""
    from router.comparison import requested_keywords

    asks = "Write add(a, b). ```python\nassert add(1, 2) == 3\n``` Mention 'overflow'."
    body = {"messages": [{"role": "user", "content": [{"type": "text", "text": asks}]}]}
    assert request_tests(body) == request_tests(_chat(asks)) is not None
    assert requested_keywords(body) == ["overflow"]
    parts = [{"type": "text", "text": t} for t in ("Keep the 'draft", "Now say it' twice")]
    assert requested_keywords({"messages": [{"role": "user", "content": parts}]}) == []
    contracted = "Explain why the user's cache doesn't warm up, and include 'latency'."
    assert requested_keywords(_chat(contracted)) == ["latency"]  # no "s cache doesn"
    assert requested_keywords(_chat("Trends of the '90s and '00s, with 'nostalgia'.")) == [
        "nostalgia"
    ]
    assert requested_keywords(_chat('Use the phrase "don\'t panic" twice.')) == ["don't panic"]
    assert requested_keywords(_chat("Set it to 5' 10'' tall.")) == []
    assert requested_keywords(_chat("I am 5' 10\" and he is 6' 2\" tall.")) == []
    assert requested_keywords(_chat("Say 'don't panic' please")) == ["don't panic"]
