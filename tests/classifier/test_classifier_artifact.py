"""The artifact round trip and the training determinism, on a small subset to stay fast, and
the refusal of damaged artifacts."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from classifier import artifact, corpus
from classifier.decision import decide
from classifier.evaluation import body
from classifier.model import IntentModel
from classifier.train import TrainConfig, fit, fit_detector


def small_rows() -> list[corpus.Example]:
    rows = corpus.load("train")
    by_label: dict[str, list[corpus.Example]] = {}
    for r in rows:
        by_label.setdefault(r.label, []).append(r)
    return [r for group in by_label.values() for r in group[::12]]


def small_fit() -> IntentModel:
    config = TrainConfig(max_iter=300, detector_negatives=300)
    detector = fit_detector(corpus.load_sentences()[::3], small_rows(), config)
    return fit(small_rows(), config, detector=detector)


@pytest.fixture(scope="module")
def small_model() -> IntentModel:
    return small_fit()


def test_training_is_deterministic(small_model: IntentModel) -> None:
    again = small_fit()
    assert again.vocab == small_model.vocab
    assert np.array_equal(again.weights, small_model.weights)
    assert again.detector.vocab == small_model.detector.vocab
    assert np.array_equal(again.detector.weights, small_model.detector.weights)
    head, again_head = small_model.detector.answer_head, again.detector.answer_head
    assert head is not None and again_head is not None
    assert again_head.vocab == head.vocab
    assert np.array_equal(again_head.weights, head.weights)


SAVE_SMALL = """
import sys
sys.path[:0] = [".", "tests/classifier"]
from pathlib import Path
from classifier import artifact
from test_classifier_artifact import small_fit
artifact.save(small_fit(), Path(sys.argv[1]))
"""


def members(zipped: bytes) -> list[tuple[str, tuple[int, ...], int]]:
    with zipfile.ZipFile(io.BytesIO(zipped)) as zf:
        return [(i.filename, i.date_time, i.CRC) for i in zf.infolist()]


@pytest.mark.slow
def test_training_saves_the_same_bytes_in_any_process(
    small_model: IntentModel, tmp_path: Path
) -> None:
    """A retrain in a fresh process dirtied the git tree (found in review): skops names each
    array's zip member and node by a Python object id and stamps the time of writing, and
    OpenBLAS adds a long dot product's partial sums per thread, so one thread and two fit
    weights different in the last bits. Two fresh interpreters, other hash seeds and BLAS
    thread counts: the same file, byte for byte."""
    saved = []
    for seed, threads in (("1", "1"), ("2", "2")):
        path = tmp_path / f"hash{seed}" / "m.skops"
        subprocess.run(
            [sys.executable, "-c", SAVE_SMALL, str(path)],
            env={**os.environ, "PYTHONHASHSEED": seed, "OPENBLAS_NUM_THREADS": threads},
            cwd=Path(__file__).resolve().parents[2],
            capture_output=True,
            check=True,
            timeout=100,
        )
        saved.append(path.read_bytes())
    assert members(saved[0]) == members(saved[1])  # names, times, CRCs: a readable failure
    assert saved[0] == saved[1]
    path = tmp_path / "hash1" / "m.skops"
    for load in (artifact.load, artifact.load_with_skops):  # skops' audit reads it as before
        assert np.array_equal(load(path).weights, small_model.weights.astype(np.float32))


def test_save_then_load_gives_the_same_predictions(
    small_model: IntentModel, tmp_path: Path
) -> None:
    path = tmp_path / "m.skops"
    artifact.save(small_model, path)
    fast, audited = artifact.load(path), artifact.load_with_skops(path)
    texts = [r.text for r in corpus.load("validation")[::25]]
    texts.append("Tell me about owls. Every sentence must end with the word owl.")
    texts.append("Which is larger, 2^10 or 10^3? Reply with the letter of the larger one.")
    head = small_model.detector.answer_head
    assert head is not None
    for loaded in (fast, audited):
        assert loaded.vocab == small_model.vocab
        assert loaded.detector == small_model.detector
        assert np.array_equal(loaded.detector.weights, small_model.detector.weights)
        loaded_head = loaded.detector.answer_head
        assert loaded_head is not None and loaded_head.vocab == head.vocab
        assert np.array_equal(loaded_head.weights, head.weights)
        assert loaded_head.bias == head.bias
        for text in texts:
            assert decide(loaded, body(text)) == decide(small_model, body(text))
    assert json.loads(path.with_suffix(".json").read_text()) == small_model.metadata


def test_a_tampered_artifact_is_refused(small_model: IntentModel, tmp_path: Path) -> None:
    path = tmp_path / "m.skops"
    artifact.save(small_model, path)
    with zipfile.ZipFile(path) as zf:
        schema = json.loads(zf.read("schema.json"))
        files = {n: zf.read(n) for n in zf.namelist()}
    schema["content"]["vocab"]["__loader__"] = "ObjectNode"
    files["schema.json"] = json.dumps(schema).encode()
    bad = tmp_path / "bad.skops"
    with zipfile.ZipFile(bad, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    with pytest.raises(ValueError, match="unexpected node"):
        artifact.load(bad)


def test_shipped_artifact_carries_its_metadata() -> None:
    meta = artifact.load().metadata
    assert meta["labels"] == [
        "coding",
        "tool_calling",
        "math",
        "reasoning",
        "instruction",
        "prose",
        "writing",
    ]
    assert meta["data_sha256"] == corpus.data_hash()
    assert {"scikit-learn", "numpy", "skops"} <= set(meta["versions"])
    assert artifact.MODEL_PATH.stat().st_size < 20 * 1024 * 1024
    # trained as `smf-router classifier train` trains: the NB weight is a knob of the shipped
    # model since 2026-12-06, recorded so that a changed default cannot pass unseen
    shipped = TrainConfig()
    assert (meta["seed"], meta["c"], meta["min_df"]) == (shipped.seed, shipped.c, shipped.min_df)
    assert meta["nb_scale"] == shipped.nb_scale


BROKEN_MODEL = """
import logging, sys
from pathlib import Path

import classifier.artifact as artifact

reads = []
real = artifact.load


def counted(path):
    reads.append(path)
    return real(path)


artifact.load = counted
artifact.MODEL_PATH = Path(sys.argv[1])
from classifier import classify

logging.basicConfig(level=logging.INFO, stream=sys.stdout, format="%(name)s: %(message)s")
for _ in range(5):
    intent = classify({"messages": [{"role": "user", "content": "my secret launch plan"}]})
    assert intent.confidence == 0.0
print("reads:", len(reads))
"""


def test_a_model_that_cannot_be_read_is_read_once_and_logged_without_the_text(
    tmp_path: Path,
) -> None:
    """Every request re-read the missing file from disk (I/O at classification time) and
    went to the default route without a word in the log (found in review)."""
    done = subprocess.run(
        [sys.executable, "-c", BROKEN_MODEL, str(tmp_path / "missing.skops")],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    lines = done.stdout.splitlines()
    assert lines[-1] == "reads: 1"
    logged = [line for line in lines if line.startswith("smf_router.classifier: ")]
    assert len(logged) == 3  # the 1st, 2nd and 4th of five failures
    assert "ModelUnavailable" in logged[0] and "secret" not in done.stdout


def altered(tmp_path: Path, key: str, change: Callable[[Any], Any]) -> Path:
    """A copy of the shipped artifact with `change` applied to the entry `key` (an array, or
    the text of a JSON entry), written as `save` writes it."""
    with zipfile.ZipFile(artifact.MODEL_PATH) as zf:
        schema = json.loads(zf.read("schema.json"))
        files = {n: zf.read(n) for n in zf.namelist()}
    node = schema["content"][key]
    if "file" in node:
        out = io.BytesIO()
        np.save(out, change(np.load(io.BytesIO(files[node["file"]]), allow_pickle=False)))
        files[node["file"]] = out.getvalue()
    else:
        node["content"] = json.dumps(change(json.loads(node["content"])))
        files["schema.json"] = json.dumps(schema).encode()
    bad = tmp_path / "altered.skops"
    with zipfile.ZipFile(bad, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return bad


def with_nan(a: Any) -> Any:
    a = a.copy()
    a.flat[len(a.flat) // 2] = np.nan
    return a


@pytest.mark.parametrize(
    ("key", "change", "why"),
    [
        ("weights", lambda a: a[:-1], "has shape"),
        ("weights", lambda a: a[:, :6], "has shape"),
        ("weights", with_nan, "not finite"),
        ("bias", lambda a: a[:6], "has shape"),
        ("bias", lambda a: np.full_like(a, np.inf), "not finite"),
        ("detector_weights", lambda a: a[:-1], "has shape"),
        ("detector_weights", with_nan, "not finite"),
        ("detector_answer_weights", lambda a: a[1:], "has shape"),
        ("detector_answer_weights", with_nan, "not finite"),
        ("detector_bias", lambda text: "NaN", "not a finite number"),
        ("detector_answer_bias", lambda text: "Infinity", "not a finite number"),
    ],
)
def test_an_artifact_of_wrong_shapes_or_values_is_refused_naming_the_entry(
    tmp_path: Path, key: str, change: Callable[[Any], Any], why: str
) -> None:
    """Weights with fewer rows than the vocabulary, a short bias, NaN weights loaded without
    a word and then raised or scored garbage on every request (found in review); the
    router's start turns this ValueError into its one-line `error:`."""
    bad = altered(tmp_path, key, change)
    for load in (artifact.load, artifact.load_with_skops):
        with pytest.raises(ValueError, match=f"{bad}: {key} .*{why}"):
            load(bad)
