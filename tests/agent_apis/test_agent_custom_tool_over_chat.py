"""Codex's `apply_patch` (a custom tool) answered by a chat backend, through the official
`openai` SDK, and what the ledger records of a translated stream that ends early.

A custom call's input comes back as JSON to unwrap, so it is held until the call is whole
(`router.translate.responses_reply`). Found in review: a custom call that was the first
output sent no event until it was whole, so the stream did not commit (the client got not
even the response head; a failure meanwhile was an HTTP error, not the stream's); one cut
midway was recorded at ~0 output tokens, and so was a whole one without the upstream's
usage. And a translated stream cut after the upstream's usage came, before [DONE], was
recorded at the router's estimate, where the chat API records the upstream's counts.
"""

from __future__ import annotations

import contextlib
import json
import uuid
from pathlib import Path
from typing import Any

import anthropic
import pytest

from router.request_size import estimate_tokens
from router.simulator.generation import argument_pieces
from tests.agent_apis.agent_stack import anthropic_client, openai_client
from tests.agent_apis.over_chat import alone, fault, ledger_row
from tests.harness import Running, RunningRouter

TOOLS: Any = [{"type": "custom", "name": "apply_patch", "description": "Apply a patch"}]
# the simulator's forced call takes the user's words for its input: one long word, 4,000
# characters in one argument piece
LONG = "Write " + "x" * 4_000
ASK: Any = {"input": LONG, "tools": TOOLS, "tool_choice": {"type": "custom", "name": "apply_patch"}}


def generated(frames: int) -> int:
    """Characters of the call's JSON arguments in the simulator's first `frames` argument
    frames, each one chat chunk (`argument_pieces`), and of its name, which the output item
    carried."""
    pieces = argument_pieces(json.dumps({"input": LONG}))[:frames]
    return len("apply_patch") + sum(map(len, pieces))


@pytest.mark.parametrize(
    ("name", "frames"),
    [("error_event:4", 3), ("cut_stream", 1), ("stall:5", 1)],  # after the opening chunk
)
def test_a_custom_call_commits_at_its_first_piece_and_a_failure_shows_what_it_held(
    servers: dict[str, Running], tmp_path: Path, name: str, frames: int
) -> None:
    """The `response.failed` shows the cut call with the input that came, unwrapped from its
    JSON as far as it goes, as a cut function call shows its arguments: it showed the call
    with an empty input, the router holding what came (found in review)."""
    request_id = uuid.uuid4().hex
    with alone(servers, tmp_path, 1.5) as running, fault(servers["cloud"], name):
        with openai_client(running).responses.stream(
            model="cloud", extra_headers={"x-request-id": request_id}, **ASK
        ) as stream:
            events = list(stream)
        row = ledger_row(tmp_path / "ledger", request_id)
    assert [event.type for event in events][2:] == [
        "response.output_item.added",
        "response.custom_tool_call_input.delta",  # empty: the call grows
        "response.failed",
    ]
    assert row == ("upstream_error", row[1], estimate_tokens(generated(frames)), True)
    assert frames == 1 or generated(frames) > 4_000  # the long word was held too
    [call] = events[-1].response.output  # type: ignore[union-attr]
    assert (call.type, call.status) == ("custom_tool_call", "incomplete")  # type: ignore[union-attr]
    assert call.input == ("" if frames == 1 else LONG)  # type: ignore[union-attr]  # `{"input` cut


@pytest.mark.parametrize(
    ("tokens", "given"),
    [(8, "Fix "), (11, 'Fix "the'), (13, 'Fix "the" bug')],  # mid-escape, mid-string
)
def test_a_custom_call_cut_midway_shows_its_input_so_far(
    servers: dict[str, Running], tmp_path: Path, tokens: int, given: str
) -> None:
    """vLLM's engine drops the request (`abort:N`) after N tokens of the call's arguments
    (`{"input": "Fix \\"the\\" bug in main.py, then"}`, the user's first six words): the
    `response.failed` shows the call with the input that came, its JSON string decoded as far
    as it goes."""
    ask: Any = {**ASK, "input": 'Fix "the" bug in main.py, then run the tests'}
    with (
        alone(servers, tmp_path, 1.5) as running,
        fault(servers["cloud"], f"abort:{tokens}"),
        openai_client(running).responses.stream(model="cloud", **ask) as stream,
    ):
        events = list(stream)
    failed = events[-1]
    assert failed.type == "response.failed"
    [call] = failed.response.output
    assert (call.type, call.status) == ("custom_tool_call", "incomplete")  # type: ignore[union-attr]
    assert call.input == given  # type: ignore[union-attr]


def test_a_whole_custom_call_without_usage_is_counted_once(
    servers: dict[str, Running], tmp_path: Path
) -> None:
    request_id = uuid.uuid4().hex
    with alone(servers, tmp_path, 1.5) as running, fault(servers["cloud"], "no_usage"):
        with openai_client(running).responses.stream(
            model="cloud", extra_headers={"x-request-id": request_id}, **ASK
        ) as stream:
            final = stream.get_final_response()
        row = ledger_row(tmp_path / "ledger", request_id)
    call = final.output[0]
    assert call.type == "custom_tool_call" and call.input == LONG
    assert row == ("ok", row[1], estimate_tokens(len("apply_patch" + LONG)), True)


def streamed(running: RunningRouter, api: str, request_id: str) -> None:
    """Stream a short answer in `api` (the failure it may end with is the test's to read)."""
    headers = {"x-request-id": request_id}
    if api == "responses":
        sdk = openai_client(running)
        with sdk.responses.stream(model="cloud", input="Say hi", extra_headers=headers) as s:
            list(s)
        return
    client = anthropic_client(running)
    ask: Any = [{"role": "user", "content": "Say hi"}]
    with (
        contextlib.suppress(anthropic.APIStatusError),
        client.messages.stream(
            model="cloud", max_tokens=50, messages=ask, extra_headers=headers
        ) as s,
    ):
        list(s)


@pytest.mark.parametrize("api", ["messages", "responses"])
def test_a_stream_cut_after_the_usage_came_records_the_upstreams_usage(
    servers: dict[str, Running], tmp_path: Path, api: str
) -> None:
    """The usage chunk came, then the connection dropped before [DONE]: the translated
    stream had not sent the usage yet (it goes in its last event), and the ledger recorded
    the router's estimate (a prompt of 20 tokens for 1,234). The answer had finished, so
    the stream is completed, as a close without [DONE] is (`ok`; it was a cut, an
    `upstream_error`, before a finished answer was completed however the connection
    ended): the counts are the upstream's, as the whole stream's."""
    whole, cut = uuid.uuid4().hex, uuid.uuid4().hex
    with alone(servers, tmp_path, 1.5) as running:
        streamed(running, api, whole)
        with fault(servers["cloud"], "cut_before_done"):
            streamed(running, api, cut)
        rows = [ledger_row(tmp_path / "ledger", request_id) for request_id in (whole, cut)]
    assert [rows[0][0], rows[1][0]] == ["ok", "ok"]
    assert rows[1][1:] == rows[0][1:]  # the same answer's counts, as the upstream gave them
    assert rows[0][3] is False
