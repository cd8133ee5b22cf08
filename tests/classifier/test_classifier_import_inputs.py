"""`smf-router classifier import-data SRC` and `distill MODEL_DIR` given a directory without
the files they read: one `error:` line naming the first missing, exit 2, and classifier/data
and the shipped artifacts as they were (each command reads all it needs before it writes).

Run on empty directories only: a command that read all it needs would rewrite the repo's
classifier/data. The import's order (everything read, then written) is tested on the
importer itself, writing to a temporary folder."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from classifier.importer import import_all
from tests.harness import REPO
from tests.processes import smf_router

FIRST_READ = {"import-data": "train/mbpp/mbpp.jsonl", "distill": "tokenizer.json"}
WHAT = {
    "import-data": "SRC is the shared dataset folder: train/, validation/ and authored/",
    "distill": "MODEL_DIR holds model.safetensors and tokenizer.json",
}


def _fingerprint(*roots: Path) -> dict[str, str]:
    """Every file under `roots`, by path, with a hash of its bytes."""
    return {
        str(path): hashlib.sha256(path.read_bytes()).hexdigest()
        for root in roots
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


@pytest.mark.parametrize("command", ["import-data", "distill"])
def test_a_directory_without_the_inputs_names_the_missing_file(
    tmp_path: Path, command: str
) -> None:
    """Both ended in a FileNotFoundError traceback (found in review)."""
    kept = (REPO / "classifier" / "data", REPO / "classifier" / "artifacts")
    before = _fingerprint(*kept)
    done = smf_router("classifier", command, str(tmp_path))
    assert _fingerprint(*kept) == before  # nothing of the repo's written, or removed
    assert done.returncode == 2, done.stderr
    assert done.stdout == "" and "Traceback" not in done.stderr
    missing = tmp_path / FIRST_READ[command]
    assert done.stderr == f"error: {missing} not found ({WHAT[command]})\n"


def _lines(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))


def _json(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value))


def _dataset_but_the_authored_readme(src: Path) -> None:
    """A shared dataset folder of one row a source, every file there but
    `authored/README.md`, the file the import used to read last."""
    _named_files(src)
    _json(src / "train/bbh/date_understanding.json", {"examples": [{"input": "Q: Which day?"}]})
    question = {"question": [[{"role": "user", "content": "Call the weather tool."}]]}
    _lines(src / "train/bfcl/BFCL_v4_simple.json", [question])
    _lines(src / "authored/team.jsonl", [{"text": "Plan a trip.", "label": "reasoning"}])
    conversation = {"conversation": [{"role": "user", "text": "Book a table."}]}
    _json(src / "validation/tooltalk/data/easy/booking.json", conversation)


# Each folder the import reads by pattern, and the pattern it reads it by.
GLOBBED = {
    "train/bbh": "*.json",
    "train/bfcl": "BFCL_v4_*.json",
    "authored": "*.jsonl",
    "validation/tooltalk/data": "*/*.json",
}


def _named_files(src: Path) -> None:
    """The files the import reads by name, one row a source; none of the folders it reads
    by pattern (`GLOBBED`), nor `authored/README.md`."""
    _lines(src / "train/mbpp/mbpp.jsonl", [{"text": "Write a function that adds."}])
    for name in ("conala-train.json", "conala-test.json"):
        _json(src / "train/conala" / name, [{"intent": f"sort a list ({name})"}])
    _lines(src / "train/gsm8k/train.jsonl", [{"question": "What is 2 + 2?"}])
    _lines(src / "train/math_hendrycks/test.jsonl", [{"problem": "Solve x + 1 = 2."}])
    for name in ("train.json", "dev.json"):
        _json(src / "train/strategyqa" / name, [{"question": f"Do fish sleep ({name})?"}])
    _lines(src / "train/ifeval/input_data.jsonl", [{"prompt": "Answer in three words."}])
    _lines(
        src / "train/writingbench/benchmark_all.jsonl",
        [{"query": "Write a poem.", "domain2": "Poetry"}],
    )
    first_turn = {"category": "math", "question_id": 1, "turns": ["What is 3 * 3?"]}
    _lines(src / "validation/mt_bench/question.jsonl", [first_turn])
    _lines(src / "validation/vicuna_bench/question.jsonl", [first_turn])
    _json(src / "validation/svamp/SVAMP.json", [{"Body": "Tom has 3.", "Question": "How many?"}])
    _lines(src / "validation/ifbench/IFBench_test.jsonl", [{"prompt": "Reply in French."}])
    for name in ("chat.jsonl", "heuristic_text_generation.jsonl"):
        _lines(
            src / "validation/hellobench" / name,
            [{"category": "rewrite", "instruction": f"Rewrite this ({name})."}],
        )


def test_the_import_reads_everything_before_it_writes(tmp_path: Path) -> None:
    """`authored/README.md` was read after every data file of classifier/data had been
    rewritten: missing, it stopped the import half done (found in review)."""
    src, dst = tmp_path / "src", tmp_path / "data"
    _dataset_but_the_authored_readme(src)
    with pytest.raises(FileNotFoundError) as raised:
        import_all(src, dst)
    assert raised.value.filename == str(src / "authored/README.md")
    assert not dst.exists()
    (src / "authored/README.md").write_text("authored by the team\n")
    counts = import_all(src, dst)  # the folder itself is whole now
    assert counts["train/mbpp"] == 1 and counts["validation/hellobench"] == 2
    assert (dst / "licences/authored-README.md").read_text() == "authored by the team\n"


def test_a_folder_read_by_pattern_that_is_missing_names_the_pattern(tmp_path: Path) -> None:
    """train/bbh, train/bfcl, authored or validation/tooltalk missing was 0 rows of their
    sources and exit 0, the import looking done (found in review). `authored/README.md` is
    left out as well: an import that got past the patterns stops at it, before writing the
    repo's classifier/data."""
    kept = (REPO / "classifier" / "data", REPO / "classifier" / "artifacts")
    before = _fingerprint(*kept)
    _named_files(tmp_path)
    done = smf_router("classifier", "import-data", str(tmp_path))
    assert _fingerprint(*kept) == before
    assert done.returncode == 2, done.stderr
    assert done.stdout == "" and "Traceback" not in done.stderr
    first = tmp_path / "train/bfcl" / GLOBBED["train/bfcl"]  # the first read by pattern
    assert done.stderr == f"error: {first} not found ({WHAT['import-data']})\n"


@pytest.mark.parametrize("folder", sorted(GLOBBED))
def test_each_folder_read_by_pattern_must_match_a_file(tmp_path: Path, folder: str) -> None:
    """Each folder read by pattern, emptied of what it matches, stops the import before it
    writes, naming the pattern."""
    src, dst = tmp_path / "src", tmp_path / "data"
    _dataset_but_the_authored_readme(src)
    (src / "authored/README.md").write_text("authored by the team\n")
    for path in (src / folder).glob(GLOBBED[folder]):
        path.unlink()
    with pytest.raises(FileNotFoundError) as raised:
        import_all(src, dst)
    assert raised.value.filename == str(src / folder / GLOBBED[folder])
    assert not dst.exists()
