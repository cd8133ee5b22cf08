"""The labelled prompts shipped in `classifier/data/`: training and held-out validation rows."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from classifier.intent import INTENTS, Label
from classifier.model import Embedding

DATA_DIR = Path(__file__).parent / "data"
EMBEDDING_PATH = DATA_DIR / "static_embedding.npz"


@dataclass(frozen=True, slots=True)
class Example:
    """One labelled prompt and the dataset it came from."""

    text: str
    label: Label
    source: str


# Sentences written for the detector's answer head (`answer_round3.jsonl`): directives on
# presenting a final answer, and constraints on the whole text in the same words.
ANSWER_DIRECTIVE = "answer_directive"
ANSWER_KINDS = frozenset({ANSWER_DIRECTIVE, "answer_lookalike"})


@dataclass(frozen=True, slots=True)
class Sentence:
    """One written sentence, whether it constrains the response's form, and what kind of
    sentence its author wrote (the answer head reads `kind`)."""

    text: str
    constraint: bool
    kind: str = ""


class DataMissing(ValueError):
    """A data folder training reads is missing or holds no rows: one line naming it."""


def jsonl_files(folder: Path) -> list[Path]:
    """The `*.jsonl` files of `folder`, sorted; a folder missing or without them is an error,
    not an empty list (training on no rows failed deep inside scikit-learn, as a long traceback)."""
    files = sorted(folder.glob("*.jsonl"))
    if not files:
        why = "is missing" if not folder.is_dir() else "holds no *.jsonl files"
        raise DataMissing(f"the classifier's data folder {folder} {why}")
    return files


def _records(folder: Path) -> list[dict[str, Any]]:
    """Every row of the folder's `*.jsonl` files, in a stable order (sorted file names,
    blank lines skipped). No rows is `DataMissing`, as no files is: *.jsonl files that are
    all empty trained on nothing and failed inside scikit-learn all the same."""
    rows: list[dict[str, Any]] = []
    for path in jsonl_files(folder):
        with path.open(encoding="utf-8") as fh:
            rows.extend(json.loads(line) for line in fh if line.strip())
    if not rows:
        raise DataMissing(f"the classifier's data folder {folder} holds no rows")
    return rows


def load_sentences(data_dir: Path = DATA_DIR) -> list[Sentence]:
    """The constraint detector's sentences (`sentences/*.jsonl`), in a stable order."""
    return [
        Sentence(r["text"], bool(r["constraint"]), r.get("kind") or "")
        for r in _records(data_dir / "sentences")
    ]


def load(split: str, data_dir: Path = DATA_DIR) -> list[Example]:
    """All rows of `train` or `validation` with a known intent, in a stable order (sorted
    file names); raises `DataMissing` when the folder is missing or has no such rows."""
    folder = data_dir / split
    rows = [
        Example(r["text"], r["label"], r["source"])
        for r in _records(folder)
        if r["label"] in INTENTS
    ]
    if not rows:
        raise DataMissing(f"the classifier's data folder {folder} holds no rows of a known intent")
    return rows


def data_hash(data_dir: Path = DATA_DIR) -> str:
    """SHA-256 over the name and bytes of every file training and evaluation read: the
    train and validation rows, the detector's sentences and the embedding table (not the
    readers' audit labels)."""
    h = hashlib.sha256()
    folders = ("train", "validation", "sentences")
    rows = [path for folder in folders for path in data_dir.glob(f"{folder}/*.jsonl")]
    for path in sorted([*rows, *data_dir.glob("*.npz")]):
        h.update(str(path.relative_to(data_dir)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def load_embedding(path: Path = EMBEDDING_PATH, scale: float = 1.0) -> Embedding | None:
    """The distilled static word table (see `classifier/distill.py`), if one was made."""
    if not path.exists():
        return None
    with np.load(path, allow_pickle=False) as z:
        sif = z["sif"].astype(np.float64)
        # rounded to float16 as the artifact stores it, so a saved model predicts the same
        table = (z["table"].astype(np.float64) * sif[:, None]).astype(np.float16)
        return Embedding(tuple(str(w) for w in z["words"]), table.astype(np.float64), sif, scale)
