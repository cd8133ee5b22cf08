"""`smf-router classify` and `smf-router classifier train`: what a user sees on the terminal,
bad input included (one `error:` line and exit 2, never a traceback)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from classifier.cli import app


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
