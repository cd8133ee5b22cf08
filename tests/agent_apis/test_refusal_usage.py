"""A model's refusal is its answer in the ledger too: counted in the usage estimate and kept
as the answer's text, on each API, streamed or whole.

OpenAI's structured outputs refuse in `refusal`, with no `content`. The relay counted only
`content`: a streamed refusal of ~250 characters from an upstream that sends no usage was
recorded as 0 completion tokens, estimated, and the text kept for the shadow comparison was
empty (found in review). Real sockets: the router, a scripted chat upstream, the SDKs.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from router.request_size import estimate_tokens
from tests.agent_apis.agent_stack import anthropic_client, openai_client
from tests.agent_apis.scripted_chat import REFUSAL, Refusing
from tests.harness import RunningRouter, collected, config_for, router, upstream

ASK = "Write a Python function that reverses a list."


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningRouter]:
    tmp: Path = tmp_path_factory.mktemp("refusal")
    ledger = {"path": str(tmp / "ledger"), "flush_interval_s": 0.2, "store_text": True}
    with upstream(Refusing) as local, router(config_for({"local": local}, tmp, ledger=ledger)) as p:
        yield p


def _ask(proxy: RunningRouter, api: str, stream: bool) -> None:
    """One request on `api`, read to its end."""
    ask: Any = [{"role": "user", "content": ASK}]
    if api == "chat":
        chat = openai_client(proxy).chat.completions
        if stream:
            list(chat.create(model="local", messages=ask, stream=True))
        else:
            assert chat.create(model="local", messages=ask).choices[0].message.refusal == REFUSAL
    elif api == "responses":
        responses = openai_client(proxy).responses
        if stream:
            list(responses.create(model="local", input=ask, stream=True))
        else:
            responses.create(model="local", input=ask)
    else:
        messages = anthropic_client(proxy).messages
        if stream:
            with messages.stream(model="local", max_tokens=200, messages=ask) as events:
                events.get_final_message()
        else:
            messages.create(model="local", max_tokens=200, messages=ask)


@pytest.mark.parametrize("stream", [True, False])
@pytest.mark.parametrize("api", ["chat", "responses", "messages"])
def test_a_refusal_is_counted_and_kept_as_the_answer(
    proxy: RunningRouter, api: str, stream: bool
) -> None:
    records = collected(proxy)
    _ask(proxy, api, stream)
    record = records.wait(30)
    assert record.outcome == "ok" and record.usage.estimated
    assert record.usage.completion_tokens == estimate_tokens(len(REFUSAL))
    assert record.completion_text == REFUSAL
