"""Which backends a deferred-tool turn is judged with every tool for: those that speak
Messages themselves and render every tool they are sent (vLLM's `/v1/messages`), not
Anthropic's own API, which leaves the deferred tools out as the chat translation does
(`router.vllm_fields.reads_every_tool`)."""

from __future__ import annotations

from classifier.intent import INTENTS, Intent
from router.config import parse
from router.policy import Demand, plan
from router.target import Target

WINDOW = 1000
# offered tools: 100 tokens; every tool: 5000
DEMAND = Demand(api="messages", prompt_tokens=100, native_prompt_tokens=5000, max_tokens=10)
CFG = parse(
    {
        "backends": [
            # a vLLM declared Messages-only: as Anthropic's own is configured, but local
            {"name": "vllm", "tier": "local", "base_url": "http://l/v1", "model": "m"}
            | {"apis": ["messages"], "context_window": WINDOW},
            {"name": "claude", "tier": "cloud", "base_url": "http://a/v1", "model": "c"}
            | {"apis": ["messages"], "context_window": WINDOW},
            {"name": "chat", "tier": "local", "base_url": "http://c/v1", "model": "m"}
            | {"apis": ["chat"], "context_window": WINDOW},
        ],
        "routes": {i: ["vllm", "claude", "chat"] for i in INTENTS},
    }
)


def test_a_vllm_declared_messages_only_is_judged_with_every_tool() -> None:
    """Taken for Anthropic's own API, it was judged by the offered tools and sent a prompt
    past its window, which vLLM refuses after the attempt has begun (found in review)."""
    the_plan = plan(Intent("math", 0.9, "model"), Target("auto"), DEMAND, {}, CFG)
    assert [(s.backend, s.reason) for s in the_plan.skipped] == [("vllm", "context_window")]
    assert the_plan.backends == ("claude", "chat")
