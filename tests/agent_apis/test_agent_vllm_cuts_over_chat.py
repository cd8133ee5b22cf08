"""Claude Code's turns that vLLM's chat ends short, through the official `anthropic` SDK and
the router's Messages translation: a `stop_sequences` string it matched, a tool call that
`max_tokens` cut. The simulator ignored `stop` and returned whole calls past `max_tokens`,
so neither reached the translation from a backend until it did as vLLM 0.32 does.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anthropic.types as at
import pytest

from tests.agent_apis.agent_stack import WEATHER_ASK, WEATHER_TOOLS, anthropic_client
from tests.harness import Running, RunningRouter

SAID = "Paris is sunny today, and London is grey."
HELLO: Any = [{"role": "user", "content": "Hello there"}]


@pytest.fixture
def scripted(chat_sims: dict[str, Running]) -> Iterator[None]:
    chat_sims["local"].control("replies", {"Hello there": SAID})
    yield
    chat_sims["local"].control("replies", {"Hello there": None})


def _message(proxy: RunningRouter, stream: bool, **ask: Any) -> at.Message:
    """The Messages reply from `local` (vLLM's chat), made whole by the SDK when streamed."""
    messages = anthropic_client(proxy).messages
    if not stream:
        message: at.Message = messages.create(model="local", **ask)
        return message
    with messages.stream(model="local", **ask) as s:
        return s.get_final_message()


@pytest.mark.usefixtures("scripted")
@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_a_matched_stop_sequence_is_named(chat_proxy: RunningRouter, stream: bool) -> None:
    """vLLM names the stop string it matched in `stop_reason`: Claude Code is told
    `stop_sequence` and which one, the text ending where it began."""
    message = _message(
        chat_proxy, stream, max_tokens=50, messages=HELLO, stop_sequences=["END", "London"]
    )
    assert (message.stop_reason, message.stop_sequence) == ("stop_sequence", "London")
    assert [b.text for b in message.content if b.type == "text"] == ["Paris is sunny today, and "]


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_a_tool_call_cut_by_max_tokens_is_no_tool_use(
    chat_proxy: RunningRouter, stream: bool
) -> None:
    """The call was text when `max_tokens` cut it: `max_tokens`, and no half call to run."""
    ask: Any = {"messages": WEATHER_ASK, "tools": WEATHER_TOOLS, "tool_choice": {"type": "any"}}
    message = _message(chat_proxy, stream, max_tokens=5, **ask)
    assert message.stop_reason == "max_tokens"
    assert not [b for b in message.content if b.type == "tool_use"]
    assert message.usage.output_tokens == 5
