"""The offered tool a user's ask names, the one that sends the answer, and the arguments an
ask gives: an arithmetic expression for a tool that takes one, a place for a city or location.

The simulator called the first tool offered whatever the ask said: Langflow's Agent with
`[get_current_date, evaluate_expression]`, asked to compute 1234 * 5678, called
`get_current_date` with the time zone "What is 1234 * 5678? Use", and pi called `read` for
every prompt (three live reviews of demo mode). A user trying an agent there saw nonsense
calls. Names only: a word like "calculate" in the ask is too loose a hint to pick a tool by
(a description mentions many things), and a name is what a user types to mean a tool.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

# a word as a name spells it: an upper-case run (`JSON` of `parseJSON`), a capitalised or
# lower-case run (`get`, `Weather`), or digits; `_`, `-`, `.` and spaces separate
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
# what an ask writes a name, a path or an identifier as, one piece: letters (any script),
# digits, `_`, `.`, `/`, `\` and `-` ("get_weather", "agent.py", "my-agent/a.yaml", "subAgent")
_TOKEN = re.compile(r"[\w./\\-]+")
# what ends a server's prefix in a tool's name (fast-agent's `calc-add`, Claude Code's
# `mcp__calc__add`), and how many prefixes are read off one name
_SEPARATOR = re.compile(r"__|-")
_PREFIXES = 3
# the tags of what an agent writes into the user's message for the model, not the user's ask
_INJECTED_TAGS = ("system-reminder", "system")
# an ask opening with a verb and a file's path, "Read calc.py and ...", "Edit `src/app.ts`":
# the verb, then (after "the", "file") a path of at least two characters before its extension
_FILE_ASK = re.compile(
    r"\s*([A-Za-z]+)\s+(?:the\s+)?(?:file\s+)?[`'\"]?((?:[\w.-]*/)*[\w-]{2,}\.[A-Za-z]\w{0,7})\b"
)
# a place an ask names: up to four capitalised words after "in", "at", "for" or "near" ("the
# weather in Lisbon?", "in Paris, France"), and the fields that hold one (`named_place`)
_PLACE = re.compile(r"\b(in|at|for|near)\s+([A-Z][\w'-]*(?:,?[ \t][A-Z][\w'-]*){0,3})")
_PLACE_WORD = re.compile(r"[\w'-]+")
_PLACE_FIELDS = ("city", "location")
# capitalised words after those that name no place: a day, a month, a language, a format, a
# unit ("reply in English", "Respond in JSON", "for Friday", "in Celsius")
_NOT_PLACES = frozenset(
    {
        *("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"),
        *("january", "february", "march", "april", "may", "june", "july", "august"),
        *("september", "october", "november", "december"),
        *("today", "tomorrow", "tonight", "yesterday", "utc", "gmt"),
        *("english", "french", "spanish", "german", "italian", "portuguese", "dutch"),
        *("chinese", "japanese", "korean", "russian", "arabic", "hindi"),
        *("json", "xml", "yaml", "csv", "html", "markdown", "celsius", "fahrenheit"),
    }
)
# the words of a tool's name that say it hands the answer over (`finishing_index`)
_FINISHING = frozenset({"final", "answer", "respond", "response", "reply", "finish"})


def words(text: str) -> list[str]:
    """`text`'s words, lower-cased, snake, kebab and camel case split: `get_weather`,
    `getWeather` and "get weather" all read as `["get", "weather"]`."""
    return [word.lower() for word in _WORD.findall(text)]


def asked_index(names: Sequence[str], ask: str) -> int | None:
    """Which of the tools `names` the ask names, or None when it names none.

    A tool is named when its name's words stand together, in order, among the ask's words
    (its exact name, any case, or its words written apart: "get weather" names
    `get_weather`); words scattered about do not name it (Marvin's task text holds `mark`,
    `task`, `successful` and its id's parts, not `MarkTaskSuccessful_f7674b16`). Text an
    agent adds to the user's message for the model (Claude Code's `<system-reminder>`
    listing its tools, gptme's `<system>` nag) is not the ask, and is left out. Where the
    ask names several, the longest name wins (the more specific: "web search" names
    `search` and `web_search`), then the one named first, then the first in the list: one
    answer for one prompt. A name stands as whole pieces of the ask (`_TOKEN`): part of a
    file's name, a path or a longer identifier names no tool ("agent.py", "subAgent",
    "User-Agent", "task_runner.py" name no `Agent` or `task`: Claude Code called `Agent`
    for "Read agent.py", found in review).

    A name with a server's prefix (fast-agent's MCP tools, `calc-get_weather`; Claude Code's,
    `mcp__calc__get_weather`) is named by its part after the prefix too ("use the
    get_weather tool", "get weather"): the simulator called `calc-add` for both (a live
    review). Of a part and a whole name of as many words, the whole name wins."""
    said = _read(without_injected(ask))
    known = frozenset(said.words)  # a name with a word the ask lacks is passed over unscanned
    named: list[tuple[int, bool, int, int]] = []
    placed: dict[tuple[str, ...], int | None] = {}  # names alike but for their case: one search
    for index, name in enumerate(names):
        for prefixed, part in enumerate((name, *_unprefixed(name))):
            parts = tuple(words(part))
            if parts not in placed:
                placed[parts] = _place(list(parts), said) if known.issuperset(parts) else None
            place = placed[parts]
            if place is not None:
                named.append((-len(parts), prefixed > 0, place, index))
                break  # the longer reading first: a shorter one of the same name ranks lower
    return min(named)[3] if named else None


def named_spans(names: Iterable[str], text: str) -> list[tuple[int, int]]:
    """Where in `text` one of the tools `names` is named, as `asked_index` reads a name
    (its words standing together as whole pieces, `_place`; a prefixed name by its part
    after the prefix too): the `(start, end)` of each such run, in order, overlapping
    runs merged. `delegation.handed` leaves these out, so what it writes names none of
    them to `asked_index`: one reading of "the ask names tool X", not two."""
    said = _read(without_injected(text, fill=True))
    known = frozenset(said.words)
    found: list[tuple[int, int]] = []
    for name in names:
        for part in (name, *_unprefixed(name)):
            parts = words(part)
            if parts and known.issuperset(parts):
                for at in _places(parts, said):
                    found.append((said.spans[at][0], said.spans[at + len(parts) - 1][1]))
    merged: list[tuple[int, int]] = []
    for start, end in sorted(found):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def file_verb_index(names: Sequence[str], ask: str) -> int | None:
    """Which of the tools `names` an ask that opens with a verb and a file's path asks for,
    where it names none (`asked_index`): the one "verb file" names, of the verb first
    ("Read calc.py and tell me what it does" asks for `read_file`), else None.

    code-puppy offers `list_agents` first and `read_file` later: the simulator called
    `list_agents` for every such ask, and a user trying the agent in demo mode never saw a
    file read (a live review). A model does what the ask's leading verb says to the file it
    names. Only with a path after the verb: "Write a haiku" asks for no `write_file`."""
    found = file_ask(without_injected(ask))
    if found is None:
        return None
    verb = found[0].lower()
    index = asked_index(names, f"{verb} file")
    return index if index is not None and verb in words(names[index]) else None


def file_ask(text: str) -> tuple[str, str] | None:
    """The verb and the file's path `text` opens with (`_FILE_ASK`: "Read calc.py and ..."
    gives `("Read", "calc.py")`), None where it opens with no verb and path: what picks the
    tool (`file_verb_index`) and what fills a path's field (`scalars.named_file`)."""
    found = _FILE_ASK.match(text)
    return None if found is None else (found.group(1), found.group(2))


def _unprefixed(name: str) -> list[str]:
    """The name's parts after its first `_PREFIXES` separators (`-`, `__`), longest first:
    `mcp__calc__get_weather` gives `calc__get_weather` and `get_weather`."""
    return [name[found.end() :] for found in itertools.islice(_SEPARATOR.finditer(name), _PREFIXES)]


def without_injected(text: str, fill: bool = False) -> str:
    """`text` with each `<system-reminder>...</system-reminder>` and `<system>...</system>`
    pair put as one space, as `re.sub(r"<(system-reminder|system)>.*?</\\1>", " ", text,
    flags=re.S)` has it, in linear time; as spaces of its length with `fill`, each word
    left where it stood (`named_spans`).

    That regex tried every unclosed opening against the whole rest of the text: 16000
    `<system>` in one user message held the simulator's event loop 14 seconds. Here each
    tag's openings and closings are found by `str.find`, each search starting past the last;
    an opening with no closing after it ends that tag (no later opening of it can close),
    and the other tag is still read."""
    kept: list[str] = []
    at = 0
    nxt = {tag: text.find(f"<{tag}>") for tag in _INJECTED_TAGS}
    while True:
        for tag, found in nxt.items():
            if 0 <= found < at:
                nxt[tag] = text.find(f"<{tag}>", at)
        live = [(found, tag) for tag, found in nxt.items() if found >= 0]
        if not live:
            break
        start, tag = min(live)
        inside = start + len(tag) + 2
        close = text.find(f"</{tag}>", inside)
        if close < 0:
            nxt[tag] = -1
            continue
        end = close + len(tag) + 3
        kept += [text[at:start], " " * (end - start) if fill else " "]
        at = end
    kept.append(text[at:])
    return "".join(kept)


@dataclass(frozen=True)
class _Said:
    """A text's words as `_place` reads them: the words (`words`), where each stands in the
    text (`spans`), which open and which close a piece of it (`_TOKEN`), and the words as
    one string (`_spoken`) with each word's index by where it starts there."""

    words: list[str]
    spans: list[tuple[int, int]]
    opens: frozenset[int]
    closes: frozenset[int]
    spoken: str
    index_at: dict[int, int]


def _read(text: str) -> _Said:
    """`text` as `_Said`: each piece's words (`_TOKEN`, then `_WORD` within it)."""
    said: list[str] = []
    spans: list[tuple[int, int]] = []
    opens: set[int] = set()
    closes: set[int] = set()
    for piece in _TOKEN.finditer(text):
        inside = list(_WORD.finditer(piece.group()))
        if not inside:
            continue
        opens.add(len(said))
        for word in inside:
            said.append(word.group().lower())
            spans.append((piece.start() + word.start(), piece.start() + word.end()))
        closes.add(len(said) - 1)
    spoken = _spoken(said)
    index_at: dict[int, int] = {}
    at = 0
    for index, text_word in enumerate(said):
        index_at[at] = index
        at += len(text_word) + 1
    return _Said(said, spans, frozenset(opens), frozenset(closes), spoken, index_at)


def _spoken(said: list[str]) -> str:
    """The words `said` as `_place` searches them: each after a space, one space at the end
    (a word holds no space)."""
    return f" {' '.join(said)} "


def _place(parts: list[str], said: _Said) -> int | None:
    """Where the words `parts` first stand together as whole pieces of the text `said`
    reads (the first word opens a piece, the last closes one: `_places`), None where
    they never do."""
    return next(_places(parts, said), None)


def _places(parts: list[str], said: _Said) -> Iterator[int]:
    """Each index of `said`'s words where the words `parts` stand together, the first
    opening a piece of the text and the last closing one: string searches of the words
    (`_spoken`). Comparing a slice of the words at every place was quadratic: 4000 names of
    100 words, alike but for their case, against an ask of 1000 words held the simulator's
    event loop 8 seconds (found in review)."""
    if not parts:
        return
    target = _spoken(parts)
    at = said.spoken.find(target)
    while at >= 0:
        index = said.index_at[at]
        if index in said.opens and index + len(parts) - 1 in said.closes:
            yield index
        at = said.spoken.find(target, at + 1)


def expression_arguments(schema: dict[str, Any], expression: str) -> dict[str, Any] | None:
    """`{field: expression}` for a tool whose schema is one plain string field (Langflow's
    `evaluate_expression(expression: str)`), else None.

    Only where the schema leaves no doubt where the expression goes: one property, typed
    `string`, with no `enum`, `const`, `format` or `pattern` the expression might break,
    its length within the field's bounds, and nothing else required. A number field takes
    no expression, and a second field would leave which one takes it a guess."""
    props = schema.get("properties")
    if not isinstance(props, dict) or len(props) != 1:
        return None
    ((field, spec),) = props.items()
    if not isinstance(field, str) or not isinstance(spec, dict) or spec.get("type") != "string":
        return None
    if any(key in spec for key in ("enum", "const", "format", "pattern")):
        return None
    least, most = spec.get("minLength", 0), spec.get("maxLength", len(expression))
    if not isinstance(least, int) or not isinstance(most, int):
        return None
    if not least <= len(expression) <= most:
        return None
    required = schema.get("required", [])
    if not isinstance(required, list) or any(name != field for name in required):
        return None
    return {field: expression}


def named_place(field: str, ask: str) -> str:
    """The place `ask` names (`_PLACE`, `_place_named`) where `field` holds a city or
    location (`_holds_place`), its first part alone for a city ("Paris" of "Paris,
    France"); else "". A weather tool's location was "Paris, France" whatever the user
    asked about (found in a live review of kani's weather example)."""
    if not _holds_place(field):
        return ""
    place = _place_named(ask)
    city = "city" in words(field) or field.lower().startswith("city")
    return place.split(",")[0] if city else place


def _holds_place(field: str) -> bool:
    """Whether the field `field` holds a city or location: one of its words is (`city`,
    `home_city`, `location`, `userLocation`: the name as written, its case telling words
    apart), or it starts with one in any case (`cityname`, `Cityname`). A substring was
    taken: `velocity`, `capacity` and `allocation` got the ask's place (found in review)."""
    said = words(field)
    return any(word in _PLACE_FIELDS for word in said) or field.lower().startswith(_PLACE_FIELDS)


def _place_named(ask: str) -> str:
    """The place `ask` names: of the capitalised words after "in", "at", "for" or "near"
    (`_PLACE`), each cut at its first word that names no place (`_NOT_PLACES`), the last
    after "in", else the last after another; "" where none is left.

    The first was taken: "Respond in JSON. What's the weather in Lisbon?" gave "JSON",
    "Book a table for Friday in Rome" "Friday", "at Google HQ in Mountain View" "Google
    HQ" (found in review). "in" names where one is more often than "at" or "for", and an
    ask's instructions ("in JSON", "in English") come before or after its place alike."""
    best, best_in = "", False
    for found in _PLACE.finditer(ask):
        place = _place_part(found.group(2))
        after_in = found.group(1) == "in"
        if place and (after_in or not best_in):
            best, best_in = place, after_in
    return best


def _place_part(words_after: str) -> str:
    """`words_after` up to its first word that names no place ("Paris" of "Paris Today")."""
    end = 0
    for word in _PLACE_WORD.finditer(words_after):
        if word.group().lower() in _NOT_PLACES:
            break
        end = word.end()
    return words_after[:end]


def finishing_index(names: Sequence[str]) -> int | None:
    """Which of the tools `names` sends the answer (BeeAI's and smolagents' `final_answer`,
    a `respond`, `reply` or `finish`), None where none does: the one whose name holds the
    most such words, the first of equals. What a model calls once its tools' results are in:
    the simulator filled BeeAI's `ToolCall` with its first tool every step, and the agent
    never finished (a live review of demo mode)."""
    counts = [sum(word in _FINISHING for word in words(name)) for name in names]
    best = max(counts, default=0)
    return counts.index(best) if best else None
