"""The hot path (`classifier.fast`) gives exactly what the named path gives."""

from __future__ import annotations

import gc
import random
import string
import tracemalloc
from typing import Any

import pytest

from classifier import classify, fast, features
from classifier.constraint import SCORE
from classifier.corpus import load
from classifier.decision import model, request_features
from classifier.evaluation import PROBES, body
from classifier.intent import Intent
from classifier.request import view


def agent(latest: str) -> dict[str, Any]:
    return {
        "messages": [
            {"role": "system", "content": "You are a careful coding agent. " * 80},
            {"role": "user", "content": "Fix the failing test in tests/test_api.py"},
            {"role": "assistant", "content": "Looking."},
            {"role": "user", "content": latest},
        ],
        "tools": [{"type": "function", "function": {"name": "read_file"}}],
    }


def test_fast_indices_and_values_equal_the_named_path_to_the_bit() -> None:
    m = model()
    texts = [r.text for r in load("validation")] + [p.text for p in PROBES]
    bodies = [body(t) for t in texts] + [agent(t) for t in texts[::25]]
    constrained = 0
    for b in bodies:
        v = view(b)
        feats = request_features(m, v, m.detector.read(v.latest))
        idx, vals, _ = m.known(feats)
        assert fast.known(m, v) == (idx, vals)
        constrained += feats.get(SCORE, 0.0) > 0.5
    assert constrained > 100  # the constraint detector's features were compared too
    assert m.token_index  # the cache was used
    # every agent body shares one system prompt and first message: all but the first read
    # them from the context cache, and still equal the named path above
    shared = view(agent("x"))
    assert {(shared.system, 30), (shared.first, 60)} <= m.context_index.keys()


def test_the_context_cache_is_bounded() -> None:
    m = model()
    for n in range(fast.CONTEXT_CACHE_MAX + 10):
        v = view(
            {"messages": [{"role": "system", "content": f"agent {n}"}, *body("hi")["messages"]]}
        )
        fast.known(m, v)
    assert 0 < len(m.context_index) <= fast.CONTEXT_CACHE_MAX


def test_token_caches_keep_no_long_tokens_and_never_stop_learning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A long "word" (2,000 letters, no space) was kept in three caches (hundreds of MB to
    GB per worker under such traffic), and a full cache never took a new word again: a
    repeated prompt cost five times more for the rest of the process (found in review)."""
    m = model()
    caches = (features._TOKEN_CACHE, m.token_index, m.detector.token_cache)

    def read(text: str) -> Intent:  # both paths, whichever `classify` takes for this model
        fast.known(m, view(body(text)))
        return classify(body(text))

    long_word = "q" * 100
    ask = f"Write a poem about {long_word}. Use no more than ten words."
    assert read(ask) == read(ask)
    assert all(long_word not in cache for cache in caches)
    monkeypatch.setattr(features, "TOKEN_CACHE_MAX", 50)
    for n in range(30):  # fills every cache past its bound, more than once
        read(" ".join(f"w{n}x{i}" for i in range(20)) + ". Be brief.")
    before = read("Compose a sonnet about lighthouses.")
    assert all("lighthouses" in cache and len(cache) <= 50 for cache in caches)
    assert read("Compose a sonnet about lighthouses.") == before


def test_the_token_caches_full_stay_small_and_hold_the_real_vocabulary() -> None:
    """Prompts of random words filled the three token caches to 200,000 entries each, ~110 MB
    a process, against the 150 MB idle target (found in review). Full now, they hold less
    than 40 MB, and the training and held-out texts' vocabulary still fits in them, so
    traffic that repeats its words is not cleared out of them."""
    vocabulary = {
        tok
        for split in ("train", "validation")
        for r in load(split)
        for tok in features.tokens(r.text)
        if len(tok) <= features.CACHED_TOKEN_CHARS
    }
    assert len(vocabulary) < features.TOKEN_CACHE_MAX
    m = model()
    caches = (features._TOKEN_CACHE, m.token_index, m.detector.token_cache)
    for cache in caches:
        cache.clear()
    rng = random.Random(5)
    gc.collect()
    tracemalloc.start()
    try:  # a request adds a few hundred tokens at most: the caches stop just short of full
        while len(features._TOKEN_CACHE) < features.TOKEN_CACHE_MAX - 1000:
            words = ("".join(rng.choices(string.ascii_lowercase, k=12)) for _ in range(200))
            classify(body(" ".join(words) + "."))
        gc.collect()
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
        for cache in caches:
            cache.clear()
    assert held < 40_000_000, f"{held / 1e6:.0f} MB"


def test_unknown_words_and_empty_texts() -> None:
    m = model()
    v = view(body("zzqxv wrrbl 12345 ¿¡"))
    idx, vals, _ = m.known(request_features(m, v, m.detector.read(v.latest)))
    assert fast.known(m, v) == (idx, vals)
    assert fast.known(m, view(body(""))) == ([], [])
