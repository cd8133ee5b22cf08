"""Deterministic signals that beat the model: tool use forced or clearly asked for.

`tool_choice` forcing a call means a tool call whatever the text says. Tools offered with a
request that names them (or asks to look up, search, book, send…) is tool use too. Tools
merely present are only a weak prior: coding agents send their tool schemas on every turn.
"""

from __future__ import annotations

import re
from functools import lru_cache

from classifier.features import tokens
from classifier.intent import Intent
from classifier.request import RequestView

FORCED_CONFIDENCE = 0.97
ASKED_CONFIDENCE = 0.9
TOOLS_PRIOR = 2.0  # odds multiplier for tool_calling when tools are offered but not asked for
_ASK_PHRASES = (
    "use the tool", "use your tool", "use the function", "call the", "using the tool",
    "use the api", "look up", "look it up", "search for", "search the", "check the weather",
    "send an email", "send a message", "book a", "set an alarm", "set a reminder",
)  # fmt: skip
_STOP_TEXT = (
    "the a an and or of to in on for with from by is are be get set this that it your you "
    "my me what how can please use using tool tools function api given data into"
)
_STOP = frozenset(_STOP_TEXT.split())
_CAMEL = re.compile(r"(?=[A-Z])")


@lru_cache(maxsize=256)
def tool_words(tool_text: str) -> frozenset[str]:
    """Content words of tool names and descriptions (`get_weather`, `getWeather` give
    `weather`). Cached: agents send the same tool schemas on every turn."""
    spaced = _CAMEL.sub(" ", tool_text.replace("_", " ").replace(".", " "))
    return frozenset(t for t in tokens(spaced) if len(t) > 3 and t not in _STOP)


def asks_for_tools(v: RequestView) -> str | None:
    """Why the latest message asks for the offered tools, or None if it does not."""
    low = v.latest.lower()
    for phrase in _ASK_PHRASES:
        if phrase in low:
            return f"asks: {phrase!r}"
    shared = tool_words(v.tool_text) & {t for t in tokens(v.latest[:600]) if len(t) > 3}
    if len(shared) >= 2:
        return "names the offered tools: " + ", ".join(sorted(shared)[:4])
    return None


def rule_intent(v: RequestView) -> tuple[Intent, str] | None:
    """The intent and the rule that decided it, when a rule is certain."""
    if v.tool_forced:
        return Intent("tool_calling", FORCED_CONFIDENCE, "rule"), "tool_choice forces a call"
    if v.has_tools:
        why = asks_for_tools(v)
        if why:
            return Intent("tool_calling", ASKED_CONFIDENCE, "rule"), f"tools offered and {why}"
    return None
