"""A model's refusal (OpenAI's `refusal`) through a litellm backend: whole, it reaches the
client; streamed, litellm drops it, as README and docs/agents/backends.md say.

litellm's stream wrapper passes on a chunk only when it carries content, tool calls,
reasoning, ... (`is_chunk_non_empty` in its `streaming_handler.py`): a delta whose only
content is `refusal` is not among them, and the router never sees it (found in review). The
same upstream behind a `kind: openai` backend streams it. Should litellm start passing it
on, the pinned test fails: then drop the limitation from the docs. Real sockets: the router,
litellm speaking OpenAI's chat (`openai/...`) to a scripted upstream, the official SDKs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anthropic
import pytest

from router.config import parse
from tests.agent_apis.scripted_chat import REFUSAL, Refusing
from tests.harness import INTENTS, RunningRouter, openai_via_litellm, router, sdk, upstream

ASK: list[Any] = [{"role": "user", "content": "Write a Python function."}]


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningRouter]:
    """`lite` (litellm, `openai/m`) and `direct` (`kind: openai`) on one refusing upstream."""
    with upstream(Refusing) as refusing:
        direct = {"name": "direct", "tier": "local", "base_url": refusing.url, "model": "m"}
        config = parse(
            {
                "backends": [openai_via_litellm("lite", refusing.url, "m"), direct],
                "routes": {i: ["direct"] for i in INTENTS},
                "ledger": {"path": str(tmp_path_factory.mktemp("refusal") / "ledger")},
                "resilience": {"enabled": False},
            }
        )
        with router(config) as running:
            yield running


def _messages(proxy: RunningRouter, model: str, stream: bool) -> Any:
    client = anthropic.Anthropic(base_url=proxy.root, api_key="x", max_retries=0)
    if not stream:
        return client.messages.create(model=model, max_tokens=200, messages=ASK)
    with client.messages.stream(model=model, max_tokens=200, messages=ASK) as events:
        return events.get_final_message()


@pytest.mark.parametrize("model", ["lite", "direct"])
def test_a_whole_refusal_reaches_the_client(proxy: RunningRouter, model: str) -> None:
    reply = sdk(proxy).chat.completions.create(model=model, messages=ASK)
    assert reply.choices[0].message.refusal == REFUSAL
    message = _messages(proxy, model, stream=False)
    assert message.stop_reason == "refusal" and message.content[0].text == REFUSAL


def test_litellm_drops_a_streamed_refusal(proxy: RunningRouter) -> None:
    """A chat client gets no `refusal` delta and no text, a Messages client (Claude Code) an
    empty `end_turn`; through `kind: openai` the refusal streams as on a whole reply."""
    said: dict[str, tuple[str, str, list[str]]] = {}
    for model in ("lite", "direct"):
        chunks = list(sdk(proxy).chat.completions.create(model=model, messages=ASK, stream=True))
        choices = [c for chunk in chunks for c in chunk.choices]
        refusal = "".join(c.delta.refusal or "" for c in choices)
        text = "".join(c.delta.content or "" for c in choices)
        said[model] = (refusal, text, [c.finish_reason for c in choices if c.finish_reason])
    assert said["lite"] == ("", "", ["stop"])
    assert said["direct"] == (REFUSAL, "", ["stop"])
    message = _messages(proxy, "lite", stream=True)
    assert (message.stop_reason, message.content) == ("end_turn", [])
    message = _messages(proxy, "direct", stream=True)
    assert message.stop_reason == "refusal" and message.content[0].text == REFUSAL
