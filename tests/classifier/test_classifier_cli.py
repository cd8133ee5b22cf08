"""`smf-router classify` and `smf-router classifier train`: what a user sees on the terminal,
bad input included (one `error:` line and exit 2, never a traceback)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

import pytest
from typer.testing import CliRunner

from classifier import artifact, corpus, decision, explain, pipeline
from classifier.cli import app
from classifier.evaluation import body


@pytest.mark.parametrize(
    "sentence",
    [
        "End each line with [/b].",  # a closing tag rich could not match: MarkupError
        "Every line must start with [bold]yes[/bold].",  # markup rich applied and dropped
        "Every line must start with :smile: and a [x].",  # an emoji code rich replaced
    ],
)
def test_the_terminal_explanation_shows_the_prompt_literally(sentence: str) -> None:
    """The constraint sentence went through rich markup: `[/b]` crashed the command with a
    MarkupError, `[bold]`, `[x]` and `:smile:` were shown altered (found in review)."""
    result = CliRunner().invoke(app, ["show", f"Explain the sky. {sentence}"])
    assert result.exit_code == 0, result.output
    assert "constraint sentence (" in result.output
    assert f"): {sentence}\n" in result.output


@pytest.fixture
def no_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Training pointed at an empty data folder, and refusing to start: a run that got past
    the checks fails here rather than train and overwrite the shipped artifact."""

    def no_training(*args: object, **kwargs: object) -> NoReturn:
        raise AssertionError("training started")

    monkeypatch.setattr(corpus, "DATA_DIR", tmp_path)
    monkeypatch.setattr(pipeline, "fit_detector", no_training)
    monkeypatch.setattr(pipeline, "fit", no_training)
    return tmp_path


@pytest.mark.parametrize(
    ("option", "value"),
    [("--seed", "-1"), ("--seed", "99999999999"), ("--c", "0"), ("--c", "-1"), ("--c", "nan")],
)
def test_train_refuses_an_out_of_range_option_in_one_line(
    no_data: Path, option: str, value: str
) -> None:
    """`--seed -1`, `--seed 99999999999` and `--c 0` reached scikit-learn and printed a
    long traceback (found in review)."""
    result = CliRunner().invoke(app, ["train", "--no-doc", option, value])
    assert result.exit_code == 2, result.output
    assert f"Invalid value for '{option}'" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


ROW = '{"text": "Write a haiku about rain", "label": "prose", "source": "t"}\n'


@pytest.mark.parametrize(
    ("made", "named", "why"),
    [
        ((), "train", "is missing"),
        (("train",), "train", "holds no *.jsonl files"),
        (("train", "validation", "sentences"), "sentences", "holds no *.jsonl files"),
    ],
)
def test_train_names_a_missing_or_empty_data_folder(
    no_data: Path, made: tuple[str, ...], named: str, why: str
) -> None:
    """A missing or empty `classifier/data` trained on no rows and failed deep inside
    scikit-learn with a long traceback (found in review)."""
    for folder in made:
        (no_data / folder).mkdir()
    for folder in ("train", "validation"):
        if folder in made and folder != named:
            (no_data / folder / "rows.jsonl").write_text(ROW, encoding="utf-8")
    result = CliRunner().invoke(app, ["train", "--no-doc"])
    assert result.exit_code == 2, result.output
    assert result.output == f"error: the classifier's data folder {no_data / named} {why}\n"


SENTENCE = '{"text": "Answer in one line.", "constraint": true}\n'
NO_INTENT = '{"text": "Write a haiku about rain", "label": "nonsense", "source": "t"}\n'


@pytest.mark.parametrize(
    ("named", "content", "why"),
    [
        ("train", "", "holds no rows"),
        ("validation", "\n", "holds no rows"),
        ("sentences", "", "holds no rows"),
        ("train", NO_INTENT, "holds no rows of a known intent"),
    ],
)
def test_train_names_a_data_folder_whose_files_hold_no_rows(
    no_data: Path, named: str, content: str, why: str
) -> None:
    """Empty *.jsonl files passed the check for files and failed inside scikit-learn with a
    traceback ("Found array with 0 sample(s)"; found in re-review)."""
    for folder in ("train", "validation", "sentences"):
        (no_data / folder).mkdir()
        row = SENTENCE if folder == "sentences" else ROW
        (no_data / folder / "rows.jsonl").write_text(
            content if folder == named else row, encoding="utf-8"
        )
    result = CliRunner().invoke(app, ["train", "--no-doc"])
    assert result.exit_code == 2, result.output
    assert result.output == f"error: the classifier's data folder {no_data / named} {why}\n"


@pytest.fixture
def truncated_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The shipped artifact cut in half, as the model the process reads (and forgets after)."""
    broken = tmp_path / "intent_model.skops"
    shipped = artifact.MODEL_PATH.read_bytes()
    broken.write_bytes(shipped[: len(shipped) // 2])
    monkeypatch.setattr(artifact, "MODEL_PATH", broken)
    decision._loaded.cache_clear()
    yield broken
    decision._loaded.cache_clear()


def test_classify_with_an_unreadable_model_says_so_in_one_line(truncated_model: Path) -> None:
    """With a truncated artifact `smf-router classify` exited 0 and printed `writing,
    confidence 0, source default`, an answer made up (found in review); `serve` stops."""
    result = CliRunner().invoke(app, ["show", "Write a Python function that sorts a list"])
    assert result.exit_code == 2, result.output
    assert result.output.startswith(f"error: the intent model {truncated_model} cannot be read")
    assert len(result.output.splitlines()) == 1


def _config(tmp_path: Path, min_confidence: float) -> Path:
    path = tmp_path / f"router-{min_confidence}.yaml"
    path.write_text(
        "backends:\n"
        "  - {name: local, tier: local, base_url: 'http://127.0.0.1:9/v1', model: m}\n"
        "  - {name: cloud, tier: cloud, base_url: 'http://127.0.0.1:9/v1', model: m}\n"
        f"classifier: {{min_confidence: {min_confidence}, default_route: coding}}\n"
    )
    return path


def _classify(prompt: str, config: Path) -> str:
    """`smf-router classify` as a user runs it (the command is mounted by `main`)."""
    smf_router = Path(sys.executable).parent / "smf-router"
    done = subprocess.run(
        [str(smf_router), "classify", prompt, "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_classify_names_the_route_the_router_gives_the_prompt(tmp_path: Path) -> None:
    """`classify` printed the label alone, and a label below `min_confidence` is not where
    the router sends the prompt: "Fix this test" read `writing` while it went to the coding
    route (found in review). The last line says the route and, when it is not the label's,
    why."""
    prompt = "Write a limerick about a cat"
    below = _classify(prompt, _config(tmp_path, 0.9999))
    label = below.split()[0]
    assert label != "coding"  # else the default route could not be told from the label
    last = below.splitlines()[-1]
    assert last.startswith("route: coding (confidence "), last
    assert last.endswith("is below min_confidence 0.9999: the default route) -> local, cloud")
    above = _classify(prompt, _config(tmp_path, 0.0))
    assert above.splitlines()[-1].startswith(f"route: {label} -> "), above


def test_classify_says_below_min_confidence_when_the_default_route_is_the_label(
    tmp_path: Path,
) -> None:
    """`classify "fix it"` printed "coding confidence 0.30" above "route: coding -> local,
    cloud" though 0.30 < min_confidence 0.35 took the default route, coding too: someone
    tuning min_confidence was misled (found in review)."""
    prompt = "Write a Python function that sorts a list"
    below = _classify(prompt, _config(tmp_path, 0.9999))
    assert below.split()[0] == "coding"  # the default route's name
    last = below.splitlines()[-1]
    assert last.startswith("route: coding (confidence "), last
    assert last.endswith(
        "is below min_confidence 0.9999: the default route, which is also its label)"
        " -> local, cloud"
    ), last
    above = _classify(prompt, _config(tmp_path, 0.0))
    assert above.splitlines()[-1] == "route: coding -> local, cloud", above


def test_classify_routes_the_text_it_shows_when_an_argument_is_not_utf8(tmp_path: Path) -> None:
    """Bytes that are not UTF-8 reached the intent line as U+FFFD and the route line as lone
    surrogates, which the tokeniser splits at: "coding 0.54" above "route: math" (found in
    review). With `min_confidence` 0 the route is the label shown, whatever the model says."""
    smf_router = Path(sys.executable).parent / "smf-router"
    prompt = (
        b"Google Sheets formula to count how many cells in A2:A\xff\xfe100 contain the word "
        b'"urgent", case-insensitive.'
    )
    done = subprocess.run(
        [str(smf_router), "classify", prompt, "--config", str(_config(tmp_path, 0.0))],
        capture_output=True,
        timeout=120,
        env={**os.environ, "PYTHONIOENCODING": "utf-8:strict"},
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    lines = done.stdout.decode().splitlines()
    assert lines[-1].startswith(f"route: {lines[0].split()[0]} -> "), lines


def test_classify_with_a_config_that_does_not_load_says_so_before_anything_else(
    tmp_path: Path,
) -> None:
    """It printed the whole explanation, then the config's error (found in review)."""
    smf_router = Path(sys.executable).parent / "smf-router"
    done = subprocess.run(
        [str(smf_router), "classify", "hello there", "--config", str(tmp_path / "none.yaml")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith("error: ") and "none.yaml" in done.stderr


def _smf(
    args: list[str], config: Path, stdin: bytes | int | None = None
) -> subprocess.CompletedProcess[bytes]:
    """`smf-router ARGS --config CONFIG` as a user runs it, `stdin` piped in (or a pty's fd)."""
    smf_router = Path(sys.executable).parent / "smf-router"
    return subprocess.run(
        [str(smf_router), *args, "--config", str(config)],
        input=stdin if isinstance(stdin, bytes) else None,
        stdin=stdin if isinstance(stdin, int) else None,
        capture_output=True,
        timeout=120,
    )


@pytest.mark.parametrize("args", [["classify"], ["classify", "-"]])
def test_classify_reads_the_prompt_from_stdin(tmp_path: Path, args: list[str]) -> None:
    """`smf-router classify -` classified the literal "-", and `echo ... | smf-router
    classify` failed with "Missing argument" (found in review)."""
    done = _smf(args, _config(tmp_path, 0.35), b"Write a haiku about the first snow\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().startswith("prose  confidence ")


def test_classify_reads_a_prompt_longer_than_an_argument_can_be(tmp_path: Path) -> None:
    """A command-line argument is capped at 128 KiB by the kernel: a long prompt could not
    be classified at all. On stdin it is read up to the router's body limit."""
    prompt = (
        b"Here is my module:\n" + b"def f(x):\n    return x * 2\n" * 8000 + b"Why does it fail?"
    )
    assert len(prompt) > 200 * 1024
    done = _smf(["classify"], _config(tmp_path, 0.35), prompt)
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().startswith("coding  confidence ")


def test_classify_refuses_stdin_over_the_body_limit_in_one_line(tmp_path: Path) -> None:
    config = _config(tmp_path, 0.35)
    config.write_text(config.read_text() + "server: {max_body_bytes: 1024}\n")
    done = _smf(["classify"], config, b"word " * 300)
    assert done.returncode == 2
    assert done.stderr.decode() == "error: the prompt on stdin is over 1024 bytes\n"
    assert done.stdout == b""


def test_classify_without_a_prompt_at_a_terminal_says_how_to_give_one(tmp_path: Path) -> None:
    """At a terminal a missing TEXT is an error, not a wait for stdin nobody meant to type."""
    primary, secondary = os.openpty()
    try:
        done = _smf(["classify"], _config(tmp_path, 0.35), secondary)
    finally:
        os.close(primary)
        os.close(secondary)
    assert done.returncode == 2
    assert done.stderr.decode() == (
        "error: give the prompt as TEXT, or '-' and the prompt on stdin\n"
    )


@pytest.mark.parametrize(
    "args", [["classify"], ["classify", "-"], ["classifier", "show"], ["classifier", "show", "-"]]
)
def test_classify_with_stdin_closed_says_how_to_give_a_prompt(
    tmp_path: Path, args: list[str]
) -> None:
    """With stdin closed (`<&-`, `sys.stdin` is None) it was an AttributeError traceback
    (found in review): there is no prompt to read, as at a terminal."""
    smf_router = Path(sys.executable).parent / "smf-router"
    config = ["--config", str(_config(tmp_path, 0.35))] if args[0] == "classify" else []
    done = subprocess.run(
        ["sh", "-c", 'exec "$0" "$@" <&-', str(smf_router), *args, *config],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr == "error: give the prompt as TEXT, or '-' and the prompt on stdin\n"


@pytest.mark.parametrize("command", ["import-data", "distill"])
def test_a_directory_argument_that_is_missing_or_a_file_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    """A missing SRC or MODEL_DIR, or a file, ended in a FileNotFoundError or
    NotADirectoryError traceback (found in review). Pointed away from classifier/data, so
    a run that got past the check writes nothing there."""
    monkeypatch.setattr(corpus, "DATA_DIR", tmp_path / "data")
    monkeypatch.setattr(corpus, "EMBEDDING_PATH", tmp_path / "data" / "table.npz")
    (tmp_path / "file").write_text("")
    for path, why in ((tmp_path / "none", "does not exist"), (tmp_path / "file", "is a file")):
        result = CliRunner().invoke(app, [command, str(path)], env={"COLUMNS": "300"})
        assert result.exit_code == 2, (path, result.output)
        assert isinstance(result.exception, SystemExit), result.exception
        assert f"'{path}' {why}" in result.output
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize(
    ("prompt", "why"), [("", "no text"), ("asdf", "no word in it the model knows")]
)
def test_classify_of_nothing_it_can_read_says_so_without_tables(
    tmp_path: Path, prompt: str, why: str
) -> None:
    """For "" it printed "confidence 0.00 source default", then a probability table and an
    empty features table that contradicted it (found in review)."""
    done = _smf(["classify", prompt], _config(tmp_path, 0.35))
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().splitlines() == [
        "unknown  confidence 0.00  source default",
        f"nothing to classify: {why}",
        "route: coding (nothing to classify: the default route) -> local, cloud",
    ]


def test_classifier_show_reads_stdin_too() -> None:
    result = CliRunner().invoke(app, ["show", "-"], input="Write a haiku about the first snow\n")
    assert result.exit_code == 0, result.output
    assert result.output.startswith("prose  confidence ")


def test_classifier_show_names_the_two_intents_the_weights_tell_apart() -> None:
    """The weights are shares of the margin over the runner-up (`explain`); the column said
    "weight toward prose" alone."""
    result = CliRunner().invoke(app, ["show", "Write a haiku about the first snow"])
    assert result.exit_code == 0, result.output
    top = explain(body("Write a haiku about the first snow"))["top_intents"]
    assert f"weight toward {top[0]['intent']} over {top[1]['intent']}" in result.output
