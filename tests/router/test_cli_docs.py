"""The commands and agent settings the docs show are the ones that exist."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import typer
from typer.testing import CliRunner

from router import cli
from tests.harness import REPO

DOCS = [REPO / "README.md", REPO / "deploy" / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


def _code(path: Path) -> str:
    """The inline code spans and fenced blocks of a Markdown file."""
    text = path.read_text(encoding="utf-8")
    fenced = re.findall(r"^```[^\n]*\n(.*?)^```", text, re.DOTALL | re.MULTILINE)
    inline = re.findall(r"`([^`\n]+)`", re.sub(r"^```.*?^```", "", text, flags=re.S | re.M))
    return "\n".join(fenced + inline)


def test_every_smf_router_command_in_the_docs_exists() -> None:
    """docs/ledger.md said `smf-router compact`, a command that never existed: it is
    `smf-router ledger compact` (found in review)."""
    cli._mount_optional()
    root = typer.main.get_command(cli.app)  # a group: `.commands` by name
    missing = []
    for path in DOCS:
        # not `-u smf-router`, `useradd smf-router`: there it names a user or a namespace
        for words in re.findall(r"(?<![-\w]\s)smf-router((?: [a-z][a-z_-]*)+)", _code(path)):
            command: Any = root
            for word in words.split():
                if not hasattr(command, "commands"):
                    break  # the rest are arguments (`classify "text"`, `serve --port`)
                found = command.commands.get(word)
                if found is None:
                    missing.append(f"{path.relative_to(REPO)}: smf-router{words}")
                    break
                command = found
    assert missing == []


def test_compact_help_says_what_it_reads_from_the_config() -> None:
    """It said "for the ledger path and local costs", which compaction never reads; it
    takes the ledger path and the retention (found in review)."""
    from router.ledger.cli import app

    shown = CliRunner().invoke(app, ["compact", "--help"], env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    assert "ledger path and retention" in shown.output and "local costs" not in shown.output


def test_every_config_option_names_its_environment_default() -> None:
    """`report` and `shadow report` read $SMF_ROUTER_CONFIG when `--config` is not given,
    as `config check` and `canary run` do, but only those said so: a shell exporting the
    real config priced the demo ledger with the real box's hardware (found in review)."""
    cli._mount_optional()
    silent = []
    for path in (["report"], ["ledger", "report"], ["ledger", "compact"], ["shadow", "report"]):
        shown = CliRunner().invoke(cli.app, [*path, "--help"], env={"COLUMNS": "300"})
        assert shown.exit_code == 0, shown.output
        if "--config" in shown.output and "$SMF_ROUTER_CONFIG" not in shown.output:
            silent.append(" ".join(path))
    assert silent == []
