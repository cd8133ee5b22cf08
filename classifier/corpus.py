"""The labelled prompts shipped in `classifier/data/`: training and held-out validation rows."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from classifier.intent import INTENTS, Label

DATA_DIR = Path(__file__).parent / "data"


@dataclass(frozen=True, slots=True)
class Example:
    """One labelled prompt and the dataset it came from."""

    text: str
    label: Label
    source: str


def load(split: str, data_dir: Path = DATA_DIR) -> list[Example]:
    """All rows of `train` or `validation`, in a stable order (sorted file names)."""
    rows: list[Example] = []
    for path in sorted((data_dir / split).glob("*.jsonl")):
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                r = json.loads(line)
                if r["label"] in INTENTS:
                    rows.append(Example(r["text"], r["label"], r["source"]))
    return rows


def data_hash(data_dir: Path = DATA_DIR) -> str:
    """SHA-256 over every data file's name and bytes: names the exact training input."""
    h = hashlib.sha256()
    for path in sorted(data_dir.glob("*/*.jsonl")):
        h.update(str(path.relative_to(data_dir)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()
