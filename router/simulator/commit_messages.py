"""A commit message for a git diff, where the prompt asks for one (`commit_message`).

opencommit and aicommits send a staged diff under a system prompt asking for its commit
message, and commit the reply as it is. The simulator read the diff as any ask: a `def` in
it gave "Here is a solution:" and a Python block, a new file's hunk header a `\\boxed{}`
sum, and a demo's git history filled with them (found in a live review). Told as the
classifier tells them (`classifier.commit_message.writes_commit_message`: each tool's
system prompt's opening), or by a commit message asked for in the system prompt (or in the
ask before its diff) beside a `diff --git` line, "Write a commit message for:" (`_requests`;
the phrase alone is no request: a code reviewer's prompt given "the commit messages", "My
commit message said it was a refactor", "don't write a commit message" got one, found in
review): the answer is one line in the Conventional Commits
form, `fix(stats): update src/stats.py`, naming the diff's first file; its type and verb
from that file (new, deleted, documentation, tests, else a fix), a gitmoji instead of the
type where the prompt asks for emoji. aicommits' body request (its second prompt) gets two
short sentences instead. Each choice of a request (`n`) words it its own way (`_VERBS`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from classifier.commit_message import AICOMMITS_SYSTEMS, writes_commit_message
from classifier.message import NO_SYSTEM, System
from router.simulator.prompt import Prompt, ends

# a diff's file line, indented as opencommit's example diff indents it
_DIFF = re.compile(r"^[ \t]*diff --git a/(\S+) b/(\S+)[ \t]*$", re.M)
_ASKED = re.compile(r"\bcommit messages?\b", re.I)
# a verb asking for one, before the phrase in its sentence ("Write a commit message"), and a
# negation there that takes the request back ("don't write a commit message", "not a ...")
_REQUEST = re.compile(
    r"\b(?:write|writes|writing|generate|generates|generating|create|creates|creating"
    r"|suggest|suggests|suggesting|give|draft|compose)\b",
    re.I,
)
_NEGATED = re.compile(r"n['’]t\b|\b(?:not|never|no|without)\b", re.I)
_STOPS = ".!?;:\n"  # what ends a sentence or a clause before the phrase
_EMOJI = re.compile(r"gitmoji|\bemoji\b", re.I)
_CLAUSE = 200  # characters before the phrase its sentence is read from
_SCAN = 20_000  # characters of the ask its diff's files are read from
_LINES = 4  # lines after a file's `diff --git` line that tell a new or a deleted file
_WIDTH = 72  # git's subject width, and aicommits' limit
_DOCS = (".md", ".rst", ".txt", ".adoc")


@dataclass(frozen=True, slots=True)
class _Kind:
    """What a change is called: its Conventional Commits type, its gitmoji, its verbs."""

    type: str
    emoji: str
    verbs: tuple[str, ...]


_UPDATE = ("update", "revise", "adjust", "rework")
_FIX = _Kind("fix", "🐛", _UPDATE)
_FEAT = _Kind("feat", "✨", ("add", "introduce", "create", "include"))
_REMOVE = _Kind("chore", "🔥", ("remove", "delete", "drop", "retire"))
_DOC = _Kind("docs", "📝", _UPDATE)
_NEW_DOC = _Kind("docs", "📝", _FEAT.verbs)
_TEST = _Kind("test", "✅", _UPDATE)


def asks_commit_message(prompt: Prompt) -> bool:
    """Whether `prompt` asks for a commit message for a diff: opencommit's or aicommits'
    system prompt, or a request for one (`_requests`) in the system prompt's ends or the
    ask's text before a `diff --git` line."""
    system = System(prompt.system, prompt.system, prompt.system) if prompt.system else NO_SYSTEM
    if writes_commit_message(system):
        return True
    ask = prompt.ask[:_SCAN]
    found = _DIFF.search(ask)
    if found is None:
        return False
    return _requests(ends(prompt.system)) or _requests(ends(ask[: found.start()]))


def _requests(text: str) -> bool:
    """Whether `text` asks for a commit message: "commit message" after a verb asking for
    one in its sentence (`_REQUEST`), with no negation between the sentence's start and the
    phrase (`_NEGATED`). A phrase that is only mentioned, or asked not to be written, is
    none."""
    for phrase in _ASKED.finditer(text):
        clause = text[max(0, phrase.start() - _CLAUSE) : phrase.start()]
        clause = clause[max(clause.rfind(stop) for stop in _STOPS) + 1 :]
        if _REQUEST.search(clause) and not _NEGATED.search(clause):
            return True
    return False


def commit_message(prompt: Prompt, index: int = 0) -> str:
    """The commit message `prompt` asks for (`asks_commit_message`), worded by the choice's
    `index`: a subject line, or aicommits' body where its body prompt asks for that."""
    files = _DIFF.findall(prompt.ask[:_SCAN])
    first = files[0][1] if files else ""
    kind = _kind(prompt.ask[:_SCAN], first)
    verb = kind.verbs[index % len(kind.verbs)]
    if prompt.system.startswith(AICOMMITS_SYSTEMS[1]):
        return _body(verb, first, len(files))
    others = f" and {len(files) - 1} other file{'s' * (len(files) > 2)}" if len(files) > 1 else ""
    scope = PurePosixPath(first).stem.lstrip(".").lower()  # commitlint's `scope-case`
    if _EMOJI.search(ends(prompt.system)):
        lead = f"{kind.emoji} "
    else:
        lead = f"{kind.type}({scope}): " if scope else f"{kind.type}: "
    line = f"{lead}{verb} {first or 'the code'}{others}"
    if len(line) > _WIDTH:  # a long path: its file's name alone
        line = f"{lead}{verb} {PurePosixPath(first).name}{others}"
    return line[:_WIDTH].rstrip()


def _body(verb: str, first: str, count: int) -> str:
    """Two short sentences: what changes in the first file, and what else."""
    other = "No other file changes."
    if count > 1:
        other = (
            "1 other file changes too." if count == 2 else f"{count - 1} other files change too."
        )
    return f"{verb.capitalize()} {first or 'the code'}.\n{other}"


def _kind(diff: str, first: str) -> _Kind:
    """The first file's change: new or deleted (told by the lines after its `diff --git`
    line), else documentation, tests, or a fix."""
    start = _DIFF.search(diff)
    head = diff[start.end() :].lstrip("\n").split("\n", _LINES)[:_LINES] if start else []
    mode = " ".join(line.strip() for line in head)
    path = PurePosixPath(first.lower())
    docs = path.suffix in _DOCS or "docs" in path.parts[:-1]
    if mode.startswith("deleted file mode"):
        return _REMOVE
    if mode.startswith("new file mode"):
        return _NEW_DOC if docs else _FEAT
    if docs:
        return _DOC
    tests = "tests" in path.parts[:-1] or path.name.startswith("test_") or ".test." in path.name
    return _TEST if tests else _FIX
