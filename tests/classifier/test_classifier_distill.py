"""The offline distillation on a tiny random BERT: padding never reaches the pooled vector,
and the vocabulary and SIF weights follow the rules `classifier/distill.py` states."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest
from tokenizers import Tokenizer
from tokenizers.models import WordLevel
from tokenizers.pre_tokenizers import Whitespace

from classifier.distill import distil, embed_words, encode, read_safetensors, vocabulary

WORDS = ["[PAD]", "[UNK]", "poem", "python", "write", "haiku", "sonnet"]
DIM, FFN, LAYERS = 8, 16, 1


def tiny_tensors(seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)

    def r(*shape: int) -> np.ndarray:
        return rng.normal(0, 0.5, shape).astype(np.float32)

    t = {
        "embeddings.word_embeddings.weight": r(len(WORDS), DIM),
        "embeddings.position_embeddings.weight": r(32, DIM),
        "embeddings.token_type_embeddings.weight": r(2, DIM),
        "embeddings.LayerNorm.weight": np.ones(DIM, np.float32),
        "embeddings.LayerNorm.bias": np.zeros(DIM, np.float32),
    }
    p = "encoder.layer.0."
    shapes = {
        "attention.self.query": (DIM, DIM),
        "attention.self.key": (DIM, DIM),
        "attention.self.value": (DIM, DIM),
        "attention.output.dense": (DIM, DIM),
        "intermediate.dense": (FFN, DIM),
        "output.dense": (DIM, FFN),
    }
    for name, shape in shapes.items():
        t[p + name + ".weight"] = r(*shape)
        t[p + name + ".bias"] = r(shape[0])
    for norm in ("attention.output.LayerNorm", "output.LayerNorm"):
        t[p + norm + ".weight"] = np.ones(DIM, np.float32)
        t[p + norm + ".bias"] = np.zeros(DIM, np.float32)
    return t


def write_safetensors(tensors: dict[str, np.ndarray], path: Path) -> None:
    header: dict[str, object] = {}
    blobs: list[bytes] = []
    offset = 0
    for name, arr in tensors.items():
        raw = np.ascontiguousarray(arr).tobytes()
        header[name] = {
            "dtype": "F32",
            "shape": list(arr.shape),
            "data_offsets": [offset, offset + len(raw)],
        }
        blobs.append(raw)
        offset += len(raw)
    head = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(head)) + head + b"".join(blobs))


@pytest.fixture()
def model_dir(tmp_path: Path) -> Path:
    tok = Tokenizer(WordLevel({w: i for i, w in enumerate(WORDS)}, unk_token="[UNK]"))
    tok.pre_tokenizer = Whitespace()
    tok.enable_padding(length=12)  # as MiniLM's tokenizer.json ships: fixed-length padding
    tok.save(str(tmp_path / "tokenizer.json"))
    write_safetensors(tiny_tensors(), tmp_path / "model.safetensors")
    return tmp_path


def test_safetensors_round_trip(model_dir: Path) -> None:
    back = read_safetensors(model_dir / "model.safetensors")
    for name, arr in tiny_tensors().items():
        assert np.array_equal(back[name], arr)


def test_a_word_embeds_the_same_alone_or_beside_a_longer_one(model_dir: Path) -> None:
    t = read_safetensors(model_dir / "model.safetensors")
    alone = encode(t, np.array([[2]]), np.ones((1, 1), np.float32), heads=2)
    # the tokenizer pads to 12 and the batch mixes lengths: neither may change the vector
    batched = embed_words(model_dir, ["poem", "write haiku sonnet", "python"], heads=2)
    assert batched.shape == (3, DIM)
    np.testing.assert_allclose(batched[0], alone[0], atol=1e-5)
    assert np.isclose(np.linalg.norm(batched, axis=1), 1.0, atol=1e-5).all()


def test_vocabulary_adds_the_model_words_and_rare_words_weigh_more(model_dir: Path) -> None:
    words, counts = vocabulary(["write a poem", "write code", "Write 42 lines"], model_dir)
    assert {"write", "poem", "haiku", "sonnet"} <= set(words)
    assert "0" not in words and "[PAD]" not in words
    assert counts[words.index("write")] == 3 and counts[words.index("sonnet")] == 0
    vectors = np.random.default_rng(1).normal(size=(len(words), 6)).astype(np.float32)
    table, sif = distil(vectors, counts, dims=4)
    assert table.shape == (len(words), 4)
    assert sif[words.index("sonnet")] > sif[words.index("poem")] > sif[words.index("write")]
