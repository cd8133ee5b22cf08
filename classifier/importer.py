"""Import labelled prompts from the shared dataset folder into `classifier/data/`.

Run once by a maintainer (`smf-router classifier import-data SRC`); training then needs only
the repo. Rows are capped per source and label so that no dataset's style dominates a label,
and texts are clipped to what the classifier ever reads, which keeps the repo small.
"""

from __future__ import annotations

import errno
import json
import random
import re
import shutil
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from classifier.clip import clip

Row = dict[str, str]

SEED = 13
# Per-source caps: each source at most about half of its label.
CAPS: dict[str, int] = {
    "mbpp": 500,
    "conala": 500,
    "gsm8k": 450,
    "math_hendrycks": 450,
    "bbh": 700,
    "bbh_math": 150,
    "bbh_instruction": 120,
    "strategyqa": 450,
    "ifeval": 541,
    "bfcl": 900,
    "writingbench": 1000,
}
_BBH_MATH = {"multistep_arithmetic_two"}
_BBH_INSTRUCTION = {"word_sorting"}
_WB_PROSE = {
    "Poetry",
    "Prose",
    "Novel Manuscript",
    "Plot Development",
    "Fan Fiction",
    "Screenplay",
    "Novel Outline",
    "Character Design",
    "Derivative Work",
    "Lyric Writing",
}
_HELLO = {
    "creative_write": "prose",
    "script_write": "prose",
    "story_writing": "prose",
    "screenplay_writing": "prose",
    "roleplaying_writing": "prose",
    "continue_write": "prose",
    "character_creation": "prose",
    "academic_write": "writing",
    "report_write": "writing",
    "rewrite": "writing",
    "guide_generation": "writing",
    "idea_generation": "writing",
    "argumentative_writing": "writing",
    "keyword_writing": "instruction",
    "question_answering": "reasoning",
    "science_problem_solve": "reasoning",
}
_VICUNA = {
    "coding": "coding",
    "math": "math",
    "writing": "writing",
    "common-sense": "reasoning",
    "fermi": "reasoning",
    "counterfactual": "reasoning",
    "knowledge": "reasoning",
    "roleplay": "prose",
}
_MT = {
    "coding": "coding",
    "math": "math",
    "reasoning": "reasoning",
    "stem": "reasoning",
    "extraction": "instruction",
    "humanities": "writing",
    "roleplay": "prose",
}
_OPTIONS = re.compile(r"\n\s*Options:\s*\n.*\Z", re.S)


def _jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def _files(folder: Path, pattern: str) -> list[Path]:
    """The files of `folder` matching `pattern`, sorted. None is FileNotFoundError naming the
    pattern, as a missing file is: a folder missing or misnamed in SRC was 0 rows of its
    sources and exit 0, the import looking done (found in review)."""
    found = sorted(folder.glob(pattern))
    if not found:
        raise FileNotFoundError(errno.ENOENT, "no file matches", str(folder / pattern))
    return found


def _rows(texts: Iterable[str], label: str, source: str) -> list[Row]:
    seen: set[str] = set()
    out: list[Row] = []
    for text in texts:
        text = text.strip()
        if text and text not in seen:
            seen.add(text)
            out.append({"text": clip(text), "label": label, "source": source})
    return out


def _cap(rows: list[Row], n: int) -> list[Row]:
    rng = random.Random(SEED)
    rows = list(rows)
    rng.shuffle(rows)
    return rows[:n]


def detemplate_bbh(text: str) -> str:
    """Strip BBH's multiple-choice scaffolding, which no real user request carries."""
    text = _OPTIONS.sub("", text)
    return re.sub(r"^\s*Q:\s*", "", text).replace("\nA:", "").strip()


def _bbh(src: Path) -> dict[str, list[Row]]:
    groups: dict[str, list[str]] = {"bbh": [], "bbh_math": [], "bbh_instruction": []}
    for path in _files(src / "train/bbh", "*.json"):
        examples = json.loads(path.read_text())["examples"]
        task = path.stem
        key = (
            "bbh_math"
            if task in _BBH_MATH
            else "bbh_instruction"
            if task in _BBH_INSTRUCTION
            else "bbh"
        )
        # Spread the reasoning cap across tasks so no template dominates.
        take = examples[:30] if key == "bbh" else examples
        groups[key].extend(detemplate_bbh(e["input"]) for e in take)
    labels = {"bbh": "reasoning", "bbh_math": "math", "bbh_instruction": "instruction"}
    return {k: _rows(v, labels[k], k) for k, v in groups.items()}


def _bfcl(src: Path) -> list[Row]:
    texts: list[str] = []
    for path in _files(src / "train/bfcl", "BFCL_v4_*.json"):
        if "irrelevance" in path.name:
            continue
        for row in _jsonl(path):
            turns = row.get("question") or [[]]
            users = [m["content"] for m in turns[0] if m.get("role") == "user"]
            if users and isinstance(users[-1], str):
                texts.append(users[-1])
    return _rows(texts, "tool_calling", "bfcl")


def _writingbench(src: Path) -> list[Row]:
    rows = list(_jsonl(src / "train/writingbench/benchmark_all.jsonl"))
    prose = [r["query"] for r in rows if r["domain2"] in _WB_PROSE]
    writing = [r["query"] for r in rows if r["domain2"] not in _WB_PROSE]
    return _rows(prose, "prose", "writingbench") + _cap(
        _rows(writing, "writing", "writingbench"), 450
    )


def train_rows(src: Path) -> dict[str, list[Row]]:
    """Every training source, capped, keyed by source name."""
    t = src / "train"
    out: dict[str, list[Row]] = {
        "mbpp": _rows((r["text"] for r in _jsonl(t / "mbpp/mbpp.jsonl")), "coding", "mbpp"),
        "conala": _rows(
            (
                r["intent"]
                for f in ("conala-train.json", "conala-test.json")
                for r in json.loads((t / "conala" / f).read_text())
            ),
            "coding",
            "conala",
        ),
        "gsm8k": _rows((r["question"] for r in _jsonl(t / "gsm8k/train.jsonl")), "math", "gsm8k"),
        "math_hendrycks": _rows(
            (r["problem"] for r in _jsonl(t / "math_hendrycks/test.jsonl")),
            "math",
            "math_hendrycks",
        ),
        "strategyqa": _rows(
            (
                r["question"]
                for f in ("train.json", "dev.json")
                for r in json.loads((t / "strategyqa" / f).read_text())
            ),
            "reasoning",
            "strategyqa",
        ),
        "ifeval": _rows(
            (r["prompt"] for r in _jsonl(t / "ifeval/input_data.jsonl")), "instruction", "ifeval"
        ),
        "bfcl": _bfcl(src),
        "writingbench": _writingbench(src),
        **_bbh(src),
    }
    capped = {k: _cap(v, CAPS[k]) for k, v in out.items()}
    capped["authored"] = _authored(src)
    return capped


def _authored(src: Path) -> list[Row]:
    rows: list[Row] = []
    for path in _files(src / "authored", "*.jsonl"):
        source = "self_instruct" if path.stem.startswith("self_instruct") else "authored"
        for r in _jsonl(path):
            if r["label"] != "other":
                rows.append({"text": clip(r["text"]), "label": r["label"], "source": source})
    return rows


def validation_rows(src: Path) -> dict[str, list[Row]]:
    """The held-out sources: different datasets from training for every label."""
    v = src / "validation"
    out: dict[str, list[Row]] = {}
    mt: list[Row] = []
    for r in _jsonl(v / "mt_bench/question.jsonl"):
        cat, qid = r["category"], r["question_id"]
        label = ("prose" if 85 <= qid <= 88 else "writing") if cat == "writing" else _MT[cat]
        mt += _rows([r["turns"][0]], label, "mt_bench")
    out["mt_bench"] = mt
    out["vicuna_bench"] = [
        row
        for r in _jsonl(v / "vicuna_bench/question.jsonl")
        if r["category"] in _VICUNA
        for row in _rows([r["turns"][0]], _VICUNA[r["category"]], "vicuna_bench")
    ]
    svamp = json.loads((v / "svamp/SVAMP.json").read_text())
    out["svamp"] = _cap(
        _rows((f"{r['Body'].strip()} {r['Question'].strip()}" for r in svamp), "math", "svamp"),
        300,
    )
    out["ifbench"] = _rows(
        (r["prompt"] for r in _jsonl(v / "ifbench/IFBench_test.jsonl")), "instruction", "ifbench"
    )
    out["tooltalk"] = _tooltalk(v / "tooltalk/data")
    hello: list[Row] = []
    for f in ("chat.jsonl", "heuristic_text_generation.jsonl"):
        for r in _jsonl(v / "hellobench" / f):
            if r["category"] in _HELLO:
                hello += _rows([r["instruction"]], _HELLO[r["category"]], "hellobench")
    out["hellobench"] = hello
    return out


def _tooltalk(data: Path) -> list[Row]:
    texts: list[str] = []
    for path in _files(data, "*/*.json"):
        if path.parent.name == "databases":
            continue
        conv = json.loads(path.read_text())
        users = [t["text"] for t in conv.get("conversation", []) if t.get("role") == "user"]
        if users:
            texts.append(users[0])
    return _rows(texts, "tool_calling", "tooltalk")


_LICENCE_FILES = ("LICENSE", "LICENSE-Apache-2.0", "LICENSE-code-Apache-2.0", "NOTICE")


def _copy_licences(src_dir: Path, dst_dir: Path) -> None:
    dst_dir.mkdir(parents=True, exist_ok=True)
    for name in (*_LICENCE_FILES, "SOURCE.txt"):
        if (src_dir / name).exists():
            shutil.copyfile(src_dir / name, dst_dir / name)


def import_all(src: Path, dst: Path) -> dict[str, int]:
    """Write `dst/{train,validation}/<source>.jsonl` plus licences; return row counts.

    Everything is read before anything is written: a file missing from `src`, or a folder
    read by pattern with no file matching, raises FileNotFoundError with `dst` as it was.
    The authored README, read last, was missed only once every data file of `dst` had been
    rewritten (found in review)."""
    splits = {"train": train_rows(src), "validation": validation_rows(src)}
    readme = (src / "authored/README.md").read_bytes()
    counts: dict[str, int] = {}
    for split, groups in splits.items():
        for name, rows in groups.items():
            out = dst / split / f"{name}.jsonl"
            out.parent.mkdir(parents=True, exist_ok=True)
            with out.open("w", encoding="utf-8") as fh:
                for row in rows:
                    fh.write(json.dumps(row, ensure_ascii=False) + "\n")
            counts[f"{split}/{name}"] = len(rows)
    for split in ("train", "validation"):
        for d in sorted((src / split).iterdir()):
            if d.is_dir():
                _copy_licences(d, dst / "licences" / d.name)
    (dst / "licences/authored-README.md").write_bytes(readme)
    return counts
