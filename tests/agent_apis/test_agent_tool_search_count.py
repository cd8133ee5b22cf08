"""A deferred-tool turn's count and record agree with the prompt it is judged by: a backend
that renders every tool it is sent (vLLM's `/v1/messages`) reads the deferred tools no search
loaded, so where the router estimates for it, it counts them too.

`count_tokens` estimated the offered tools alone when every backend was skipped and when
the native backend could not count: Claude Code was told "prompt is too long" for a turn
whose count was 49 tokens (judged at 40,271). A record of a native reply without usage said
49 prompt tokens where that backend read them all (found in review).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import httpx
import orjson
import pytest

from router.config import parse
from router.request_size import estimate_prompt_tokens
from tests.agent_apis.agent_stack import anthropic_client
from tests.agent_apis.test_agent_tool_search_window import BODY, TOOLS, window_stack
from tests.harness import RunningRouter, collected, config_for, router, scripted_stream

EVERY = estimate_prompt_tokens("messages", BODY, every_tool=True)
COUNTED = {k: v for k, v in BODY.items() if k != "max_tokens"}
# A native Messages reply with no usage, and no `input_tokens` for a count: an upstream
# that cannot count
NO_USAGE = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "m",
    "content": [{"type": "text", "text": "Listed."}],
    "stop_reason": "end_turn",
    "stop_sequence": None,
}


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningRouter]:
    """`native` (vLLM speaking Messages itself) told a window of `WINDOW`, and a chat
    `cloud` with room: every route tries them in that order."""
    with window_stack(tmp_path_factory.mktemp("count"), ["native", "cloud"]) as running:
        yield running


def _count(proxy: RunningRouter, body: dict[str, Any]) -> int:
    response = httpx.post(
        f"{proxy.url}/messages/count_tokens", json=body, trust_env=False, timeout=30
    )
    assert response.status_code == 200, response.text
    counted: int = response.json()["input_tokens"]
    return counted


def test_a_turn_refused_as_too_long_counts_the_prompt_it_was_judged_by(
    proxy: RunningRouter,
) -> None:
    with pytest.raises(anthropic.BadRequestError) as refused:
        anthropic_client(proxy).messages.create(**{**BODY, "model": "native"})
    assert "too long" in str(refused.value)
    assert _count(proxy, {**COUNTED, "model": "native"}) == EVERY  # was 49


def test_a_turn_served_elsewhere_is_counted_there(proxy: RunningRouter) -> None:
    """Native skipped, the cloud serves the turn over chat: the offered tools alone."""
    assert _count(proxy, COUNTED) == estimate_prompt_tokens("messages", BODY) < 200


@pytest.fixture
def uncounting(tmp_path: Path) -> Iterator[RunningRouter]:
    """A vLLM speaking Messages itself, with room, that answers with no usage and no count."""
    with scripted_stream(orjson.dumps(NO_USAGE), "application/json") as native:
        config = config_for({"local": native}, tmp_path).model_dump()
        config["backends"][0]["apis"] = ["chat", "messages"]
        with router(parse(config)) as running:
            yield running


def test_a_native_backend_that_cannot_count_is_estimated_with_every_tool(
    uncounting: RunningRouter,
) -> None:
    body = {**COUNTED, "tools": TOOLS[:20]}
    every = estimate_prompt_tokens("messages", body, every_tool=True)
    assert every > 10 * estimate_prompt_tokens("messages", body)
    assert _count(uncounting, body) == every


def test_a_native_reply_without_usage_is_recorded_with_every_tool(
    uncounting: RunningRouter,
) -> None:
    body = {**BODY, "tools": TOOLS[:20]}
    records = collected(uncounting)
    raw = anthropic_client(uncounting).messages.with_raw_response.create(**body)
    assert raw.headers["x-smf-backend"] == "local"
    record = records.wait(10)
    assert record.usage.estimated
    assert record.usage.prompt_tokens == estimate_prompt_tokens("messages", body, every_tool=True)
