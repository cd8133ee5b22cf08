"""Claude Code's attribution block, sent through claude-code-router, reaches no backend and
keys no conversation (`router.translate.attribution`).

Found in a live review of Claude Code 2.1.197 through claude-code-router (`ccr`) 2.0.0: ccr
turns Claude Code's Messages request into chat itself, the attribution block
(`x-anthropic-billing-header: cc_version=2.1.197.3ea; cc_entrypoint=sdk-cli;`) the system
message's first text part. The router dropped it only when it translated Messages itself:
on chat the backend got it (21,917 prompt tokens with it, 21,893 without), and the
conversation key hashed it. Its `cc_version` ends differently for the main turns, the title
request and each subagent, at the head of the prompt, so a local vLLM could share no prefix
cache of Claude Code's long system prompt across them; with a `cch=` nonce, every request
would have been a conversation of its own. Real sockets: the official SDK sends the recorded
body (`tests/fixtures/claude-code-router-2.0.0`) through the router to the simulators, which
keep the last body they got; a real DuckDB ledger. And the shapes another gateway may give
it, table-driven.
"""

from __future__ import annotations

from typing import Any

import pytest

from router.record import Api
from router.translate.attribution import without_attribution
from tests.agent_apis.agent_stack import last_request
from tests.agent_apis.sticky_stack import conversations, ledger_rows, pinned_headers
from tests.harness import Collect, Running, RunningRouter
from tests.recorded import FIXTURES, body

KEYS = {name: f"sk-ccr-attribution-{name}-7d41" for name in ("sent", "keyed")}
RECORDED = FIXTURES / "claude-code-router-2.0.0" / "main-turn.json"
HEADER = "x-anthropic-billing-header: "
MAIN = f"{HEADER}cc_version=2.1.197.3ea; cc_entrypoint=sdk-cli;"  # the recorded block
SUBAGENT = f"{HEADER}cc_version=2.1.197.72f; cc_entrypoint=sdk-cli; cc_is_subagent=true;"
NONCE = f"{HEADER}cc_version=2.1.197.4f2; cc_entrypoint=cli; cch=00000;"  # with a nonce


def sdk_body(attribution: str | None = MAIN) -> dict[str, Any]:
    """The recorded body as the official SDK sends it (whole, ccr's OpenRouter `reasoning`
    as an extra field), its attribution block's text `attribution`; without the block when
    None (Claude Code's `CLAUDE_CODE_ATTRIBUTION_HEADER=0`)."""
    recorded = body(RECORDED)
    system = recorded["messages"][0]["content"]
    if attribution is None:
        del system[0]
    else:
        system[0]["text"] = attribution
    sent = {k: v for k, v in recorded.items() if k not in ("stream", "reasoning")}
    return {**sent, "extra_body": {"reasoning": recorded["reasoning"]}}


def test_no_backend_gets_the_attribution_block(
    pinning: tuple[RunningRouter, Collect], chat_sims: dict[str, Running]
) -> None:
    """The backend gets the system message's other parts, as sent, and the turn as sent."""
    headers = pinned_headers(pinning, KEYS["sent"], sdk_body())
    got = last_request(chat_sims[headers["x-smf-backend"]])["messages"]
    recorded = body(RECORDED)["messages"]
    assert recorded[0]["content"][0] == {"type": "text", "text": MAIN}
    assert got == [{"role": "system", "content": recorded[0]["content"][1:]}, *recorded[1:]]


def test_a_block_joined_on_the_prompt_s_line_leaves_the_prompt(
    pinning: tuple[RunningRouter, Collect], chat_sims: dict[str, Running]
) -> None:
    """A gateway that joins the system blocks into one text with " " (or an operator's prompt
    that opens with the block's words): the backend gets the prompt on the block's line,
    without the block (found in review: the whole line was left out)."""
    sent = sdk_body()
    parts = sent["messages"][0]["content"]
    joined = " ".join(p["text"] for p in parts)
    sent["messages"][0] = system(joined)
    headers = pinned_headers(pinning, KEYS["sent"], sent)
    got = last_request(chat_sims[headers["x-smf-backend"]])["messages"]
    assert joined.startswith(f"{MAIN} ")
    assert got == [system(joined.removeprefix(f"{MAIN} ")), *sent["messages"][1:]]


def test_versions_of_the_block_key_one_conversation(
    pinning: tuple[RunningRouter, Collect],
) -> None:
    """The main turn's `cc_version`, a subagent's, one with a `cch` nonce and none at all:
    one conversation in the ledger, classified alike."""
    versions = [
        MAIN,
        SUBAGENT,
        f"{HEADER}cc_version=2.1.197.3ea; cc_entrypoint=cli; cch=a1b2c;",
        None,
    ]
    keyed = conversations(pinning, KEYS["keyed"], [sdk_body(v) for v in versions])
    assert len(set(keyed)) == 1, keyed


def test_each_request_is_classified_as_without_the_block(
    pinning: tuple[RunningRouter, Collect],
) -> None:
    """The classifier reads the system prompt without the block: the same intent and
    confidence as Claude Code sends without it."""
    read = [pinned_headers(pinning, KEYS["sent"], sdk_body(v)) for v in (MAIN, None)]
    rows = ledger_rows(pinning[0], [h["x-request-id"] for h in read])
    assert rows[0][2] == rows[1][2]
    confidences = {h["x-smf-confidence"] for h in read}
    assert len(confidences) == 1, confidences


REST = "You are Claude Code, Anthropic's official CLI for Claude."
ASK = {"role": "user", "content": "Fix the bug in calc.py"}


def part(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def system(content: Any) -> dict[str, Any]:
    return {"role": "system", "content": content}


@pytest.mark.parametrize(
    ("content", "kept"),
    [
        ([part(MAIN), part(REST)], [part(REST)]),  # ccr's: a text part of its own
        (f"{MAIN}\n{REST}", REST),  # the blocks joined into one text
        ([part(f"{MAIN}\n{REST}"), part("More.")], [part(REST), part("More.")]),
        (f"{MAIN}\n\n{REST}", REST),  # joined with a blank line (1rgs/claude-code-proxy)
        (f"{MAIN} {REST}", REST),  # joined on one line: the prompt is kept
        (f"{MAIN}{REST}", REST),
        (f"{NONCE}\r\n{REST}", REST),
        ([part(f"{SUBAGENT} {REST}"), part("More.")], [part(REST), part("More.")]),
        (f"{MAIN} cc_entrypoint is the CLI.\n{REST}", f"cc_entrypoint is the CLI.\n{REST}"),
    ],
    ids=[
        "part",
        "joined",
        "joined-part",
        "blank-line",
        "one-line",
        "no-space",
        "crlf",
        "one-line-part",
        "field-like-prose",
    ],
)
def test_the_block_heading_a_chat_system_message_is_left_out(content: Any, kept: Any) -> None:
    body = {"model": "auto", "messages": [system(content), ASK]}
    assert without_attribution("chat", body) == {"model": "auto", "messages": [system(kept), ASK]}


@pytest.mark.parametrize("content", [[part(MAIN)], MAIN])
def test_a_system_message_of_the_block_alone_is_left_out(content: Any) -> None:
    body = {"model": "auto", "messages": [system(content), ASK]}
    assert without_attribution("chat", body)["messages"] == [ASK]


@pytest.mark.parametrize(
    "messages",
    [
        [system([part(REST), part(MAIN)]), ASK],  # not at the head
        [system(f"{REST}\n{MAIN}"), ASK],
        [system(f"Quoted: {MAIN}"), ASK],
        [system(f"{HEADER}cc_entrypoint=cli;\n{REST}"), ASK],  # not the block's line
        [system(f"{HEADER}cc_version= is what Claude Code sends.\n{REST}"), ASK],  # prose
        [{"role": "user", "content": MAIN}],  # a user's words
        [ASK, system(MAIN)],  # no system prompt's head
        [system(MAIN)],  # nothing else to send
    ],
    ids=["later-part", "later-line", "quoted", "other-header", "prose", "user", "later", "alone"],
)
def test_what_is_not_the_block_at_the_head_stays(messages: list[Any]) -> None:
    body = {"model": "auto", "messages": messages}
    assert without_attribution("chat", body) is body


@pytest.mark.parametrize("api", ["messages", "responses", "completions"])
def test_only_a_chat_body_is_read(api: Api) -> None:
    """A Messages body's chat view drops the block itself; a native Messages backend gets
    it as sent."""
    body = {"model": "auto", "messages": [system([part(MAIN), part(REST)]), ASK]}
    assert without_attribution(api, body) is body
