"""DSPy 2.x's texts (dsp's template, STORM's): what a call asks, and the fields it asks for.

DSPy 2.x (2.4.9, which knowledge-storm 1.1.1 pins: `dsp/templates/template_v2.py`,
`TemplateV2.__call__` at 199-281, `guidelines` at 116-129, `query` at 71-114) sends a call as
one user message (a client's system prompt before it at most: `classifier.dspy`): its parts
a line "---" apart (`LEGACY_PARTS`), the signature's instructions, its guidelines ("Follow the
following format.", `GUIDELINES`, then each field's prefix and description, "Topic of
interest: ${topic}", one a line or, a long template's, a blank line apart), its demos, and
the call's query: each field with a value, its prefix and value, then the prefix of the first
without one (its output's) at its end, which the model continues. A ChainOfThought's
rationale is an output field before the others
("Reasoning: Let's think step by step in order to ${produce the answer}. We ...",
`dspy/predict/chain_of_thought.py` at 37-40), which dsp's retry after a reply that lacks a field
(`dsp/primitives/predict.py` at 85-112) sends filled in. Read as sent, the template's words
decided: STORM's section writing was instruction (local) at 0.94 by its output prefix ("Write
the section with proper inline citations (Start your writing with # section title. ..."), its
search queries sometimes coding; and the key, a prompt's first 2,048 characters of template,
made three sections of one article one conversation (found in a live review). So a call sent
so is read by its instructions' first line and its query's input values, a line apart,
without the prefixes, the guidelines, the demos, the output prefix or a rationale
(`legacy_ask`): the key hashes that too, and a call and its retry key alike. The first line
of a signature's docstring says its task ("Write a Wikipedia section based on the collected
information."); STORM's lines after it are its format rules ("1. Use "#" Title" to indicate
section title, ..."), read as constraints: with them, a section was still instruction at
0.65, without them writing at 0.79 (DSPy 3 puts them in its system prompt, which weighs
less). Called without guidelines (`show_guidelines=False`: STORM's search queries, expert
answers, lead section), a query's prefixes are nowhere told apart from its values: read as
sent.

A module of its own, not `classifier.dspy`'s: dsp's template shares nothing with DSPy 3's
adapters (a system prompt of the signature's fields, each input a "[[ ## field ## ]]" section
of the user message) but the name; it is one user message, read by its guidelines'
prefixes. `classifier.dspy.task_ask` reads a request by it when no DSPy 3 system prompt frames
it, and the simulator answers such a call in the fields it asks for (`legacy_outputs`).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from classifier.message import per_text

# Fields read of a template's guidelines, at most, as of a DSPy 3 signature
# (`classifier.dspy`): DSPy's modules declare a handful, and each is another look through the
# query
FIELDS_READ = 32
# How far a text of dsp's (the guidelines' end, a field's prefix in the query) is looked for
# past the last: past it, the text is read as written
WITHIN = 65_536

# DSPy 2.x's template (`dsp/templates/template_v2.py`): how its parts are joined (`__call__`),
# how its guidelines open (`guidelines`), a description's placeholder, and a ChainOfThought
# rationale's description (`dspy/predict/chain_of_thought.py`)
LEGACY_PARTS = "\n\n---\n\n"
GUIDELINES = LEGACY_PARTS + "Follow the following format.\n\n"
PLACEHOLDER = "${"
RATIONALE = "${produce the "
# A signature's instructions when it has none of its own (`dspy/signatures/signature.py` at
# 23-26, `_default_instructions`): DSPy's words, no task, as in DSPy 3's system prompt
DEFAULT_INSTRUCTIONS = re.compile(
    r"Given the fields `\w+`(?:, `\w+`)*, produce the fields `\w+`(?:, `\w+`)*\."
)


class LegacyField(NamedTuple):
    """A field of a DSPy 2.x template, as its guidelines show it."""

    prefix: str  # what opens its line in a query: "Topic of interest:"
    separator: str  # between its prefix and its value: " ", or a line break
    rationale: bool  # a ChainOfThought's rationale: the model's words, no input


class _Query(NamedTuple):
    """A DSPy 2.x call's query: its template's fields, and each field it shows (its index
    in `fields`, where its value starts and ends)."""

    fields: tuple[LegacyField, ...]
    shown: list[tuple[int, int, int]]


@per_text
def legacy_ask(content: str) -> str | None:
    """The first line of the instructions (none of DSPy's default ones) and the input values
    of a DSPy 2.x call's prompt `content`, a line apart; None when `content` is not one
    (`_legacy_query`): a rationale's value and the empty output prefix at the end are left
    out. Read once for a text (`classifier.message.per_text`): the classifier and the
    conversation key both ask."""
    query = _legacy_query(content)
    if query is None:
        return None
    values = [
        content[start:end].strip()
        for index, start, end in query.shown
        if not query.fields[index].rationale
    ]
    task = content[: content.find(GUIDELINES)].strip().split("\n", 1)[0]
    if DEFAULT_INSTRUCTIONS.fullmatch(task):
        task = ""
    return "\n".join(text for text in (task, *values) if text)


def legacy_outputs(content: str) -> tuple[LegacyField, ...]:
    """The fields a DSPy 2.x call's prompt `content` asks the model to write, in order: the
    one whose prefix ends its query, with no value, and each after it. dsp parses a reply
    so (`TemplateV2.extract`, at 136-197): the first's value, then each next field's prefix
    opening a line. None of any other text."""
    query = _legacy_query(content)
    if query is None or not query.shown:
        return ()
    index, start, end = query.shown[-1]
    return () if content[start:end].strip() else query.fields[index:]


@per_text
def _legacy_query(content: str) -> _Query | None:
    """The query of a DSPy 2.x call's prompt `content`; None when `content` is not one (no
    guidelines within `WITHIN` of its start, or no query after them). The query is the last
    text after the guidelines that opens with the first field's prefix after a blank line
    (a demo opens so too, and comes before it)."""
    guide = content.find(GUIDELINES, 0, WITHIN)
    start = guide + len(GUIDELINES)
    end = content.find(LEGACY_PARTS, start, start + WITHIN) if guide >= 0 else -1
    fields = _legacy_fields(content[start:end]) if end >= 0 else ()
    query = content.rfind("\n\n" + fields[0].prefix, end) if fields else -1
    return None if query < 0 else _Query(fields, _shown(content, query + 2, fields))


def _legacy_fields(guidelines: str) -> tuple[LegacyField, ...]:
    """The fields the guidelines `guidelines` show, in order, the first `FIELDS_READ`: a
    blank line apart in a long template (its lines may hold a field's prefix and its
    description), else a line apart; none when one has no prefix. A prefix is what comes
    before its description's placeholder (`${topic}`; a rationale's prefix holds "Let's
    think step by step in order to"), else its text to its first colon. Two fields of one
    prefix are no template's (dsp tells a reply's fields by their prefixes): read as sent, not
    looked for again and again through the query (found in review)."""
    entries = guidelines.split("\n\n" if "\n\n" in guidelines else "\n", FIELDS_READ)
    fields: list[LegacyField] = []
    for entry in entries[:FIELDS_READ]:
        placeholder = entry.find(PLACEHOLDER)
        colon = entry.find(":")
        prefix = entry[:placeholder] if placeholder >= 0 else entry[: colon + 1]
        if not prefix.strip():
            return ()
        separator = "\n" if "\n" in prefix else " "
        rationale = placeholder >= 0 and entry.startswith(RATIONALE, placeholder)
        fields.append(LegacyField(prefix.rstrip(), separator, rationale))
    prefixes = {field.prefix for field in fields}
    return tuple(fields) if len(prefixes) == len(fields) else ()


def _shown(content: str, start: int, fields: tuple[LegacyField, ...]) -> list[tuple[int, int, int]]:
    """The fields the query at `start` of `content` shows, which opens with the first of
    `fields`: each field's prefix opens a line, in order, each looked for within `WITHIN`
    past the last (a field without a value is left out of a query); each's index, where
    its value starts and where it ends."""
    found: list[tuple[int, int, int]] = []  # a field's index, where its prefix starts, its value
    at = start
    for index, field in enumerate(fields):
        where = at if not found else _line_opening(content, field.prefix, at, at + WITHIN)
        if where >= 0:
            found.append((index, where, where + len(field.prefix)))
            at = where + len(field.prefix)
    ends = [where - 1 for _, where, _ in found[1:]] + [len(content)]
    return [(index, value, end) for (index, _, value), end in zip(found, ends, strict=True)]


def _line_opening(text: str, prefix: str, start: int, last: int) -> int:
    """Where `prefix` first opens a line of `text` from `start` to `last`, followed by white
    space or the text's end (a prefix that opens a longer one is not it), or -1: one look of
    the regular expression's (`_opening`), not a Python loop over each line the prefix opens
    (a query of many such lines, looked through for each field, took 170 ms: found in
    review)."""
    # The text to the character after a prefix whose line break is at `last`: one there is
    # followed by the text's own character, not the end of the text searched
    match = _opening(prefix).search(text, start, last + len(prefix) + 2)
    return -1 if match is None or match.start() > last else match.start() + 1


@lru_cache(maxsize=FIELDS_READ)
def _opening(prefix: str) -> re.Pattern[str]:
    """A line break and `prefix`, followed by white space or the end of the text."""
    return re.compile("\n" + re.escape(prefix) + r"(?!\S)")
