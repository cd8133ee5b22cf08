"""A stream whose connection dropped after the answer finished, seen through the official
SDKs, and what the ledger records of it.

The simulator's `cut_before_done` sends a chat stream's finish reason and usage chunk, then
closes the connection mid-body where `[DONE]` was due (a native Messages stream: its
`message_delta` with the stop_reason, then no `message_stop`). The relay turned the transport
error into a cut: the chat client had the whole answer and its finish_reason, then an
in-band error the `openai` SDK raised (an agent retries, and pays twice), and the ledger
said 502 `cut`; a clean close without `[DONE]` (`missing_done`), and the same fault through
litellm, were completed (found in review). One rule now: a finished answer is completed
however the connection ended; one cut before it finished (`cut_stream`) is still a cut.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest

from router.config import parse
from tests.agent_apis.agent_stack import anthropic_client, openai_client, stack_config
from tests.agent_apis.over_chat import fault, ledger_columns
from tests.harness import Running, RunningRouter, router

ASK: Any = [{"role": "user", "content": "Write a Python function that reverses a list."}]


@pytest.fixture(scope="module")
def proxy(
    servers: dict[str, Running], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[RunningRouter, Path]]:
    """The agent stack without breakers (a test's cuts stay its own), and its ledger."""
    tmp = tmp_path_factory.mktemp("finished_cut")
    data = stack_config(servers, tmp, ["local", "cloud"]).model_dump()
    data["resilience"]["enabled"] = False
    with router(parse(data)) as running:
        yield running, tmp / "ledger"


def recorded(ledger: Path, request_id: str) -> tuple[Any, ...]:
    """(status, outcome, error_kind, completion_tokens) of the request's ledger row."""
    return ledger_columns(ledger, request_id, "status, outcome, error_kind, completion_tokens")


def chat_stream(running: RunningRouter, request_id: str) -> tuple[str, list[str]]:
    """The text and finish reasons of a streamed chat answer from `cloud` (chat, native)."""
    stream = openai_client(running).chat.completions.create(
        model="cloud",
        messages=ASK,
        max_tokens=60,
        stream=True,
        extra_headers={"x-request-id": request_id},
    )
    text = ""
    reasons: list[str] = []
    for chunk in stream:
        for choice in chunk.choices:
            text += choice.delta.content or ""
            reasons += [choice.finish_reason] if choice.finish_reason else []
    return text, reasons


def test_a_chat_stream_cut_after_its_finish_is_completed(
    proxy: tuple[RunningRouter, Path], servers: dict[str, Running]
) -> None:
    running, ledger = proxy
    whole_id, cut_id = uuid.uuid4().hex, uuid.uuid4().hex
    whole = chat_stream(running, whole_id)
    with fault(servers["cloud"], "cut_before_done"):
        cut = chat_stream(running, cut_id)  # raised `openai.APIError` mid-stream
    assert cut == whole and whole[0] and whole[1] == ["stop"]
    assert recorded(ledger, cut_id) == recorded(ledger, whole_id)
    assert recorded(ledger, cut_id)[:3] == (200, "ok", None)


def test_a_chat_stream_cut_before_its_finish_is_still_a_cut(
    proxy: tuple[RunningRouter, Path], servers: dict[str, Running]
) -> None:
    running, ledger = proxy
    request_id = uuid.uuid4().hex
    with fault(servers["cloud"], "cut_stream"), pytest.raises(openai.APIError):
        chat_stream(running, request_id)
    assert recorded(ledger, request_id)[:3] == (502, "upstream_error", "cut")


def test_a_native_messages_stream_cut_after_its_stop_reason_is_completed(
    proxy: tuple[RunningRouter, Path], servers: dict[str, Running]
) -> None:
    """`local` serves Messages itself: its `message_delta` came, its `message_stop` never."""
    running, ledger = proxy
    request_id = uuid.uuid4().hex
    with (
        fault(servers["local"], "cut_before_done"),
        anthropic_client(running).messages.stream(
            model="local",
            max_tokens=60,
            messages=ASK,
            extra_headers={"x-request-id": request_id},
        ) as stream,
    ):
        kinds = [event.type for event in stream]  # raised `anthropic.APIStatusError`
        final = stream.get_final_message()
    assert kinds[-1] == "message_stop" and final.stop_reason in ("end_turn", "max_tokens")
    assert recorded(ledger, request_id)[:3] == (200, "ok", None)
