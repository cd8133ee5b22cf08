"""`ledger.store_text` keeps the latest ask as its user wrote it, as the classifier reads
it and the conversation key hashes it (`router.conversation.prompt_text`): crush's title text
and Aider's reminders, an agent's fixed words around the ask, were stored as the prompt.
Through a live router and a simulator, with the official `openai` SDK and the real ledger.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import openai
import pytest

from classifier.crush import TITLE_OPENING, TITLE_SYSTEM_END, TITLE_TAIL
from router.ledger import Ledger
from tests.agent_shapes.aider import aider_body
from tests.harness import config_for, router, simulator

ASK = "explain what sync_dir does"
TITLE_CALL = [
    {"role": "system", "content": "you will generate a short title" + TITLE_SYSTEM_END},
    {"role": "user", "content": f"{TITLE_OPENING}{ASK}{TITLE_TAIL}"},
]


@pytest.mark.parametrize(
    "messages",
    [
        TITLE_CALL,
        aider_body(ASK, None, "ask")["messages"],
        aider_body(ASK, None, "context")["messages"],
        aider_body(ASK)["messages"],  # the `whole` edit format's reminder
        aider_body("add a --verbose flag", ASK, "diff")["messages"],
        [{"role": "user", "content": ASK}],
    ],
    ids=["crush-title", "aider-ask", "aider-context", "aider-whole", "aider-diff", "plain"],
)
def test_the_stored_prompt_is_the_users_words(
    tmp_path: Path, messages: list[dict[str, Any]]
) -> None:
    ledger = {"path": str(tmp_path / "ledger"), "flush_interval_s": 0.2, "store_text": True}
    with (
        simulator(profile="vllm", model="local-model") as local,
        router(config_for({"local": local}, tmp_path, ledger=ledger)) as proxy,
    ):
        client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
        client.chat.completions.create(model="local", max_tokens=20, messages=messages)
    with Ledger(tmp_path / "ledger") as read:  # the router has stopped: its ledger is flushed
        assert read.sql("SELECT prompt_text FROM texts") == [(ASK,)]
