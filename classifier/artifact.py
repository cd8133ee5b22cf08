"""Save and load the trained model as a skops file (no pickle), with its metadata beside it.

The file is written by `skops.io.dump`. The router reads it with `load`, a strict reader of
exactly the node kinds we write (a dict of JSON strings and `.npy` arrays, `allow_pickle`
off): importing skops pulls in all of scikit-learn, which alone costs more than the
one-second start budget. `load_with_skops` reads the same file through skops' own audited
loader; the tests check that both agree. Both check every array's shape against its
vocabulary and the labels, and that every number is finite: a damaged file is a ValueError
naming the entry (the router's start reports it), not garbage scores on every request.

skops names each array's zip member, and every node's `__id__`, by the `id()` of a Python
object, and stamps every member with the time of writing: two saves of one model differed
in bytes, so a retrain always dirtied the git tree (found in review). `save` therefore
rewrites skops' zip with the same schema and arrays under stable names (`stable_zip`).
"""

from __future__ import annotations

import io
import json
import math
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
# the zip format's earliest date, as reproducible-build tools stamp every member
ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)


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

    path.write_bytes(stable_zip(sio.dumps(payload)))
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


def stable_zip(written: bytes) -> bytes:
    """skops' zip `written`, rewritten to depend on its content only: each array's member
    named after its payload key, the `__id__`s numbered in order of first appearance (equal
    ids stay equal: skops' loader shares the objects of one id), each member stamped
    `ZIP_EPOCH` and deflated at level 9, in skops' order, `schema.json` last and formatted
    as skops writes it. The schema's node kinds are untouched, so both loaders read it as
    before, skops' audit included."""
    with zipfile.ZipFile(io.BytesIO(written)) as zf:
        schema = json.loads(zf.read("schema.json"))
        arrays: dict[str, bytes] = {}
        for key, node in schema["content"].items():
            if "file" in node:
                name = f"{key}.npy"
                arrays[name] = zf.read(node["file"])
                node["file"] = name
    _renumber(schema, {})
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        members = [*arrays.items(), ("schema.json", json.dumps(schema, indent=2).encode())]
        for name, data in members:
            info = zipfile.ZipInfo(name, date_time=ZIP_EPOCH)
            info.create_system = 3  # Unix, wherever it is written
            info.external_attr = 0o644 << 16
            zf.writestr(info, data, compress_type=zipfile.ZIP_DEFLATED, compresslevel=9)
    return out.getvalue()


def _renumber(node: Any, ids: dict[int, int]) -> None:
    """Replace every `__id__` in the schema tree `node` by 1, 2, ... in order of first
    appearance (the same old id, the same new one)."""
    if isinstance(node, dict):
        if "__id__" in node:
            node["__id__"] = ids.setdefault(node["__id__"], len(ids) + 1)
        for value in node.values():
            _renumber(value, ids)
    elif isinstance(node, list):
        for value in node:
            _renumber(value, ids)


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
    n = len(labels)
    vocab = tuple(payload["vocab"].split("\n"))
    weights = _array(path, payload, "weights", (len(vocab), n))
    bias = _array(path, payload, "bias", (n,))
    words_text = payload.get("embed_words", "")
    words = tuple(words_text.split("\n")) if words_text else ()
    table = _array(path, payload, "embed_table", None, np.zeros((0, 0)))
    dims = table.shape[1] if table.ndim == 2 else -1
    sif = _array(path, payload, "embed_sif", None, np.zeros(0))
    dense = _array(path, payload, "dense_weights", None, np.zeros((0, 0)))
    if words:  # without words the table, sif and dense block are never read
        _shape(path, "embed_table", table, (len(words), dims))
        _shape(path, "embed_sif", sif, (len(words),))
        _shape(path, "dense_weights", dense, (dims, n))
    embedding = Embedding(words, table, sif, _number(path, payload, "embed_scale", "1.0"))
    head = None
    if "detector_answer_vocab" in payload:
        head_vocab = tuple(payload["detector_answer_vocab"].split("\n"))
        head = ConstraintDetector(
            vocab=head_vocab,
            weights=_array(path, payload, "detector_answer_weights", (len(head_vocab),)),
            bias=_number(path, payload, "detector_answer_bias"),
        )
    detector_text = payload.get("detector_vocab", "")
    detector_vocab = tuple(detector_text.split("\n")) if detector_text else ()
    detector = ConstraintDetector(
        vocab=detector_vocab,
        weights=_array(path, payload, "detector_weights", (len(detector_vocab),), np.zeros(0)),
        bias=_number(path, payload, "detector_bias", "0.0"),
        answer_head=head,
    )
    return IntentModel(
        vocab=vocab,
        weights=np.ascontiguousarray(weights[:, order]),
        bias=bias[order],
        labels=INTENTS,
        metadata=json.loads(payload["metadata"]),
        embedding=embedding,
        dense_weights=np.ascontiguousarray(dense[:, order]) if dense.size else dense,
        detector=detector,
    )


def _array(
    path: Path,
    payload: dict[str, Any],
    key: str,
    shape: tuple[int, ...] | None,
    default: npt.NDArray[np.float64] | None = None,
) -> npt.NDArray[np.float64]:
    """`payload[key]` as float64, checked: a row count that disagrees with its vocabulary, or
    a NaN, loaded fine and then raised, or scored garbage, on every request."""
    found = payload.get(key, default)
    if found is None:
        raise ValueError(f"{path}: {key} is missing")
    array: npt.NDArray[np.float64] = np.asarray(found, dtype=np.float64)
    if shape is not None:
        _shape(path, key, array, shape)
    if not np.isfinite(array).all():
        raise ValueError(f"{path}: {key} holds values that are not finite")
    return array


def _shape(path: Path, key: str, array: npt.NDArray[np.float64], shape: tuple[int, ...]) -> None:
    if array.shape != shape:
        raise ValueError(f"{path}: {key} has shape {array.shape}, expected {shape}")


def _number(path: Path, payload: dict[str, Any], key: str, default: str | None = None) -> float:
    """A JSON number of the payload (a bias, the embedding scale), which must be finite."""
    found = payload.get(key, default)
    if found is None:
        raise ValueError(f"{path}: {key} is missing")
    value = float(json.loads(found))
    if not math.isfinite(value):
        raise ValueError(f"{path}: {key} is {value}, not a finite number")
    return value
