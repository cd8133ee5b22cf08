"""Save and load the trained model as a skops file (no pickle), with its metadata beside it.

The file is written by `skops.io.dump`. The router reads it with `load`, a strict reader of
exactly the node kinds we write (a dict of JSON strings and `.npy` arrays, `allow_pickle`
off): importing skops pulls in all of scikit-learn, which alone costs more than the
one-second start budget. `load_with_skops` reads the same file through skops' own audited
loader; the tests check that both agree.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from classifier.constraint import ConstraintDetector
from classifier.intent import INTENTS
from classifier.model import Embedding, IntentModel

ARTIFACT_DIR = Path(__file__).parent / "artifacts"
MODEL_PATH = ARTIFACT_DIR / "intent_model.skops"
FORMAT = "smf-intent-linear/1"


def save(model: IntentModel, path: Path = MODEL_PATH) -> None:
    """Write `model` to `path` (skops) and its metadata to `path` with a `.json` suffix."""
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "format": FORMAT,
        "labels": "\n".join(model.labels),
        "vocab": "\n".join(model.vocab),
        "weights": model.weights.astype(np.float32),
        "bias": model.bias.astype(np.float64),
        "metadata": json.dumps(model.metadata, sort_keys=True),
        "embed_words": "\n".join(model.embedding.words),
        "embed_table": model.embedding.table.astype(np.float16),  # halves the file; ample
        "embed_sif": model.embedding.sif.astype(np.float32),
        "embed_scale": json.dumps(model.embedding.scale),
        "dense_weights": model.dense_weights.astype(np.float32),
        "detector_vocab": "\n".join(model.detector.vocab),
        "detector_weights": model.detector.weights.astype(np.float64),
        "detector_bias": json.dumps(model.detector.bias),
        **_answer_head(model.detector),
    }
    import skops.io as sio

    sio.dump(payload, path, compression=zipfile.ZIP_DEFLATED, compresslevel=9)
    meta = path.with_suffix(".json")
    meta.write_text(json.dumps(model.metadata, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def _answer_head(detector: ConstraintDetector) -> dict[str, Any]:
    """The detector's answer head, when it has one."""
    head = detector.answer_head
    if head is None:
        return {}
    return {
        "detector_answer_vocab": "\n".join(head.vocab),
        "detector_answer_weights": head.weights.astype(np.float64),
        "detector_answer_bias": json.dumps(head.bias),
    }


def _read_payload(path: Path) -> dict[str, Any]:
    """Decode our skops file without skops: JSON strings and numpy arrays only."""
    payload: dict[str, Any] = {}
    with zipfile.ZipFile(path) as zf:
        schema = json.loads(zf.read("schema.json"))
        if schema.get("__loader__") != "DictNode":
            raise ValueError(f"{path}: top level is not a dict")
        for key, node in schema["content"].items():
            if node.get("__loader__") == "JsonNode" and node.get("__class__") == "str":
                payload[key] = json.loads(node["content"])
            elif node.get("__loader__") == "NdArrayNode" and node.get("type") == "numpy":
                with zf.open(node["file"]) as fh:
                    payload[key] = np.load(io.BytesIO(fh.read()), allow_pickle=False)
            else:
                raise ValueError(f"{path}: unexpected node for {key!r}")
    return payload


def load_with_skops(path: Path = MODEL_PATH) -> IntentModel:
    """Read the artifact through skops' own loader, refusing any untrusted type."""
    import skops.io as sio

    untrusted = sio.get_untrusted_types(file=path)
    if untrusted:
        raise ValueError(f"{path} holds unexpected types: {untrusted}")
    return _from_payload(path, sio.load(path, trusted=[]))


def load(path: Path = MODEL_PATH) -> IntentModel:
    """Read a model written by `save`, fast; refuses files holding anything else."""
    return _from_payload(path, _read_payload(path))


def _from_payload(path: Path, payload: dict[str, Any]) -> IntentModel:
    if payload.get("format") != FORMAT:
        raise ValueError(f"{path} is not a {FORMAT} artifact")
    labels = tuple(payload["labels"].split("\n"))
    if sorted(labels) != sorted(INTENTS):
        raise ValueError(f"{path} labels {labels} differ from {INTENTS}")
    order = [labels.index(lb) for lb in INTENTS]
    weights: npt.NDArray[np.float64] = np.asarray(payload["weights"], dtype=np.float64)
    bias: npt.NDArray[np.float64] = np.asarray(payload["bias"], dtype=np.float64)
    words = payload.get("embed_words", "")
    embedding = Embedding(
        words=tuple(words.split("\n")) if words else (),
        table=np.asarray(payload.get("embed_table", np.zeros((0, 0))), dtype=np.float64),
        sif=np.asarray(payload.get("embed_sif", np.zeros(0)), dtype=np.float64),
        scale=float(json.loads(payload.get("embed_scale", "1.0"))),
    )
    dense = np.asarray(payload.get("dense_weights", np.zeros((0, 0))), dtype=np.float64)
    detector_vocab = payload.get("detector_vocab", "")
    vocab = tuple(detector_vocab.split("\n")) if detector_vocab else ()
    head = None
    if "detector_answer_vocab" in payload:
        head = ConstraintDetector(
            vocab=tuple(payload["detector_answer_vocab"].split("\n")),
            weights=np.asarray(payload["detector_answer_weights"], dtype=np.float64),
            bias=float(json.loads(payload["detector_answer_bias"])),
        )
    detector = ConstraintDetector(
        vocab=vocab,
        weights=np.asarray(payload.get("detector_weights", np.zeros(0)), dtype=np.float64),
        bias=float(json.loads(payload.get("detector_bias", "0.0"))),
        answer_head=head,
    )
    return IntentModel(
        vocab=tuple(payload["vocab"].split("\n")),
        weights=np.ascontiguousarray(weights[:, order]),
        bias=bias[order],
        labels=INTENTS,
        metadata=json.loads(payload["metadata"]),
        embedding=embedding,
        dense_weights=np.ascontiguousarray(dense[:, order]) if dense.size else dense,
        detector=detector,
    )
