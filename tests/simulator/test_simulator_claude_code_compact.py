"""Claude Code's compaction request gets its summary in the blocks it asks for.

Live review of demo mode (Claude Code 2.1.337): every `/compact` sent two compaction
requests. The prompt ("CRITICAL: Respond with TEXT ONLY. Do NOT call any tools.") asks for
"an <analysis> block followed by a <summary> block"; the simulator answered in text, but a
code snippet (the prompt's words read as coding), no `<summary>` in it, and Claude Code asked
again with a paragraph appended ("For this reply only: write what the instructions above ask
for, with the summary inside <summary></summary> tags. … The user did not write it."). Both
recorded requests (`tests/fixtures/claude-code-2.1.337.md`), as the router hands them to a
chat backend (`to_chat`), against a running simulator through the openai SDK; and as the
classifier reads them: no reader tells Claude Code's compaction prompt by its ending, and
the retry is read as the first is."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from classifier import classify
from router.simulator import SimThread
from router.translate.anthropic_request import to_chat
from router.translate.view import chat_view
from tests.recorded import FIXTURES, loader
from tests.simulator.calls import client

recorded = loader(FIXTURES / "claude-code-2.1.337")
REQUESTS = ("compact.json", "compact-retry.json")
# an <analysis> block, then a <summary> block, each holding words, nothing around them
BLOCKS = re.compile(r"<analysis>\n\S.*\n</analysis>\n\n<summary>\n\S.*\n</summary>", re.S)
RETRY = "For this reply only: write what the instructions above ask for"


def compaction_prompt(body: dict[str, Any]) -> str:
    text: str = body["messages"][-1]["content"][-1]["text"]
    assert text.startswith("CRITICAL: Respond with TEXT ONLY. Do NOT call any tools.")
    return text


@pytest.mark.parametrize("name", REQUESTS)
def test_the_compaction_request_is_answered_in_its_blocks(
    start_sim: Callable[..., SimThread], name: str
) -> None:
    """The answer is an `<analysis>` block and a `<summary>` block, no tool call (was a
    fenced Python function, and Claude Code asked again)."""
    body = recorded(name)
    assert (RETRY in compaction_prompt(body)) == (name == "compact-retry.json")
    fields = to_chat(body) | {"model": "tiny", "stream": False}
    fields.pop("stream_options", None)
    message = client(start_sim()).chat.completions.create(**fields).choices[0].message
    assert not message.tool_calls
    assert message.content is not None and BLOCKS.fullmatch(message.content)


def test_an_ask_naming_the_blocks_without_forbidding_tools_is_answered_as_before(
    start_sim: Callable[..., SimThread],
) -> None:
    """A user's ask that names a `<summary>` block but leaves tools allowed is no compaction
    request: answered as any other ask (here: prose, no blocks)."""
    ask = "Explain what a <summary> block is in HTML."
    reply = client(start_sim()).chat.completions.create(
        model="tiny", messages=[{"role": "user", "content": ask}]
    )
    assert "</summary>" not in (reply.choices[0].message.content or "")


def test_the_retry_is_classified_as_the_first_request() -> None:
    """The retry's appended paragraph changes nothing of how the router reads the request."""
    first, retry = (classify(chat_view("messages", recorded(name))) for name in REQUESTS)
    assert (retry.label, retry.source, retry.side_request) == (
        first.label,
        first.source,
        first.side_request,
    )
