"""A custom tool call's input from the arguments of the one-string function a chat backend
was shown (`router.translate.custom_input`), as small models write them.

Found in review: arguments with an escape JSON has none of (a Python-style `\\'`: `{"input":
"don\\'t"}`) were read as if cut there, and a whole call gave `don`, `completed`, for a
freeform tool that may run it (a shell, SQL); a raw newline in the string (weaker models
put real ones in patches) gave the arguments with their `{"input": "` wrapping.
"""

from __future__ import annotations

import itertools

import orjson
import pytest

from router.translate import responses_reply
from router.translate.custom_input import custom_input
from tests.agent_apis.chat_chunks import call, chunk, payloads

LOOSE = [  # whole arguments that are no JSON, and the input they give, nothing lost
    ('{"input": "echo don\\\'t"}', "echo don't"),  # Python's escaped quote
    ('{"input": "a\\x41b"}', "a\\x41b"),  # escapes JSON has none of keep their characters
    ('{"input": "grep \'\\d+\' \\\\d"}', "grep '\\d+' \\d"),
    ('{"input": "a\\ud83dx\\udc00b"}', "a\\ud83dx\\udc00b"),  # lone surrogates, as text
    ('{"input": "a\\u12zz"}', "a\\u12zz"),
    ('{"input": "*** Begin Patch\n*** End Patch"}', "*** Begin Patch\n*** End Patch"),
    ('{"input": "a\tb\\n\\u00e9\\ud83d\\ude00"}', "a\tb\n\u00e9\U0001f600"),
]


@pytest.mark.parametrize(("arguments", "given"), LOOSE)
def test_a_whole_call_with_loose_json_gives_all_its_input(arguments: str, given: str) -> None:
    """Whole or cut (the limit, a failure) after its last character, the same input: what
    the model meant, or its characters as they came; sendable (no lone surrogate)."""
    assert custom_input(arguments) == given
    assert custom_input(arguments, cut=True) == given
    assert orjson.loads(orjson.dumps(given)) == given


@pytest.mark.parametrize(
    ("arguments", "given"),
    [
        ('{"input": "echo don\\\'t', "echo don't"),
        ('{"input": "echo don\\\'t\\', "echo don't"),  # an escape cut
        ('{"input": "a\\x41\\ud83d', "a\\x41"),  # a surrogate pair cut in two
        ('{"input": "*** Begin Patch\n*** Upd', "*** Begin Patch\n*** Upd"),
    ],
)
def test_a_cut_call_with_loose_json_gives_its_input_so_far(arguments: str, given: str) -> None:
    assert custom_input(arguments, cut=True) == given


def test_every_cut_of_loose_arguments_gives_a_start_of_the_whole_input() -> None:
    """Cut after each character, the input so far never shrinks and never differs from the
    whole call's: a cut shows only text the whole call has."""
    arguments = '{"input": "x\\\'\\x41\n\\ud83d\\ude00\\ud83d\\u0041\\\\d\\"q\\u00e9"}'
    whole = custom_input(arguments)
    assert whole == "x'\\x41\n\U0001f600\\ud83dA\\d\"q\u00e9"
    so_far = [custom_input(arguments[:end], cut=True) for end in range(len(arguments) + 1)]
    assert all(whole.startswith(given) for given in so_far)
    assert all(len(a) <= len(b) for a, b in itertools.pairwise(so_far))
    assert so_far[-1] == whole


@pytest.mark.parametrize(
    "arguments",
    ['{"input": "abc', '{"input": "abc"}garbage', '{"input": 5', "*** Begin Patch", "NaN"],
)
def test_whole_arguments_that_are_still_no_json_are_the_input_as_they_came(
    arguments: str,
) -> None:
    """A call that ended with its JSON cut, or none: nothing is read out of them."""
    assert custom_input(arguments) == arguments


def test_a_key_before_input_is_read_only_whole() -> None:
    """The limit the module's docstring names: a cut call's `input` is read only first."""
    arguments = '{"path": "a.py", "input": "don\\\'t"}'
    assert custom_input(arguments) == "don't"
    assert custom_input(arguments[:-2], cut=True) == arguments[:-2]


def test_a_stream_gives_loose_input_whole_and_held() -> None:
    """Through the stream translator: the whole call's item, and the input a failure shows
    of a call still open (`held_input`)."""
    stream = responses_reply.ResponsesStream({"model": "auto"}, frozenset({"apply_patch"}))
    stream.feed(chunk({"role": "assistant", "content": ""}))
    stream.feed(call(0, '{"input": "echo don\\', "apply_patch"))
    stream.feed(call(0, "'t\nls"))
    assert stream.held_input == {0: "echo don't\nls"}
    events = stream.feed(call(0, '"}')) + stream.feed(chunk({}, "tool_calls")) + stream.end()
    done = [p["item"] for n, p in payloads(events) if n == "response.output_item.done"]
    assert [(item["input"], item["status"]) for item in done] == [("echo don't\nls", "completed")]
