"""The Hermes-style tools block of Qwen's chat template in a system prompt's text, as Qwen-Agent
sends it by default (`classifier.hermes`): its tools offered by name, the block not read as
the system prompt's words, and a user message of `<tool_response>` blocks read as a tool's
result, not as the ask.

Found in a live review of Qwen-Agent 0.0.34 (`tests/fixtures/qwen-agent-0.0.34.md`): "What is
1234 * 5678? Use the multiply tool." was math 0.60 (cloud) where with `use_raw_api` (its tools
in `tools`) it is tool_calling 0.90 (local); the tool's result, `<tool_response>`, was read as
the new ask.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from classifier import classify, explain, hermes, listed_tools
from classifier.message import SCAN_MESSAGES
from classifier.request import view
from tests import recorded

captured = recorded.loader(recorded.FIXTURES / "qwen-agent-0.0.34")
MULTIPLY = "What is 1234 * 5678? Use the multiply tool."
HAIKU = "Write a haiku about autumn leaves."
CODE = "Write a Python function that parses a CSV file into a list of dicts."
PROSE_RESULT = (
    "The product has been computed. It is a fairly large number, well over seven million,"
    " and the calculation finished without any trouble at all."
)


def asking(body: dict[str, Any], ask: str) -> dict[str, Any]:
    """`body` with its first user message `ask`."""
    other = copy.deepcopy(body)
    other["messages"][1]["content"] = ask
    return other


def with_result(body: dict[str, Any], result: str) -> dict[str, Any]:
    """The tool loop's second request `body` with its last user message `result`."""
    other = copy.deepcopy(body)
    other["messages"][-1]["content"] = result
    return other


def natively(body: dict[str, Any]) -> dict[str, Any]:
    """The tool loop's second request `body` as `use_raw_api` sends it: its tools in `tools`,
    the call in `tool_calls`, the result in a `tool` message."""
    raw = captured("raw-multiply.json")
    call = {"id": "1", "type": "function", "function": {"name": "multiply", "arguments": "{}"}}
    raw["messages"] = [
        body["messages"][1],
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "1", "content": "7006652"},
    ]
    return raw


def test_the_texts_are_the_ones_it_sends() -> None:
    """The recorded block and result as the reader looks for them; no `tools` sent."""
    for name in ("nous-multiply.json", "nous-multiply-result.json", "nous-chat-code.json"):
        body = captured(name)
        assert body["messages"][0]["content"].startswith(hermes.HEADING) and "tools" not in body
    system = captured("nous-weather.json")["messages"][0]["content"]
    assert system.startswith("You are a helpful assistant.\n\n" + hermes.HEADING)
    result = captured("nous-multiply-result.json")["messages"][-1]["content"]
    assert result == "<tool_response>\n7006652\n</tool_response>"


def test_its_default_mode_offers_its_listed_tools_by_name() -> None:
    """math 0.60 on the cloud before; now tool_calling 0.90 by the tool the ask names, as with
    `use_raw_api`, the block not read as the system prompt's words."""
    body = captured("nous-multiply.json")
    seen = view(body)
    assert (seen.tool_names, seen.has_tools, seen.system) == ("multiply", True, "")
    assert seen.fixed is None and not seen.tool_forced
    intent, raw = classify(body), classify(captured("raw-multiply.json"))
    assert (intent.label, intent.confidence) == (raw.label, raw.confidence) == ("tool_calling", 0.9)
    assert explain(body)["rule"] == explain(captured("raw-multiply.json"))["rule"]


def test_the_block_after_a_system_message_is_read_and_cut_from_its_words() -> None:
    seen = view(captured("nous-weather.json"))
    assert (seen.tool_names, seen.system) == ("get_weather", "You are a helpful assistant.")
    assert classify(captured("nous-weather.json")).label == "tool_calling"


def test_its_tool_response_is_a_tools_result_not_the_ask() -> None:
    """math 0.63 before, `<tool_response>` read as the ask; now the user's question is the
    latest ask, after a tool's result, read as the same loop with native tools is."""
    body = captured("nous-multiply-result.json")
    seen = view(body)
    assert (seen.latest, seen.first, seen.after_tool_result) == (MULTIPLY, "", True)
    intent, native = classify(body), classify(natively(body))
    assert (intent.label, intent.confidence) == (native.label, native.confidence)
    assert intent.label == "tool_calling"


def test_a_coding_turn_is_read_by_its_ask_not_by_a_prose_result() -> None:
    result = "<tool_response>\n" + PROSE_RESULT + "\n</tool_response>"
    body = with_result(asking(captured("nous-multiply-result.json"), CODE), result)
    assert view(body).latest == CODE and classify(body).label == "coding"


def test_several_results_in_one_turn_are_one_result() -> None:
    """Qwen-Agent and the template put a reply's results in one user turn, a line break
    apart; white space around them aside."""
    results = (
        "\n<tool_response>\n7006652\n</tool_response>\n<tool_response>\n42\n</tool_response>\n"
    )
    body = with_result(captured("nous-multiply-result.json"), results)
    assert (view(body).latest, view(body).after_tool_result) == (MULTIPLY, True)
    parts = with_result(body, [{"type": "text", "text": results}])  # one text part
    assert view(parts).latest == MULTIPLY


def test_a_tool_response_elsewhere_is_read_as_written() -> None:
    """Without the block in the system prompt, as a conversation's first user message (no
    reply before it), or with words of the user's after it: read as written."""
    body = captured("nous-multiply-result.json")
    result = body["messages"][-1]["content"]
    no_block = copy.deepcopy(body)
    no_block["messages"][0]["content"] = "You are a helpful assistant."
    assert view(no_block).latest == result
    first = {**body, "messages": [body["messages"][0], body["messages"][-1]]}
    assert view(first).latest == result
    more = result + "\nAlso, what is 2 + 2?"
    assert view(with_result(body, more)).latest == more


def test_it_offers_but_does_not_force() -> None:
    """ "You may call one or more functions": an ask naming no tool is read by its words; a
    coding turn of its multi-turn chat stays coding."""
    assert classify(asking(captured("nous-multiply.json"), HAIKU)).label == "prose"
    assert classify(captured("nous-chat-code.json")).label == "coding"


def test_a_function_alone_a_line_is_a_tool_too() -> None:
    """The template writes each tool as its client passed it: a line of the function alone
    (`{"name": ...}`) is read as a chat tool is."""
    body = captured("nous-multiply.json")
    system = body["messages"][0]["content"]
    line = json.dumps({"name": "multiply", "parameters": {"type": "object"}})
    start = system.index(hermes.HEADING) + len(hermes.HEADING)
    body["messages"][0]["content"] = system[:start] + line + system[system.index("\n</tools>") :]
    assert view(body).tool_names == "multiply"
    assert classify(body).label == "tool_calling"


LINE = '{"type": "function", "function": {"name": "multiply"}}'
REST = "\n</tools>\n\nFor each function call, ..."


def test_a_heading_quoted_before_the_block_does_not_hide_it() -> None:
    """The heading quoted mid-line earlier in the system message (`listed_tools.block_start`
    looks past it, up to `HEADINGS_TRIED` occurrences): the block after the blank line is
    still read, and cut from the system prompt's words; quoted more often than that, it is
    not looked for."""
    quoted = "Never write " + hermes.HEADING + " yourself."
    body = captured("nous-multiply.json")
    body["messages"][0]["content"] = quoted + "\n\n" + hermes.HEADING + LINE + REST
    seen = view(body)
    assert (seen.tool_names, seen.system) == ("multiply", quoted)
    assert classify(body).label == "tool_calling"
    many = " ".join([quoted] * listed_tools.HEADINGS_TRIED)
    assert hermes.tools_block(many + "\n\n" + hermes.HEADING + LINE + REST) is None


@pytest.mark.parametrize(
    "system",
    [
        "You are helpful. " + hermes.HEADING + LINE + REST,  # mid-line: quoted, not the block
        hermes.HEADING + "[" * 1500 + REST,  # a line too deep for JSON is no tool
        hermes.HEADING + LINE,  # never closed
        hermes.HEADING + REST[1:],  # no tool listed
    ],
)
def test_no_tool_is_read_out_of_anything_else(system: str) -> None:
    body = captured("nous-multiply.json")
    body["messages"][0]["content"] = system
    assert view(body).has_tools is False
    assert classify(body).label == "math"


def test_the_block_is_read_once_for_a_request(monkeypatch: pytest.MonkeyPatch) -> None:
    """A long tool loop: its tools' lines are parsed once, not again for each result
    scanned."""
    calls: list[int] = []
    inner = listed_tools.json_tools

    def counting(block: str) -> tuple[dict[str, Any], ...]:
        calls.append(len(block))
        return inner(block)

    monkeypatch.setattr(hermes, "json_tools", counting)
    body = captured("nous-multiply-result.json")
    loop = body["messages"][2:] * (SCAN_MESSAGES - 1)  # as many results as are passed over
    body["messages"] = [*body["messages"][:2], *copy.deepcopy(loop)]
    assert view(body).latest == MULTIPLY
    assert len(calls) == 1
