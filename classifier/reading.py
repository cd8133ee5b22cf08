"""One tokenisation of the latest user message, for both of its readers.

The features read the message's tokens (`features.read_tokens`), the constraint detector
its sentences' tokens (`constraint.each_sentence_tokens`): two passes over the same text,
the second about a tenth of a long message's time (docs/benchmarks.md, 2026-12-03). Here
the message is cut into the sentences the detector reads and the lines between them,
joined by the detector's NUL marks and tokenised once: the marks give each sentence its
tokens and, dropped, leave the message's.

Dropping the marks gives `tokens(text)` because a sentence ends at whitespace (a line
break, the space after ". "), which no token spans and `lower` reads as the end of a word,
with one exception: a CJK stop (。！？) ends a sentence with no space after it, and what
follows it up to the next space, read alone, may be an ASCII token: "。1abc" gives "0",
read whole "1abc"; a control character is dropped inside CJK text and a token alone. A
message with a CJK stop followed by a digit, or by letters and a control character
(`_CUT_CHANGES`), or holding a NUL itself takes the two passes, as before.
"""

from __future__ import annotations

import re
from itertools import chain
from typing import NamedTuple

from classifier import features
from classifier.constraint import (
    JOIN,
    MARK,
    MAX_SENTENCES,
    MIN_CHARS,
    each_sentence_tokens,
    lines,
    sentences,
    split_at_marks,
)

# A CJK stop whose sentence cut could change a token (see above). Upper-case letters count:
# `lower` makes them ASCII, and so the Kelvin sign.
_CUT_CHANGES = re.compile("[。！？](?:[0-9]|[0-9A-Za-z\u212a]*[\x00-\x08\x0e-\x1b\x7f])")


class Reading(NamedTuple):
    """A text's `tokens`, the `sentences` the detector reads and each sentence's
    `sentence_tokens`."""

    tokens: list[str]
    sentences: list[str]
    sentence_tokens: list[list[str]]


def read(text: str) -> Reading:
    """`tokens(text)`, `sentences(text)` and `each_sentence_tokens` of those, from one
    `tokens` call when the sentence cuts cannot change a token, from two otherwise."""
    if MARK in text or (not text.isascii() and _CUT_CHANGES.search(text)):
        parts = sentences(text)
        return Reading(features.tokens(text), parts, each_sentence_tokens(parts))
    segments, kept = _segments(lines(text))
    if len(segments) == 1:  # one sentence, or one run of short lines: no marks to cut at
        each = [features.tokens(segments[0])]
        every = each[0]
    else:
        each = split_at_marks(features.tokens(JOIN.join(segments)), len(segments))
        every = list(chain.from_iterable(each))
    return Reading(every, [segments[i] for i in kept], [list(dict.fromkeys(each[i])) for i in kept])


def _segments(cut: list[str]) -> tuple[list[str], list[int]]:
    """The texts to tokenise apart: each sentence the detector reads on its own, the lines
    between them (and all after the last) joined by line breaks; and the sentences' places.
    Runs of short lines stay one text, so a message of many blank lines adds few marks.

    Empty lines cost no Python step: `filter` skips them and `index` finds a
    sentence's place, both in C (the first line equal to it from `start` is that sentence,
    as an equal line is a sentence too)."""
    segments: list[str] = []
    kept: list[int] = []
    start = 0
    for line in filter(None, cut):
        if len(line.strip()) >= MIN_CHARS:
            i = cut.index(line, start)
            if start < i:
                segments.append("\n".join(cut[start:i]))
            kept.append(len(segments))
            segments.append(line)
            start = i + 1
            if len(kept) == MAX_SENTENCES:
                break
    if start < len(cut):
        segments.append("\n".join(cut[start:]))
    return segments, kept
