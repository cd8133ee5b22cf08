"""BAML's output-format block: the schema `{{ ctx.output_format }}` writes into a prompt.

BAML (baml-py 0.226.3, `engine/baml-lib/jinja-runtime/src/output_format/types.rs`) renders a
typed function's return type into its prompt where the prompt says `{{ ctx.output_format }}`,
at its end in almost every prompt: a prefix of BAML's (`_PREFIX`), then the schema, e.g.
"Answer in JSON using this schema:\\n{\\n  title: string,\\n  lines: string[],\\n}". The prefix
tells the type: "Answer in JSON using this schema:" (a class, a map, an optional; "this
interface:" and so on with `hoisted_class_prefix`), "Answer with a JSON Array using this
schema:", "Answer in JSON using any of these schemas:" (a union), "Answer with any of the
categories:" (an enum, its name, "----" and a "- " line a value), "Answer using this specific
value:" (a literal), "Answer as an int" / "a float" / "a bool", "Answer ONLY with null:".

Read with the ask, the block decided the intent: "Write a four-line poem about autumn rain on
a tin roof." was prose 0.99 alone and instruction 0.77 (local) with its schema, an essay
instruction 0.68, a proof instruction 0.45 (found in a live review). It says how the answer
is written, never what is asked, as jupyter-ai's format sentence (`classifier.jupyter_ai`):
so the block is cut from the ask read (`without_format`), the prompt's words before and
after it kept. A prompt that asks nothing else is read as sent.

Only a text's last `_TAIL` characters are searched (`format_block`): BAML puts the block
at the prompt's end, and the classifier keeps only some 2 KB of an ask (`classifier.clip`),
so a 200 KB ask is not searched whole twice a request (1.36 ms, 5.40 ms when it said
"Answer as"). A block that opens further from the end is read as written.

Not read: a custom `prefix=` of `ctx.output_format(prefix=...)` (any words at all), and the
definitions BAML hoists before the prefix (a recursive class's `Node {...}`, an enum of more
than six values or with descriptions): those are read as written.
"""

from __future__ import annotations

import re
from collections import deque
from typing import NamedTuple

from classifier.templates import text_of, with_text

# BAML's prefixes (`OutputFormatContent::prefix`, `auto_prefix`): a type's schema follows,
# on the next line, or on the same line after a space (a hoisted class's name)
_PREFIX = re.compile(
    r"Answer (?:in JSON using (?:this \w+|any of these schemas)"
    r"|with a JSON Array using this schema|with any of the categories"
    r"|using this specific value|ONLY with null):"
    r"|Answer as an? (?:int|float|bool)\b"
)
# The prefixes' common opening, searched for before the pattern: most prompts hold none
_OPENING = "Answer "
# Characters at a text's end searched for the block: its prefix must open within them. A
# schema is a line a field (an indented line per nested field, a "// " line per
# description): a class of 200 described fields is some 16 KB, more than any schema a
# model is asked to fill in one answer; twice that leaves room for the words after it.
_TAIL = 32 * 1024


class Block(NamedTuple):
    """Where BAML's output-format block is in a text, and its schema's text."""

    start: int  # the prefix's first character
    end: int  # after the schema's last line
    schema: str  # the schema as written, "" after a prefix that needs none ("Answer as an int")
    array: bool  # an array's prefix ("Answer with a JSON Array ...")


def format_block(text: str) -> Block | None:
    """BAML's output-format block in `text` (its last: BAML renders one a prompt), or None;
    only one whose prefix opens in the last `_TAIL` characters (BAML writes it at the end)."""
    tail = max(0, len(text) - _TAIL)
    if text.find(_OPENING, tail) < 0:
        return None
    found = next(iter(deque(_PREFIX.finditer(text, tail), maxlen=1)), None)  # the last
    if found is None:
        return None
    after = found.end()
    if text.startswith(" ", after):  # a hoisted class's name on the prefix's line
        end = _line_end(text, after)
        return Block(found.start(), end, text[after:end].strip(), False)
    if not text.startswith("\n", after):  # "Answer as an int": the prefix says it all
        return Block(found.start(), after, "", False)
    start = after + 1
    end = _schema_end(text, start, categories="categories" in found.group())
    return Block(found.start(), end, text[start:end], "Array" in found.group())


def _line_end(text: str, at: int) -> int:
    """Where the line holding `at` ends (its line break's index, or the text's end)."""
    end = text.find("\n", at)
    return len(text) if end < 0 else end


def _schema_end(text: str, start: int, categories: bool) -> int:
    """Where the schema that opens at `start` ends: an object's or array's at its closing
    line (a brace or bracket at the line's start, BAML indents the ones inside; "} or {" goes
    on to the union's next schema), an enum's after its "----" and "- " lines, any other
    after its one line."""
    first = _line_end(text, start)
    line = text[start:first]
    if line in ("{", "["):
        closing = "}" if line == "{" else "]"
        at = first
        while at < len(text):
            end = _line_end(text, at + 1)
            if text[at + 1 : end] == closing:
                return end
            at = end
        return len(text)
    if not categories:
        return first
    at = first
    while at < len(text):
        end = _line_end(text, at + 1)
        if not text.startswith(("----", "- ", "  "), at + 1):
            return at
        at = end
    return len(text)


def without_format(text: str) -> str | None:
    """`text` without BAML's output-format block (`format_block`): the words before it and
    after it, a blank line apart; None where it holds none, or nothing but it."""
    block = format_block(text)
    if block is None:
        return None
    before, after = text[: block.start].rstrip(), text[block.end :].strip()
    words = f"{before}\n\n{after}" if before and after else before or after
    return words or None


def task_ask(message: object) -> object:
    """The content of the ask `message` without BAML's output-format block
    (`without_format`), when its one text (`classifier.templates.text_of`: a string, or a
    text part, images beside it) holds one and other words, a text part's parts copied
    (`with_text`); any other content as it is (the same object)."""
    content = message.get("content") if isinstance(message, dict) else None
    text = text_of(content)
    words = without_format(text) if text is not None else None
    return content if words is None else with_text(content, words)
