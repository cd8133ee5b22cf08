"""Turn a `RequestView` into weighted sparse features: words, 5-char prefixes, CJK
characters, shape cues (code, LaTeX, equations, output constraints) and multilingual
meaning cues. Word bigrams were tried and dropped: no gain on held-out sources, twice the cost.

Features are plain strings so the model file stays readable and `explain()` can name them.
The same function serves training and classification, so the two never drift apart.
Tokenising uses C-level `bytes.translate` and `str.split` rather than a regex: on one core
that is five times faster, which is what keeps classification under a tenth of a millisecond.
CJK text, split into one token per character, is split by whole-chunk regex passes and
`list.extend`, not a regex match per character.
"""

from __future__ import annotations

import math
import re
import string
from collections.abc import Iterable, Mapping
from typing import TypeVar

from classifier.lexicon import CJK, WORD_CONCEPT
from classifier.request import RequestView

_PUNCT = string.punctuation.encode()
_SPLIT = bytes.maketrans(_PUNCT, b" " * len(_PUNCT))
_CJK = r"\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af"
_CJK_CHARS = re.compile(f"[{_CJK}]")
_WORD_CHARS = re.compile(r"[^\W_]+")
_CJK_RUN = re.compile(f"[{_CJK}]+")
# a chunk whose only letters and digits are CJK: its tokens are those characters, in order
_CJK_WORDS_ONLY = re.compile(f"(?:[{_CJK}]|[\\W_])+")
_NOT_WORD = re.compile(r"[\W_]+")
_SYMBOLS = {"code": "{};", "math": "=+^", "latex": "$\\", "paren": "()"}
_EQUATION = re.compile(r"[0-9] ?[-+*/^=×÷] ?[0-9(]")
_CODE_HINTS = ("```", "\n    ", "\n\t", "def ", "import ", "();", "=>", "</", "#include")
_TRACE_HINTS = ("Traceback", "Error:", "Exception", "error[", "panic:", "undefined")
_COUNT_HINTS = ("exactly ", "at least ", "at most ", "no more than ", "fewer than ")
# Phrases that put a constraint on the *output*: the mark of an instruction-following request.
_FORMAT_PHRASES = (
    "your response",
    "your answer",
    "your entire",
    "your reply",
    "your output",
    "the response",
    "the answer must",
    "the output",
    "each word",
    "every word",
    "each sentence",
    "every sentence",
    "each paragraph",
    "each line",
    "every line",
    "each section",
    "each item",
    "words long",
    " words.",
    " times.",
    "times in",
    "in all lowercase",
    "in all capital",
    "all caps",
    "capital letters",
    "lowercase letters",
    "do not use",
    "don't use",
    "without using",
    "avoid using",
    "must not",
    "must begin",
    "must start",
    "must end",
    "must contain",
    "must include",
    "must be",
    "should be in",
    "wrap your",
    "wrapped in",
    "highlight",
    "placeholder",
    "p.s.",
    "postscript",
    "separated by",
    "separator",
    "bullet point",
    "markdown",
    "json",
    "in the format",
    "the letter",
    "letters",
    "characters",
    "syllable",
    "ratio",
    "alternate",
    "palindrome",
    "keyword",
    "exactly",
    "at least",
    "at most",
    "no more than",
    "less than",
    "fewer than",
    "end with",
    "start with",
    "begin with",
    "only output",
    "respond with",
    "answer with",
)
# Phrases that only say how to present a problem's *final answer*: they make a puzzle or a
# calculation checkable without making it an instruction-following request.
_ANSWER_PHRASES = (
    "\\boxed",
    "final answer",
    "only the letter",
    "only the number",
    "only the name",
    "only the year",
    "just the number",
    "just the letter",
    "the correct option",
    "the correct answer",
)
# English letters and the space, the rarest first (`_keyed`)
_RAREST_FIRST = "zqxjkvbpygfwmucldrhsnioate "
Needles = tuple[tuple[str, str], ...]  # (the needle's rarest character, the needle)
HEAD_TOKENS = 160
TAIL_TOKENS = 40
SHAPE_CHARS = 1200
# The features that come from reading words: a word, a number (`w:0`) or a CJK character
# (`w:`), a 5-character prefix (`p:`), a meaning cue that words or phrases name (`m:`). The
# shape cues (`f:`: length, symbols, a closing `?`) and the constraint detector's score
# (`c:`) fire on any text, words known or not: alone, L2 normalisation lifts one of them to
# full weight, and "asdf" read as instruction at 0.99.
LEXICAL = ("w:", "p:", "m:")


def _by_first_word(phrases: tuple[str, ...]) -> dict[str, Needles]:
    out: dict[str, Needles] = {}
    for phrase in phrases:
        first = tokens(phrase)[0]
        out[first] = (*out.get(first, ()), *_keyed((phrase,)))
    return out


def _keyed(needles: tuple[str, ...]) -> Needles:
    """Each needle with its rarest character (anything but a lower-case letter or a space,
    else the rarest letter), which `_present` looks for first: one fast C scan for a
    character skips the slower search for the needle in most texts, and the hints and
    phrases are searched in every request (a sixth of a long English message's time)."""
    return tuple((min(needle, key=_RAREST_FIRST.find), needle) for needle in needles)


def tokens(text: str) -> list[str]:
    """Lower-cased word tokens; CJK runs split into characters; numbers collapse to `0`."""
    out: list[str] = []
    try:
        raw = text.lower().encode()
    except UnicodeEncodeError:  # lone surrogates (undecodable argv): each becomes a break
        raw = text.lower().encode(errors="replace")
    for tok in raw.translate(_SPLIT).decode().split():
        if tok.isascii():
            out.append("0" if tok[0].isdigit() else tok)
        elif _CJK_WORDS_ONLY.fullmatch(tok):  # most Chinese or Japanese text: two C passes
            out.extend(_NOT_WORD.sub("", tok))
        elif _CJK_CHARS.search(tok):
            for piece in _WORD_CHARS.findall(tok):
                if not _CJK_CHARS.match(piece):
                    out.append(piece)
                elif _CJK_RUN.fullmatch(piece):  # the common case: a character per token, in C
                    out.extend(piece)
                else:
                    out.extend(_CJK_CHARS.findall(piece))
        else:
            out.extend(_WORD_CHARS.findall(tok))
    return out


_FORMAT_FIRST = _by_first_word(_FORMAT_PHRASES)
_HINTS = (
    ("code", _keyed(_CODE_HINTS)),
    ("trace", _keyed(_TRACE_HINTS)),
    ("count", _keyed(_COUNT_HINTS)),
)
_ANSWER_KEYED = _keyed(_ANSWER_PHRASES)
_CJK_BY_FIRST: dict[str, list[tuple[str, str]]] = {}  # first character -> (concept, word)
for _concept, _words in CJK.items():
    for _word in _words:
        _CJK_BY_FIRST.setdefault(_word[0], []).append((_concept, _word))


def _bucket(n: int) -> int:
    return min(int(math.log2(n + 1)), 12)


def _format_cues(low: str, words: set[str]) -> int:
    """How many output-constraint phrases occur; only phrases whose first word is present
    are searched, which skips most of the list for most texts."""
    return _present(low, [p for w in words & _FORMAT_FIRST.keys() for p in _FORMAT_FIRST[w]])


def _present(text: str, needles: Iterable[tuple[str, str]]) -> int:
    """How many of `needles` (`_keyed`) occur in `text`. A plain loop: in CPython 3.11 it
    takes a third fewer instructions than sum() over a generator or over map()."""
    n = 0
    for rarest, needle in needles:
        if rarest in text and needle in text:
            n += 1
    return n


def _occurrences(text: str, chars: str) -> int:
    """How often any of `chars` occurs in `text` (a loop, for the same reason)."""
    n = 0
    for char in chars:
        n += text.count(char)
    return n


def _shape(text: str, feats: dict[str, float], words: set[str]) -> None:
    """Cheap whole-text cues: length, code, stack traces, LaTeX, equations, counts."""
    feats[f"f:len{_bucket(len(text))}"] = 1.0
    for name, chars in _SYMBOLS.items():
        n = _occurrences(text, chars)
        if n:
            feats[f"f:{name}{min(_bucket(n), 4)}"] = 1.0
    for name, hints in _HINTS:
        n = _present(text, hints)
        if n:
            feats[f"f:{name}{min(n, 3)}"] = 1.0
    low = text.lower()
    n = _format_cues(low, words)
    if n:
        feats[f"f:format{min(n, 6)}"] = 1.0
        feats["m:format"] = math.sqrt(n)
    if _present(low, _ANSWER_KEYED):
        feats["m:answer"] = 1.0
    if _EQUATION.search(text[:600]):
        feats["f:equation"] = 1.0
    if text.rstrip().endswith(("?", "？")):
        feats["f:asks"] = 1.0
    if not text.isascii() and _CJK_CHARS.search(text):
        feats["f:cjk"] = 1.0
        found = _cjk_concepts(text)
        for concept in CJK:  # in the table's order, as the features were always added
            if concept in found:
                feats["m:" + concept] = feats.get("m:" + concept, 0.0) + 1.0


def _cjk_concepts(text: str) -> set[str]:
    """The concepts whose CJK words occur in `text`. A word is searched for only when its
    first character occurs (one fast C scan, shared by the words that begin with it):
    searching all ~90 words of `CJK` in a CJK text, each a slower two-character search, was
    a sixth of a long Chinese message's time (docs/benchmarks.md, 2026-12-03)."""
    found: set[str] = set()
    for first, words in _CJK_BY_FIRST.items():
        if first in text:
            for concept, word in words:
                if concept not in found and word in text:
                    found.add(concept)
    return found


def read_tokens(text: str, head: int, tail: int) -> list[str]:
    """The tokens a segment reads: its first `head` and last `tail` (with no tail, the rest
    of a long text, e.g. a system prompt, is not even tokenised)."""
    if not tail:  # `toks[-0:]` would be every token again
        return tokens(text[: head * 16])[:head]
    return head_and_tail(tokens(text), head, tail)


def head_and_tail(toks: list[str], head: int, tail: int) -> list[str]:
    """The first `head` and last `tail` (at least one) of a text's tokens `toks`."""
    return toks if len(toks) <= head + tail else toks[:head] + toks[-tail:]


# word -> the concept features (`m:`) it names
CONCEPT_FEATURES: dict[str, tuple[str, ...]] = {
    w: tuple("m:" + c for c in cs) for w, cs in WORD_CONCEPT.items()
}
# token -> the features it fires (word, 5-char prefix) and the concepts it names. Real
# traffic repeats a small vocabulary, so the string work happens once per word per process.
_TOKEN_CACHE: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}
# Entries in each of the three per-process token caches (this one, `IntentModel.token_index`,
# `ConstraintDetector.token_cache`). The training and held-out texts hold ~37,000 distinct
# tokens (English, Chinese, code), which fit; full, the three cost ~30 MB. At 200,000 prompts
# of random words filled them in ~1,200 requests and grew the process by ~110 MB, against the
# 150 MB idle target; at 20,000 the corpus's own words cleared them over and over, ~25 % more
# CPU a request (docs/benchmarks.md, "Token caches", 2026-12-03).
TOKEN_CACHE_MAX = 50_000
CACHED_TOKEN_CHARS = 40  # longer "words" (a run of 2,000 letters, a hash) are not vocabulary
_V = TypeVar("_V")


def remember(cache: dict[str, _V], tok: str, value: _V) -> None:
    """Keep `value` for `tok` in one of the per-process token caches, bounded against text
    that never repeats: a long token is not kept (it would cost kilobytes and never recur),
    and a full cache starts over rather than stop learning the words that do recur."""
    if len(tok) > CACHED_TOKEN_CHARS:
        return
    if len(cache) >= TOKEN_CACHE_MAX:
        cache.clear()
    cache[tok] = value


def token_entry(tok: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    entry = _TOKEN_CACHE.get(tok)
    if entry is None:
        fired = ("w:" + tok, "p:" + tok[:5]) if len(tok) > 5 else ("w:" + tok,)
        entry = (fired, CONCEPT_FEATURES.get(tok, ()))
        remember(_TOKEN_CACHE, tok, entry)
    return entry


def segment_features(
    text: str, head: int = HEAD_TOKENS, tail: int = TAIL_TOKENS
) -> dict[str, float]:
    """Binary features of one text, read from a bounded head and tail of its tokens."""
    feats: dict[str, float] = {}
    if not text:
        return feats
    toks = read_tokens(text, head, tail)
    concepts: dict[str, float] = {}
    for tok in toks:
        fired, named = token_entry(tok)
        for feat in fired:
            feats[feat] = 1.0
        for concept in named:
            concepts[concept] = concepts.get(concept, 0.0) + 1.0
    feats.update(named_cues(text, toks, concepts))
    return feats


def named_cues(text: str, toks: list[str], concepts: Mapping[str, float]) -> dict[str, float]:
    """A segment's few named features after its words: concept cues (counted occurrences,
    square-rooted) and whole-text shape cues."""
    named = {key: math.sqrt(count) for key, count in concepts.items()}
    _shape(text[:SHAPE_CHARS], named, set(toks))
    return named


def features(v: RequestView) -> dict[str, float]:
    """Weighted features of a request: the latest user message counts most."""
    out = segment_features(v.latest)
    for name, weight, head in (("first", 0.5, 60), ("system", 0.15, 30)):
        text: str = getattr(v, name)
        if text:
            for feat, value in segment_features(text, head, 0).items():
                out[feat] = out.get(feat, 0.0) + weight * value
    return out


def text_features(text: str) -> dict[str, float]:
    """Features of a bare prompt, as if it were the only user message."""
    return features(RequestView(latest=text))
