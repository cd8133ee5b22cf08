"""Every relative link in the docs leads to a file that exists and, with an anchor, to a
heading that file has: docs/agents.md became docs/agents/, one page per agent, and a link
to `agents.md#aider-chat` or a page's `#errors-agents-see` would lead nowhere unseen."""

from __future__ import annotations

import re
from pathlib import Path

from tests.harness import REPO

DOCS = [REPO / "README.md", REPO / "deploy" / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^()\s]+)\)")


def _prose(text: str) -> str:
    """`text` without its fenced blocks and inline code, where brackets are not links."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.DOTALL | re.MULTILINE)
    return re.sub(r"`[^`\n]+`", "", text)


def anchors(path: Path) -> set[str]:
    """The anchors GitHub gives the headings of `path`: lower case, punctuation but `-` and
    `_` dropped, spaces as `-`; a repeated one numbered `-1`, `-2`, ..."""
    text = re.sub(r"^```.*?^```", "", path.read_text(encoding="utf-8"), flags=re.S | re.M)
    found: set[str] = set()
    for heading in re.findall(r"^#{1,6} (.+?)\s*$", text, re.MULTILINE):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        numbered, count = slug, 0
        while numbered in found:
            count += 1
            numbered = f"{slug}-{count}"
        found.add(numbered)
    return found


def broken_links(path: Path) -> list[str]:
    """The relative links of `path` that lead to no file, or to no heading of it."""
    broken = []
    for target in LINK.findall(_prose(path.read_text(encoding="utf-8"))):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:: not ours to check
            continue
        file, _, anchor = target.partition("#")
        linked = (path.parent / file).resolve() if file else path
        if not linked.exists():
            broken.append(f"{target} (no such file)")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"{target} (no such heading)")
    return broken


def test_every_relative_link_in_the_docs_resolves() -> None:
    broken = [f"{path.relative_to(REPO)}: {link}" for path in DOCS for link in broken_links(path)]
    assert broken == []


def test_the_check_finds_a_broken_link(tmp_path: Path) -> None:
    """What the check above relies on: a missing file and a missing heading are found, a
    link to a page's heading and a link inside code are not."""
    (tmp_path / "page.md").write_text("# Continue CLI, `cn` (chat)\n", encoding="utf-8")
    doc = tmp_path / "doc.md"
    doc.write_text(
        "[a](page.md#continue-cli-cn-chat) [b](gone.md) [c](page.md#aider-chat)"
        " `[d](gone.md)` [e](https://example.com/x)\n",
        encoding="utf-8",
    )
    assert broken_links(doc) == [
        "gone.md (no such file)",
        "page.md#aider-chat (no such heading)",
    ]
