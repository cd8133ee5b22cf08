"""An offered tool asked for by the parts of its name: "use the calculator" for griptape's
`CalculatorTool_calculate` (`classifier.rules.asks_for_tools`).

Griptape (and other frameworks after it) names each tool's activity `<Tool>_<activity>`:
`CalculatorTool_calculate`, `WebSearchTool_search`, `FileManagerTool_list_files_from_disk`.
No user types that; they ask "Use the calculator.", "Use the CalculatorTool", "use the
calculate tool", and each stayed math 0.675 (cloud) with the calculator offered (found in a
live review): the whole-name phrase never matched, and `tool_words` found no two content
words of the name in the ask.

A name's parts are its words (split at `_`, `-`, `.` and CamelCase) in runs cut at each
`Tool` word (`name_parts`): `CalculatorTool_calculate` gives "calculator" and "calculate",
`WebSearchTool_search` "web search" and "search", `get_current_weather` "get current
weather" (a name with no `Tool` word is one run). A part is asked for only in the rule's
phrases:

- with "tool" after it, after any of the rule's verbs (`TOOL_VERBS`, "the" or "your"):
  "use the calculate tool", "with the web search tool", "call your CalculatorTool";
- bare, only the part a `Tool` word ends (the tool's own name, "calculator", "web search"),
  after an imperative "use", "using", "call" or "invoke" opening a sentence (or after
  "please", "you", "then"), and only where the name ends the phrase (`ENDS`): at a
  punctuation mark, the text's end or a word that cannot go on naming a thing ("to",
  "for", "and", ...). "Use the calculator to compute it" asks for it; "use the search
  results above" (`SearchTool`) does not, nor does "Use the final answer to ..." with
  smolagents' `final_answer` offered: its name has no `Tool` word, so its part is asked
  for with "tool" after it only.

A part of one generic word (`GENERIC`: "get", "list", "run", "tool", "data"...) or shorter
than `MIN_CHARS` asks for nothing: those are every app's words, and "use the list" asks for
no `list` tool. "search" is not generic: it is a whole activity's name (`WebSearchTool`'s),
and the phrases above ("use the search tool", "use the search to find ...") ask for it.
"""

from __future__ import annotations

import re
from functools import lru_cache

# The verbs before an offered tool's name, or a part of it, and "tool", and the opening of
# an imperative ask, for this phrase and the whole name's (`classifier.rules._named_phrase`,
# which imports them: one set of verbs for both); and the imperatives that ask for a tool by
# its bare name
TOOL_VERBS = r"(?:use|using|call|calling|run|running|invoke|with|via)"
BARE_VERBS = r"(?:use|using|call|invoke)"
IMPERATIVE = r"(?:^|(?<=[.!?;:,\n])|\b(?:please|you|then)\b)\s*"
# What may follow a bare name that ends the phrase naming it
ENDS = (
    r"(?=\s*(?:[.,;:!?)]|\Z)"
    r"|\s+(?:to|for|and|on|in|with|then|please|instead|again|now|here|first|once|if|so|when)\b)"
)
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_TOOL_WORDS = frozenset(("tool", "tools"))
_GENERIC_TEXT = (
    "get set list run call add make create update delete remove read write edit execute do"
    " query fetch result results data file files text info item items action actions"
    " input output value values default main new all the my your"
)
GENERIC = frozenset(_GENERIC_TEXT.split())
MIN_CHARS = 3


def name_words(name: str) -> list[str]:
    """The words of the tool name `name`, in lower case: split at `_`, `-`, `.`, spaces and
    CamelCase, a run of capitals one word ("HTTPRequest" gives "http", "request"), digits
    apart. The one splitter of tool names, for their parts here and for the pairs of their
    words (`classifier.rules.tool_words`)."""
    return [w.lower() for w in _WORDS.findall(name)]


def name_parts(name: str) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    """The parts of the tool name `name` that ask for it: those asked for with "tool"
    after them, and those asked for bare (the runs a `Tool` word ends), each a tuple of
    lower-case words; generic and short single words left out."""
    runs: list[tuple[str, ...]] = []
    bare: list[tuple[str, ...]] = []
    run: list[str] = []
    for word in name_words(name):
        if word not in _TOOL_WORDS:
            run.append(word)
            continue
        if run:
            runs.append(tuple(run))
            bare.append(tuple(run))
        run = []
    if run:
        runs.append(tuple(run))
    return [p for p in runs if _names(p)], [p for p in bare if _names(p)]


def _names(part: tuple[str, ...]) -> bool:
    """Whether `part` can name a tool: more than one word, or one neither generic nor short."""
    return len(part) > 1 or (len(part[0]) >= MIN_CHARS and part[0] not in GENERIC)


@lru_cache(maxsize=256)
def part_phrase(tool_names: str) -> re.Pattern[str] | None:
    """The phrase that asks for one of the offered tools (`tool_names`, space-separated) by
    a part of its name (group `part` with "tool" after it, `bare` without), any case; None
    when no name has a part that asks. Cached: agents send the same tools on every turn."""
    tooled: set[tuple[str, ...]] = set()
    bare: set[tuple[str, ...]] = set()
    for name in tool_names.split(" "):
        with_tool, alone = name_parts(name)
        tooled.update(with_tool)
        bare.update(alone)
    if not tooled:
        return None
    glued = r"(?:[\s_-]*tools?)?"
    alternatives = [
        rf"\b{TOOL_VERBS}\s+(?:the|your)\s+(?P<q>[`'\"]?)(?P<part>{_alternatives(tooled)})"
        r"(?:(?P=q)\s*tools?|[\s_-]*tools?(?P=q))(?![\w-])"
    ]
    if bare:
        alternatives.append(
            rf"{IMPERATIVE}{BARE_VERBS}\s+(?:the|your)\s+(?P<bq>[`'\"]?)"
            rf"(?P<bare>{_alternatives(bare)}){glued}(?P=bq){ENDS}"
        )
    return re.compile("|".join(alternatives), re.IGNORECASE)


def _alternatives(parts: set[tuple[str, ...]]) -> str:
    """`parts` as regex alternatives, longest first, each's words joined by any spacing,
    `_` or `-` ("web search", "WebSearch", "web_search")."""
    written = (r"[\s_-]*".join(map(re.escape, p)) for p in parts)
    return "|".join(sorted(written, key=len, reverse=True))


def asked_part(tool_names: str, text: str) -> str | None:
    """The part of an offered tool's name that `text` asks for it by (`part_phrase`), in
    lower case; None when it asks for none so."""
    phrase = part_phrase(tool_names)
    found = phrase.search(text) if phrase is not None else None
    if found is None:
        return None
    return " ".join(name_words(found["part"] or found["bare"]))
