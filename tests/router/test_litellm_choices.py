"""A litellm backend's stream with several choices: its own module, since a second in-process
router beside another module's would leave litellm's logging worker pending."""

from __future__ import annotations

from pathlib import Path

import openai

from router.config import Config, parse
from tests.harness import chat_chunk, openai_via_litellm, router, scripted_stream

INTENTS = ("coding", "tool_calling", "instruction", "math", "reasoning", "prose", "writing")


def test_a_litellm_stream_of_two_finished_choices_arrives_whole(tmp_path: Path) -> None:
    """litellm's stream passes on one finish reason, the first choice's: counting choice 1
    as unfinished at its [DONE] ended every n=2 stream through litellm with an error (found
    in review). Which of choices 1… litellm cut it cannot tell; choice 0 it can."""
    body = (
        chat_chunk(0, "A")
        + chat_chunk(0, "B", "stop")
        + chat_chunk(1, "C")
        + chat_chunk(1, "D", "stop")
        + b"data: [DONE]\n\n"
    )
    with scripted_stream(body) as upstream, router(_config(upstream.url, tmp_path)) as proxy:
        client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
        stream = client.chat.completions.create(
            model="auto", messages=[{"role": "user", "content": "hi"}], stream=True, n=2
        )
        texts: dict[int, str] = {}
        for chunk in stream:
            for choice in chunk.choices:
                texts[choice.index] = texts.get(choice.index, "") + (choice.delta.content or "")
    assert texts[0] == "AB"


def _config(url: str, tmp_path: Path) -> Config:
    return parse(
        {
            "backends": [openai_via_litellm("lite", url, "m")],
            "routes": {intent: ["lite"] for intent in INTENTS},
            "ledger": {"path": str(tmp_path / "ledger")},
            "resilience": {"enabled": False},
        }
    )
