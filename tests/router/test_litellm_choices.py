"""A litellm backend's stream with several choices, one cut: its own module, since a second
in-process router beside another module's would leave litellm's logging worker pending."""

from __future__ import annotations

from pathlib import Path

import openai
import pytest

from router.config import parse
from tests.harness import chat_chunk, openai_via_litellm, router, scripted_stream

INTENTS = ("coding", "tool_calling", "instruction", "math", "reasoning", "prose", "writing")


def test_a_litellm_stream_cut_while_a_choice_is_unfinished_ends_with_an_error(
    tmp_path: Path,
) -> None:
    """litellm stops quietly once it saw a finish reason and the adapter ends every stream
    with [DONE]: choice 1 cut mid-answer reached the client as a normal end, recorded ok
    (found in review; a `kind: openai` backend's twin is in test_odd_streams.py)."""
    body = chat_chunk(0, "Hello") + chat_chunk(1, "Hel") + chat_chunk(0, " there", "stop")
    with scripted_stream(body) as upstream:
        config = parse(
            {
                "backends": [openai_via_litellm("lite", upstream.url, "m")],
                "routes": {intent: ["lite"] for intent in INTENTS},
                "ledger": {"path": str(tmp_path / "ledger")},
                "resilience": {"enabled": False},
            }
        )
        with router(config) as proxy:
            client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
            stream = client.chat.completions.create(
                model="auto", messages=[{"role": "user", "content": "hi"}], stream=True, n=2
            )
            with pytest.raises(openai.APIError, match="unfinished"):
                for _ in stream:
                    pass
