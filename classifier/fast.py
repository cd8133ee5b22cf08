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

from classifier.features import (
    HEAD_TOKENS,
    TAIL_TOKENS,
    named_cues,
    read_tokens,
    remember,
    token_entry,
)
from classifier.model import IntentModel
from classifier.request import RequestView

CONTEXT_CACHE_MAX = 512


def known(m: IntentModel, v: RequestView) -> tuple[list[int], list[float]]:
    """Indices and L2-normalised values of the known features of a request."""
    out = _segment(m, v.latest, HEAD_TOKENS, TAIL_TOKENS)
    for text, weight, head in ((v.first, 0.5, 60), (v.system, 0.15, 30)):
        if text:
            for i, value in _context(m, text, head).items():
                out[i] = out.get(i, 0.0) + weight * value
    for name, value in m.detector.features(v.latest).items():
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
    out: dict[int, float] = {}
    if not text:
        return out
    toks = read_tokens(text, head, tail)
    cache = m.token_index
    index = m.index
    concepts: dict[str, float] = {}
    for tok in toks:
        hit = cache.get(tok)
        if hit is None:
            fired, named = token_entry(tok)
            hit = (tuple(index[f] for f in fired if f in index), named)
            remember(cache, tok, hit)  # the same bounds as the named path's cache
        for i in hit[0]:
            out[i] = 1.0
        for concept in hit[1]:
            concepts[concept] = concepts.get(concept, 0.0) + 1.0
    for name, value in named_cues(text, toks, concepts).items():
        found = index.get(name)
        if found is not None:
            out[found] = value
    return out
