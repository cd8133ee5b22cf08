"""Claude Code's auto-mode security monitor gets a verdict it reads, allowing the action.

Live review of Claude Code 2.1.332 in demo mode: its two monitor requests per checked
action (system prompt "You are a security monitor for autonomous AI coding agents.";
stage 1 stopped at `</block>`, stage 2 asked to reason in `<thinking>` first) got
`{"meta": {}}` from the simulator, an object of the shape of the harness lines the prompt
describes. Claude Code found no verdict, asked each stage five times, then blocked the
action. Recorded bodies (`tests/fixtures/claude-code-2.1.332.md`), replayed as the router
hands them a chat backend and on the simulator's own Messages endpoint; each answer is
read by Claude Code's own rule (`verdict`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import anthropic
import pytest

from router.simulator import SimThread
from router.translate.anthropic_request import to_chat
from tests.recorded import FIXTURES, loader
from tests.simulator.calls import client

loaded = loader(FIXTURES / "claude-code-2.1.332")
STAGE_1, STAGE_2 = "security-monitor-1.json", "security-monitor-2.json"


def recorded(name: str) -> dict[str, Any]:
    """The recorded body `name`, for the simulator's model (Claude Code asked "auto")."""
    return loaded(name) | {"model": "tiny"}


_THINKING = re.compile(r"<thinking>[\s\S]*?</thinking>")
_OPEN_THINKING = re.compile(r"<thinking>[\s\S]*$")
_VERDICT = re.compile(r"<block>(yes|no)\b(</block>)?", re.I)


def verdict(text: str) -> bool | None:
    """Whether Claude Code 2.1.332 blocks the action by `text` (None: no verdict read, the
    request is asked again): one `<block>yes` or `<block>no` past any `<thinking>` block,
    the closing tag optional (its bundled parser's rule)."""
    if len({m.group(1).lower() for m in _VERDICT.finditer(text)}) > 1:
        return None
    said = {
        m.group(1).lower()
        for m in _VERDICT.finditer(_OPEN_THINKING.sub("", _THINKING.sub("", text)))
    }
    return None if len(said) != 1 else said == {"yes"}


def chat_answer(sim: SimThread, body: dict[str, Any]) -> Any:
    """`sim`'s chat choice for the recorded Messages `body` as the router hands it a chat
    backend (`stop` from `stop_sequences`)."""
    fields = to_chat(body) | {"model": "tiny", "stream": False}
    return client(sim).chat.completions.create(**fields).choices[0]


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_stage_one_on_a_chat_backend_answers_block_no_cut_at_its_stop(
    start_sim: Callable[..., SimThread], profile: str
) -> None:
    """Stage 1 asks an answer that begins with `<block>` and stops at `</block>`: the text
    is `<block>no`, the stop string not in it, as a server cuts it (was `{"meta": {}}`)."""
    sim = start_sim(profile=profile, max_model_len=16384)
    body = recorded(STAGE_1)
    assert to_chat(body)["stop"] == ["</block>"]
    choice = chat_answer(sim, body)
    assert (choice.message.content, choice.finish_reason) == ("<block>no", "stop")
    assert verdict(choice.message.content) is False


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_stage_two_reasons_then_allows(start_sim: Callable[..., SimThread], profile: str) -> None:
    """Stage 2 asks for `<thinking>` before the `<block>`, with no stop string: both, the
    verdict closed."""
    sim = start_sim(profile=profile, max_model_len=16384)
    text = chat_answer(sim, recorded(STAGE_2)).message.content
    assert text.startswith("<thinking>") and text.endswith("</thinking>\n<block>no</block>")
    assert verdict(text) is False


def test_on_messages_the_stop_sequence_ends_stage_one_as_anthropic_says(
    start_sim: Callable[..., SimThread],
) -> None:
    """The anthropic profile honours `stop_sequences`: the text ends before `</block>`, and
    the reply names it (`stop_reason` "stop_sequence"), streamed or not."""
    sim = start_sim(profile="anthropic")
    sdk = anthropic.Anthropic(base_url=sim.url, api_key="x", max_retries=0)
    body = recorded(STAGE_1)
    reply = sdk.messages.create(**body)
    (block,) = reply.content
    assert block.type == "text" and block.text == "<block>no"
    assert (reply.stop_reason, reply.stop_sequence) == ("stop_sequence", "</block>")
    with sdk.messages.stream(**body) as stream:
        streamed = stream.get_final_message()
    assert [b.text for b in streamed.content if b.type == "text"] == ["<block>no"]
    assert (streamed.stop_reason, streamed.stop_sequence) == ("stop_sequence", "</block>")


def test_vllms_messages_cut_at_the_stop_sequence_and_say_end_turn(
    start_sim: Callable[..., SimThread],
) -> None:
    """vLLM's Messages pass `stop_sequences` to its chat as `stop` and map its "stop" alone:
    the text is cut, `stop_reason` "end_turn", no `stop_sequence` named."""
    sim = start_sim(max_model_len=16384)
    sdk = anthropic.Anthropic(base_url=sim.url, api_key="x", max_retries=0)
    reply = sdk.messages.create(**recorded(STAGE_1))
    assert [b.text for b in reply.content if b.type == "text"] == ["<block>no"]
    assert reply.stop_reason == "end_turn" and reply.stop_sequence is None


def test_stage_two_on_messages_allows(start_sim: Callable[..., SimThread]) -> None:
    """Stage 2 on the simulator's own Messages endpoint: reasoned, then allowed."""
    sim = start_sim(profile="anthropic")
    sdk = anthropic.Anthropic(base_url=sim.url, api_key="x", max_retries=0)
    reply = sdk.messages.create(**recorded(STAGE_2))
    (block,) = reply.content
    assert block.type == "text" and verdict(block.text) is False
    assert reply.stop_reason == "end_turn"


def test_another_prompt_quoting_the_monitors_line_is_no_monitor(
    start_sim: Callable[..., SimThread],
) -> None:
    """The monitor is its system prompt's opening: the same line in a user's message asks
    no verdict."""
    sim = start_sim(profile="cloud")
    ask = "What does 'You are a security monitor for autonomous AI coding agents.' mean?"
    reply = client(sim).chat.completions.create(
        model="tiny", messages=[{"role": "user", "content": ask}]
    )
    assert "<block>" not in (reply.choices[0].message.content or "")


BILLING = "x-anthropic-billing-header: cc_version=2.1.332.a1b; cc_entrypoint=cli; cch=00000;"


def test_a_billing_line_before_the_monitors_prompt_still_gets_the_verdict(
    start_sim: Callable[..., SimThread],
) -> None:
    """Claude Code opens its system prompt with its attribution block unless
    `CLAUDE_CODE_ATTRIBUTION_HEADER` is 0: the anthropic profile's Messages keep it (vLLM's
    drop it), and a gateway that joins the blocks sends it on chat as the system text's first
    line. The monitor is read past it, on both."""
    body = recorded(STAGE_1)
    billed = body | {"system": [{"type": "text", "text": BILLING}, *body["system"]]}
    sim = start_sim(profile="anthropic")
    sdk = anthropic.Anthropic(base_url=sim.url, api_key="x", max_retries=0)
    reply = sdk.messages.create(**billed)
    assert [b.text for b in reply.content if b.type == "text"] == ["<block>no"]
    fields = to_chat(body) | {"model": "tiny", "stream": False}
    system = fields["messages"][0]
    assert system["role"] == "system" and isinstance(system["content"], str)
    joined = {**system, "content": f"{BILLING}\n{system['content']}"}
    fields["messages"] = [joined, *fields["messages"][1:]]
    choice = client(start_sim(profile="cloud")).chat.completions.create(**fields).choices[0]
    assert choice.message.content == "<block>no"
