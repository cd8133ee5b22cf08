"""`smf-router classifier train` end to end on a small data folder: what it says while it
trains, and that a second run writes the same files (the shipped run takes the same path on
the whole of `classifier/data`)."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from classifier import corpus, pipeline
from classifier.cli import app

SOURCES = ("bfcl", "gsm8k", "mbpp", "writingbench")  # four sources: four calibration folds


@pytest.fixture
def small_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every 8th training row of four sources, every 10th held-out row and every 6th
    detector sentence, as the data folder; the artifact and the doc go to `tmp_path`."""
    data = tmp_path / "data"
    picked = {
        "train": [r for r in corpus.load("train") if r.source in SOURCES][::8],
        "validation": corpus.load("validation")[::10],
    }
    for split, rows in picked.items():
        (data / split).mkdir(parents=True)
        lines = [json.dumps({"text": r.text, "label": r.label, "source": r.source}) for r in rows]
        (data / split / "rows.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (data / "sentences").mkdir()
    sentences = [
        json.dumps({"text": s.text, "constraint": s.constraint, "kind": s.kind})
        for s in corpus.load_sentences()[::6]
    ]
    (data / "sentences" / "rows.jsonl").write_text("\n".join(sentences) + "\n", encoding="utf-8")
    monkeypatch.setattr(corpus, "DATA_DIR", data)
    monkeypatch.setattr(pipeline, "DOC_PATH", tmp_path / "classifier.md")
    # the command saves to the shipped path, bound as the default when the module loaded
    train = functools.partial(pipeline.train_and_report, model_path=tmp_path / "m.skops")
    monkeypatch.setattr(pipeline, "train_and_report", train)
    return tmp_path


def test_train_says_each_stage_on_stderr_and_rewrites_the_same_files(small_data: Path) -> None:
    """Three minutes without a word until the result (found in review); and a retrain
        rewrote docs/classifier.md with a new latency measured in it (0.102 ms -> 0.092 ms),
        so the git tree was dirty after every run. The stages go to stderr, the result stays the
        one line on stdout; a second run writes the artifact and the doc byte for byte; `--no-doc`
    leaves the doc alone."""
    written = []
    for _ in range(2):
        result = CliRunner().invoke(app, ["train"])
        assert result.exit_code == 0, result.output
        written.append([(small_data / name).read_bytes() for name in ("m.skops", "classifier.md")])
    assert written[0] == written[1]
    assert result.stdout.startswith("macro-F1 ") and len(result.stdout.splitlines()) == 1
    stages = [line.split("] ", 1)[1] for line in result.stderr.splitlines()]
    assert stages[0].startswith(
        f"data: {len(corpus.load('train', small_data / 'data'))} training rows from 4 sources"
    )
    assert stages[1].startswith("constraint detector fitted: ")
    assert stages[2].startswith("intent model fitted: ")
    folds = [s for s in stages if s.startswith("calibration fold ")]
    assert [f.split(":")[0] for f in folds] == [f"calibration fold {n}/4" for n in (1, 2, 3, 4)]
    assert [f.rsplit(", ", 1)[1] for f in folds] == [f"{s} left out" for s in SOURCES]
    assert stages[-3].startswith("calibration: temperature ")
    assert stages[-2:] == [
        f"wrote {small_data / 'm.skops'}",
        f"wrote {small_data / 'classifier.md'}",
    ]
    (small_data / "classifier.md").unlink()
    result = CliRunner().invoke(app, ["train", "--no-doc"])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[-1].endswith(f"] wrote {small_data / 'm.skops'}")
    assert not (small_data / "classifier.md").exists()
