"""`classify()`'s hot path: the numbers `features()` then `IntentModel.known()` give, without
building a feature name per token.

Most of a request's features are one word and one prefix per token; naming them ("w:" +
token) and looking the names up again cost more than the arithmetic. Here each token maps,
once per process and model, straight to its vocabulary indices. Shape and concept features
(a handful) still go through their names. Insertion order, sums and the normalisation are
the same as on the named path, so the scores are identical to the last bit; a test holds the
two paths together, and `explain()` and training keep the named one.
"""

from __future__ import annotations

import math
from itertools import chain

from classifier.features import (
    CONCEPT_FEATURES,
    HEAD_TOKENS,
    TAIL_TOKENS,
    head_and_tail,
    named_cues,
    read_tokens,
    remember,
    token_entry,
)
from classifier.model import IntentModel
from classifier.reading import read
from classifier.request import RequestView

CONTEXT_CACHE_MAX = 512
_NAMES_A_CONCEPT = CONCEPT_FEATURES.__contains__


def known(m: IntentModel, v: RequestView) -> tuple[list[int], list[float]]:
    """Indices and L2-normalised values of the known features of a request."""
    latest = read(v.latest) if v.latest else None  # one tokenisation for both readers
    out: dict[int, float] = {}
    if latest is not None:
        toks = head_and_tail(latest.tokens, HEAD_TOKENS, TAIL_TOKENS)
        out = _indexed(m, v.latest, toks)
    for text, weight, head in ((v.first, 0.5, 60), (v.system, 0.15, 30)):
        if text:
            for i, value in _context(m, text, head).items():
                out[i] = out.get(i, 0.0) + weight * value
    if latest is not None and m.detector.vocab:  # `ConstraintDetector.features(v.latest)`
        verdict = m.detector.judge(v.latest, latest.sentences, latest.sentence_tokens)
        for name, value in verdict.features().items():
            found = m.index.get(name)
            if found is not None:
                out[found] = value
    vals = list(out.values())
    norm = math.sqrt(sum(x * x for x in vals)) or 1.0
    return list(out), [x / norm for x in vals]


def _context(m: IntentModel, text: str, head: int) -> dict[int, float]:
    """The first user message's or the system prompt's features, read only (shared).

    An agent resends both unchanged on every turn of its loop, so they are computed once per
    conversation: hashing the clipped text costs about a microsecond, reading it ~30-70. The
    cache is emptied when full, which bounds it against text that never repeats.
    """
    cache, key = m.context_index, (text, head)
    hit = cache.get(key)
    if hit is None:
        hit = _segment(m, text, head, 0)
        if len(cache) >= CONTEXT_CACHE_MAX:
            cache.clear()
        cache[key] = hit
    return hit


def _segment(m: IntentModel, text: str, head: int, tail: int) -> dict[int, float]:
    """`segment_features(text, head, tail)` reduced to the model's vocabulary, by index."""
    if not text:
        return {}
    return _indexed(m, text, read_tokens(text, head, tail))


def _indexed(m: IntentModel, text: str, toks: list[str]) -> dict[int, float]:
    """The indexed features of `text`, whose tokens read are `toks`: each token's word and
    prefix indices in order of first firing, as the named path inserts its features, then
    the concept and shape cues by name. The indices are gathered by `map`, `chain` and
    `dict.fromkeys`, in C: a Python loop over the tokens took half as long again for a long
    message (docs/benchmarks.md, 2026-12-03)."""
    try:  # every token met before (traffic repeats its words)
        out = dict.fromkeys(chain.from_iterable(map(m.token_index.__getitem__, toks)), 1.0)
    except KeyError:  # a token met for the first time, or one too long to keep
        out = dict.fromkeys(chain.from_iterable([_token_indices(m, t) for t in toks]), 1.0)
    concepts: dict[str, float] = {}
    for tok in filter(_NAMES_A_CONCEPT, toks):  # a few tokens name a concept
        for concept in CONCEPT_FEATURES[tok]:
            concepts[concept] = concepts.get(concept, 0.0) + 1.0
    index = m.index
    for name, value in named_cues(text, toks, concepts).items():
        found = index.get(name)
        if found is not None:
            out[found] = value
    return out


def _token_indices(m: IntentModel, tok: str) -> tuple[int, ...]:
    """The vocabulary indices of the features `tok` fires, kept in `m.token_index`."""
    cache = m.token_index
    hit = cache.get(tok)
    if hit is None:
        index = m.index
        hit = tuple(index[f] for f in token_entry(tok)[0] if f in index)
        remember(cache, tok, hit)  # the same bounds as the named path's cache
    return hit
