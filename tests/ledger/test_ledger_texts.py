"""`ledger.store_text`: the texts table keeps each request's prompt and answer (and nothing
when the switch is off)."""

from __future__ import annotations

from pathlib import Path

import openai
import pytest

from router.ledger import Ledger
from tests.harness import config_for, router, simulator

ASKS = ["Name a colour.", "Name a fruit."]


def serve_two_requests(tmp_path: Path, store_text: bool) -> list[str]:
    """One plain and one streamed request; returns their answers."""
    ledger = {"path": str(tmp_path / "ledger"), "flush_interval_s": 0.2, "store_text": store_text}
    answers = []
    with (
        simulator(profile="vllm", model="local-model") as local,
        router(config_for({"local": local}, tmp_path, ledger=ledger)) as proxy,
    ):
        client = openai.OpenAI(base_url=proxy.url, api_key="none", max_retries=0)
        system = {"role": "system", "content": "Be brief."}
        plain = client.chat.completions.create(
            model="local", messages=[system, {"role": "user", "content": ASKS[0]}]
        )
        answers.append(plain.choices[0].message.content or "")
        stream = client.chat.completions.create(
            model="local", stream=True, messages=[system, {"role": "user", "content": ASKS[1]}]
        )
        answers.append("".join(c.choices[0].delta.content or "" for c in stream if c.choices))
    return answers  # the router has stopped: its ledger is flushed


@pytest.mark.parametrize("store_text", [True, False])
def test_store_text_keeps_each_prompt_and_answer(tmp_path: Path, store_text: bool) -> None:
    answers = serve_two_requests(tmp_path, store_text)
    ledger = Ledger(tmp_path / "ledger")
    assert ledger.sql("select count(*) from records")[0][0] == 2
    if not store_text:
        assert not (tmp_path / "ledger" / "texts").exists()
        return
    rows = ledger.sql("select prompt_text, completion_text from texts order by started_at")
    assert rows == list(zip(ASKS, answers, strict=True))
    assert all(answers)
