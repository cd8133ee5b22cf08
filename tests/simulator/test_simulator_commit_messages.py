"""A request for a commit message for a git diff is answered with one line naming the
diff's first file, never code or a sum.

opencommit 3.3.10 and aicommits 3.4.0 commit the reply as it is. The simulator read their
diffs as any ask: a `def` in one gave "Here is a solution:" and a Python block, a new
file's hunk header (`@@ -0,0 +1,4 @@`) the sum "0 +1" and `\\boxed{1}`, and a demo's git
history filled with them (found in a live review; the bodies are the ones they sent,
`tests/fixtures/opencommit-3.3.10.md`, `tests/fixtures/aicommits-3.4.0.md`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from router.simulator import SimThread
from tests.recorded import FIXTURES, loader
from tests.simulator.calls import client

MODEL = "tiny"
opencommit = loader(FIXTURES / "opencommit-3.3.10")
aicommits = loader(FIXTURES / "aicommits-3.4.0")
# `type(scope): subject`, the Conventional Commits form opencommit and aicommits ask for
CONVENTIONAL = re.compile(
    r"(feat|fix|docs|style|refactor|perf|test|build|ci|chore)(\([^)]+\))?: \S"
)
TITLES = [
    (opencommit, "fix-stats.json", "src/stats.py"),
    (opencommit, "docs-readme.json", "README.md"),
    (opencommit, "proof-math.json", "notes/proof.tex"),
    (opencommit, "proof-new.json", "notes/proof.tex"),
    (opencommit, "commitlint.json", ".gitignore"),
    (aicommits, "title-stats.json", "src/stats.py"),
    (aicommits, "title-poem.json", "poems/autumn.txt"),
    (aicommits, "title-conventional-body.json", "src/stats.py"),
    (aicommits, "title-sqrt2-conventional.json", "notes/sqrt2.tex"),
]


def answers(sim: SimThread, body: dict[str, Any], n: int = 1) -> list[str]:
    """The texts of the simulator's `n` choices for a recorded chat body, sent as the
    client sent it, through the openai SDK."""
    sdk = client(sim)
    reply = sdk.chat.completions.create(**(body | {"model": MODEL, "n": n}))
    return [choice.message.content or "" for choice in reply.choices]


def plain(text: str) -> bool:
    """Whether `text` is one line of no code and no maths: a commit's subject."""
    return "\n" not in text and not re.search(r"```|\\boxed|Computing|Here is", text)


@pytest.mark.parametrize(("load", "name", "first"), TITLES)
@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_a_commit_title_is_one_conventional_line_naming_the_first_file(
    start_sim: Callable[..., SimThread],
    profile: str,
    load: Callable[[str], dict[str, Any]],
    name: str,
    first: str,
) -> None:
    (text,) = answers(start_sim(profile=profile), load(name))
    assert plain(text) and len(text) <= 72, text
    assert CONVENTIONAL.match(text) and first in text, text


@pytest.mark.parametrize(
    ("load", "name"), [(opencommit, "gitmoji.json"), (aicommits, "title-sqrt2-gitmoji.json")]
)
def test_a_gitmoji_prompt_gets_an_emoji_first(
    start_sim: Callable[..., SimThread], load: Callable[[str], dict[str, Any]], name: str
) -> None:
    (text,) = answers(start_sim(), load(name))
    assert plain(text) and not text[0].isascii() and not CONVENTIONAL.match(text), text


def test_aicommits_body_request_gets_a_short_body(start_sim: Callable[..., SimThread]) -> None:
    """Its second request (`-t conventional+body`) asks for the body alone: short lines,
    no title again, no code."""
    (text,) = answers(start_sim(), aicommits("body.json"))
    lines = text.splitlines()
    assert 1 < len(lines) <= 6 and all(len(line) <= 72 for line in lines), text
    assert "src/stats.py" in text and not re.search(r"```|\\boxed|Here is", text)


def test_several_choices_are_worded_apart(start_sim: Callable[..., SimThread]) -> None:
    """`n` choices of one request are as many messages, each naming the file."""
    texts = answers(start_sim(), aicommits("title-stats.json"), n=3)
    assert len(set(texts)) == 3 and all("src/stats.py" in text for text in texts), texts


def test_a_commit_message_asked_in_the_ask_is_one_too(
    start_sim: Callable[..., SimThread],
) -> None:
    """No tool's system prompt: the ask asks for a commit message for a diff it shows."""
    diff = opencommit("fix-stats.json")["messages"][-1]["content"]
    body = {"messages": [{"role": "user", "content": f"Write a commit message for:\n{diff}"}]}
    (text,) = answers(start_sim(), body)
    assert plain(text) and CONVENTIONAL.match(text) and "src/stats.py" in text, text


def test_a_diff_asked_about_otherwise_keeps_its_answer(
    start_sim: Callable[..., SimThread],
) -> None:
    """A diff with no commit message asked for is read as before: code for code."""
    diff = opencommit("fix-stats.json")["messages"][-1]["content"]
    body = {"messages": [{"role": "user", "content": f"Refactor this function:\n{diff}"}]}
    (text,) = answers(start_sim(), body)
    assert "```python" in text


def test_a_hunk_header_is_no_sum(start_sim: Callable[..., SimThread]) -> None:
    """A new file's hunk header, `@@ -0,0 +1,4 @@`, asked about with no commit message
    asked for, is no arithmetic; a sum written beside it still is."""
    diff = aicommits("title-poem.json")["messages"][-1]["content"]
    sim = start_sim()
    (text,) = answers(sim, {"messages": [{"role": "user", "content": f"Review this:\n{diff}"}]})
    assert "boxed" not in text and "Computing" not in text, text
    ask = f"What is 7+2? Then review this:\n{diff}"
    (text,) = answers(sim, {"messages": [{"role": "user", "content": ask}]})
    assert text.startswith("Computing 7+2 step by step gives 9."), text


@pytest.mark.parametrize(
    ("system", "ask"),
    [
        (
            "You are a senior code reviewer. You are given the PR title, the commit messages"
            " and the diff. Point out bugs and suggest improvements.",
            "Review this PR.",
        ),
        (None, "Explain this diff, don't write a commit message."),
        (None, "Does this diff break anything? My commit message said it was a refactor."),
        (None, "Write a summary of this diff, not a commit message."),
    ],
    ids=["a_reviewers_prompt", "asked_not_to", "only_mentioned", "not_one"],
)
def test_a_commit_message_only_mentioned_asks_for_none(
    start_sim: Callable[..., SimThread], system: str | None, ask: str
) -> None:
    """The phrase beside a diff is no request for a commit message: a code reviewer's system
    prompt given "the commit messages", a user's "don't write a commit message" or "my
    commit message said" got `fix(stats): update src/stats.py` (found in review). A verb
    asking for one, not negated, is what asks."""
    diff = opencommit("fix-stats.json")["messages"][-1]["content"]
    messages = [{"role": "user", "content": f"{ask}\n{diff}"}]
    if system is not None:
        messages.insert(0, {"role": "system", "content": system})
    (text,) = answers(start_sim(), {"messages": messages})
    assert not CONVENTIONAL.match(text) and "src/stats.py" not in text.splitlines()[0], text


@pytest.mark.parametrize(
    ("system", "ask"),
    [
        ("You generate commit messages for the diffs you are given.", "Here it is."),
        (None, "Suggest a commit message; keep it short:"),
        (None, "Please give me a good commit message for this change."),
    ],
    ids=["in_the_system_prompt", "suggest", "give"],
)
def test_a_commit_message_asked_for_in_other_words_is_one(
    start_sim: Callable[..., SimThread], system: str | None, ask: str
) -> None:
    diff = opencommit("fix-stats.json")["messages"][-1]["content"]
    messages = [{"role": "user", "content": f"{ask}\n{diff}"}]
    if system is not None:
        messages.insert(0, {"role": "system", "content": system})
    (text,) = answers(start_sim(), {"messages": messages})
    assert plain(text) and CONVENTIONAL.match(text) and "src/stats.py" in text, text


@pytest.mark.parametrize(
    ("files", "other"),
    [
        (1, "No other file changes."),
        (2, "1 other file changes too."),
        (3, "2 other files change too."),
    ],
)
def test_aicommits_body_counts_the_other_files_in_good_grammar(
    start_sim: Callable[..., SimThread], files: int, other: str
) -> None:
    """ "1 other file change too." was the body's second sentence for two files."""
    body = aicommits("body.json")
    diff = body["messages"][-1]["content"].split("Code diff:\n", 1)[1]
    extra = [diff.replace("src/stats.py", f"src/more{n}.py") for n in range(1, files)]
    last = {**body["messages"][-1], "content": "\n".join([body["messages"][-1]["content"], *extra])}
    (text,) = answers(start_sim(), body | {"messages": [*body["messages"][:-1], last]})
    assert text.splitlines()[-1] == other, text
