"""Check: two checkouts of the classifier read every request alike, to the last bit.

A speed change to `classifier/` must not move any output. This runs the classifier of this
checkout and of another one (`--old`, e.g. a worktree of main) in two processes over every
training and held-out row, every detector sentence, the bench's workloads, the probes and
seeded random texts made of the characters where tokenising is subtle (CJK stops before
digits, final sigma, control characters, lone surrogates, NUL), and compares per request:
the named features, the hot path's indices and values, the probabilities, the detector's
verdict, `classify()` and `explain()`. Floats are compared by `repr`, i.e. exactly.

Run: ``.venv/bin/python tests/bench/check_classifier_same.py --old /work/wt_old``
(not part of `make test`: it takes a minute or two).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
from itertools import pairwise
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
# characters whose tokens depend on their neighbours, and ordinary ones around them
TRICKY = "ab Z9 0。！？.!?\n\r\x0b\x1c\x85\u3000\t写中文한ア_-Σσ\u212a\u0130\x01\x7f\x00\ud800é😀,"


def random_texts(n: int, seed: int = 7, longest: int = 400) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choices(TRICKY, k=rng.randint(0, longest))) for _ in range(n)]


def conversation(first: str, latest: str) -> dict[str, Any]:
    """A first and a latest user message, a system prompt and tools: every text read."""
    return {
        "messages": [
            {"role": "system", "content": latest[::-1]},
            {"role": "user", "content": first},
            {"role": "assistant", "content": "ok"},
            {"role": "user", "content": latest},
        ],
        "tools": [{"type": "function", "function": {"name": "f", "description": first}}],
    }


def requests() -> list[tuple[str, dict[str, Any]]]:
    """Every request the check reads, named so a difference can be found again."""
    sys.path.insert(0, str(ROOT / "tests" / "bench"))
    from bench_classifier import workloads

    from classifier.corpus import load, load_sentences
    from classifier.evaluation import PROBES, body

    out: list[tuple[str, dict[str, Any]]] = []
    for split in ("train", "validation"):
        out += [(f"{split} {i}", body(r.text)) for i, r in enumerate(load(split))]
    out += [(f"sentence {i}", body(s.text)) for i, s in enumerate(load_sentences())]
    out += [(f"probe {p.name}", body(p.text)) for p in PROBES]
    for name, bodies in workloads().items():
        out += [(f"bench {name} {i}", b) for i, b in enumerate(bodies[:200])]
    out += [(f"random {i}", body(t)) for i, t in enumerate(random_texts(3000))]
    long = random_texts(600, seed=8, longest=3000)  # past the clip, in bytes or characters
    out += [(f"long {i}", conversation(a, b)) for i, (a, b) in enumerate(pairwise(long))]
    return out


def reading(b: dict[str, Any]) -> str:
    """Everything the classifier says about body `b`, as exact text."""
    from classifier import classify, explain, fast
    from classifier.decision import _tools_prior, model, request_features
    from classifier.model import softmax
    from classifier.request import view

    m = model()
    v = view(b)
    verdict = m.detector.read(v.latest)
    named = request_features(m, v, verdict)
    idx, vals = fast.known(m, v)
    p = _tools_prior(v, softmax(m.scores(idx, vals)))
    intent = classify(b)
    return repr(
        (
            v,
            list(named.items()),
            idx,
            vals,
            p,
            tuple(verdict) if verdict else None,
            (intent.label, intent.confidence, intent.source),
            json.dumps(explain(b), sort_keys=True),
        )
    )


def dump() -> None:
    """In a child process: one line per request, its name, a digest of its reading and its
    probabilities (shown when two checkouts differ)."""
    for name, b in requests():
        text = reading(b)
        digest = hashlib.sha256(text.encode(errors="surrogatepass")).hexdigest()
        print(json.dumps([name, digest, text[-400:]]))


def run(checkout: Path) -> list[list[str]]:
    env = {**os.environ, "PYTHONPATH": str(checkout), "PYTHONHASHSEED": "0"}
    done = subprocess.run(
        [sys.executable, __file__, "--dump"],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return [json.loads(line) for line in done.stdout.splitlines()]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--old", type=Path, help="the other checkout's root")
    parser.add_argument("--dump", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.dump:
        dump()
        return 0
    if args.old is None:
        parser.error("--old is required")
    old, new = run(args.old.resolve()), run(ROOT)
    if [r[0] for r in old] != [r[0] for r in new]:
        print("the two checkouts read different request lists")
        return 1
    differ = [(a, b) for a, b in zip(old, new, strict=True) if a[1] != b[1]]
    kinds: dict[str, int] = {}
    for name, _, _ in new:
        kind = name.split(" ")[0]
        kinds[kind] = kinds.get(kind, 0) + 1
    print(f"{len(new)} requests ({', '.join(f'{k} {n}' for k, n in kinds.items())})")
    for a, b in differ[:10]:
        print(f"DIFFERS: {a[0]}\n  old ...{a[2]}\n  new ...{b[2]}")
    print(f"{len(differ)} differ" if differ else "all identical")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
