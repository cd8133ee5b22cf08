"""Deterministic signals that beat the model: tool use forced or clearly asked for.

`tool_choice` forcing a call means a tool call whatever the text says. Tools offered with a
request that names one (two words of its name, in order) or asks to look up, search, book,
send… is tool use too. Tools merely present are only a weak prior: coding agents send their
tool schemas on every turn, their descriptions are never compared, and their built-in tools
(`classifier.harness_tools.HARNESS_TOOLS`) cannot be named.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from itertools import pairwise

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
_NAME_BREAKS = str.maketrans("_-.", "   ")


@lru_cache(maxsize=256)
def tool_words(tool_names: str) -> frozenset[tuple[str, str]]:
    """The pairs of consecutive content words in each tool's name (`get_current_weather`,
    `getCurrentWeather`, `get-current-weather` give `("current", "weather")`); a name of one
    content word gives none, and cannot be named, nor can an agent's own, which the view
    leaves out of `tool_names` (`classifier.harness_tools.HARNESS_TOOLS`).
    Cached: agents send the same tools on every turn."""
    return frozenset(
        pair
        for name in tool_names.split(" ")
        for pair in _pairs(tokens(_CAMEL.sub(" ", name.translate(_NAME_BREAKS))))
    )


def _pairs(words: list[str]) -> Iterator[tuple[str, str]]:
    """Consecutive pairs of the content words among `words` (stop words and short ones are
    skipped: "apply the patch" pairs `apply` with `patch`)."""
    content = [t for t in words if len(t) > 3 and t not in _STOP]
    return pairwise(content)


def asks_for_tools(v: RequestView) -> str | None:
    """Why the latest message asks for the offered tools, or None if it does not: an asking
    phrase, or two content words of a tool's name, one after the other as in the name
    ("the current weather" names `get_current_weather`). Names, not descriptions: an
    agent's tools are described in everyday words, and two of them in common with an ask
    made "Make the export command write a CSV file" tool_calling (found in review). In
    order and together, not anywhere: with a `todo_write` tool offered, "write a todo app"
    names none. And never an agent's built-in tools (`classifier.harness_tools.HARNESS_TOOLS`):
    "store the todo write timestamp" is no call of Claude Code's TodoWrite."""
    low = v.latest.lower()
    for phrase in _ASK_PHRASES:
        if phrase in low:
            return f"asks: {phrase!r}"
    named = tool_words(v.tool_names)
    if not named:
        return None
    for pair in _pairs(tokens(v.latest[:600])):
        if pair in named:
            return "names an offered tool: " + " ".join(pair)
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
