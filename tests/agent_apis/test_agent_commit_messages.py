"""opencommit's commits are a conversation each, keyed by their own diff, and coding on the
local backend whatever the diff changes (`classifier.commit_message`).

opencommit 3.3.10 opens every request with the same example diff and commit message: read
as the first ask, it made every commit of a caller one ledger conversation, and a LaTeX
diff read as math, served by the cloud, pinned a later Python fix to the cloud (found in a
live review). Real sockets, the official SDK unstreamed as opencommit sends, the ledger's
DuckDB files; the bodies are opencommit's (`tests/fixtures/opencommit-3.3.10.md`).
"""

from __future__ import annotations

from pathlib import Path

from tests.agent_apis.sticky_stack import first_choice, sent_rows
from tests.harness import Collect, RunningRouter
from tests.recorded import loader

KEYS = {"opencommit": "sk-opencommit-7d1e"}
captured = loader(Path(__file__).parents[1] / "fixtures" / "opencommit-3.3.10")


def test_two_commits_are_two_conversations_both_coding_on_local(
    pinning: tuple[RunningRouter, Collect],
) -> None:
    """The LaTeX proof's commit, then the Python fix's: two conversations, each read by the
    commit-message rule as coding and served locally; the fix's conversation is pinned by
    nothing of the proof's."""
    proof, fix = sent_rows(
        pinning,
        KEYS["opencommit"],
        [captured("proof-math.json"), captured("fix-stats.json")],
    )
    assert proof[1] != fix[1]
    assert (proof[2], proof[3]) == (fix[2], fix[3]) == ("coding", "local")


def test_a_commits_next_request_is_not_pinned_by_another(
    pinning: tuple[RunningRouter, Collect],
) -> None:
    """After the README commit, a new LaTeX file's commit (the same system prompt and
    example pair) is first sent by its route, not by a pin of the README's conversation."""
    running, _ = pinning
    sent_rows(pinning, KEYS["opencommit"], [captured("docs-readme.json")])
    headers = {"authorization": f"Bearer {KEYS['opencommit']}"}
    first = first_choice(running, captured("proof-new.json"), headers)
    assert first["reason"] != "sticky"
