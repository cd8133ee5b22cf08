"""A config of one backend nobody calls, for the tests of what a router does without serving
requests (housekeeping, maintenance stop), which need only its ledger settings."""

from __future__ import annotations

INTENTS = ("coding", "tool_calling", "instruction", "math", "reasoning", "prose", "writing")
# one backend nobody calls: housekeeping needs only the ledger settings
OFFLINE = {
    "backends": [
        {"name": "local", "tier": "local", "base_url": "http://127.0.0.1:9/v1", "model": "m"}
    ],
    "routes": {intent: ["local"] for intent in INTENTS},
}
