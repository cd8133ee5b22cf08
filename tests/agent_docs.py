"""What the tests read of docs/agents/: one page per agent, and the pages every agent shares."""

from __future__ import annotations

import re
from pathlib import Path

from tests.harness import REPO

AGENT_DOCS = REPO / "docs" / "agents"


def agent_pages() -> list[Path]:
    """Every page of docs/agents/, in name order: what once was the one docs/agents.md."""
    return sorted(AGENT_DOCS.glob("*.md"))


def agent_section(page: str, heading: str) -> str:
    """The text of docs/agents/`page` under `heading` (the page's title or one of its `##`
    headings), up to the next heading of either level outside a fenced block (a `# ` line
    in a TOML or shell block is a comment). A page without that heading fails the test: a
    section's settings are read under the name the index links to."""
    lines = (AGENT_DOCS / page).read_text(encoding="utf-8").splitlines(keepends=True)
    fenced = False
    section: list[str] | None = None
    for line in lines:
        fenced ^= line.startswith("```")
        title = None if fenced else re.match(r"#{1,2} (.*)\n", line)
        if title and section is not None:
            break
        if section is not None:
            section.append(line)
        elif title and title.group(1) == heading:
            section = []
    assert section is not None, f"docs/agents/{page} has no heading {heading!r}"
    return "".join(section)
