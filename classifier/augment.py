"""Constraint-insertion augmentation: training rows made by putting one written constraint
sentence into a chat-style writing, prose or reasoning request (`TrainConfig.augment_rows`).

The largest distance left between the model and a reader of the labelling policy is one
shape: a task that reads as a story, essay, question or problem, with one sentence that adds
a checkable constraint on the response's form (`docs/classifier.md`). Hand-written rows of
that shape are few (team round 3), and the task's many words outvote the constraint's few.
Here the shape is made from parts the repository already has: the team's and the authors'
own requests (not a dataset's template) and the constraint sentences written for the
detector (`data/sentences/`), labelled instruction. Optional look-alikes put a content wish
("Give it a fairy-tale feel") into the same kind of row and keep its label, so the model
learns the constraint and not the insertion.

The policy's two exceptions are kept out, not taught: no row that names a literary form or
already carries a constraint-like sentence (a poem whose form rules are spelled out stays
prose with a requirement added), and no sentence that only says how to present a final
answer (which leaves a question reasoning). Rows are drawn only from the rows given, so a
leave-one-source-out fold augments its own sources; the draw is seeded, so training
reproduces it from the repository alone. Each made row says which half of the sentences
its sentence came from (`Made.half`): training scores it with a detector fit without that
half, so the detector's feature is as strong on a made row as on an unseen request.
Off in the shipped configuration: it gained in leave-one-source-out but moved drafting
requests off writing (docs/classifier.md, "Variants tried"). Pure: no I/O.
"""

from __future__ import annotations

import random
import re
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from classifier.constraint import FORM_WORDS
from classifier.corpus import ANSWER_KINDS, Example, Sentence
from classifier.features import tokens
from classifier.intent import Label

SOURCE = "augmented"
# chat-style requests written for this project, not a dataset's template
BASE_SOURCES = frozenset({"team", "authored"})
BASE_LABELS: frozenset[Label] = frozenset({"writing", "prose", "reasoning"})
# a task's own sentence with a constraint in it ("Write a poem in which each line ..."): not
# something to add to another task
EMBEDDED = "embedded"
# the plain sentences that wish something of the content without constraining the form
CONTENT_WISH = "content_wish"
# sentences that only say how to present an answer (the policy's reasoning/math exception),
# or that pick the answer from a fixed set: never added as a constraint
ANSWERISH = re.compile(
    r"answer (in|with) (a single|one|only)|just answer|only answer|\byes\b|true or false"
    r"|nothing else|no other text|final answer|only the letter|single emoji|\\boxed|answer:",
    re.IGNORECASE,
)
# a sentence that asks for a text of its own ("Write a poem about fog where ..."), not one
# that constrains the text asked for ("Write it in lowercase", "Write each sentence ...")
TASK = re.compile(
    r"(write|compose|draft|describe|explain|summari[sz]e|give|tell|create|list)\s+(?!(it|the"
    r"|each|every|everything|all|at|exactly|in|without|with|no|your (whole|entire|response"
    r"|answer|reply))\b)",
    re.IGNORECASE,
)
MAX_WHOLE = 1500  # a text this short is read whole, so a sentence inside it is read too
JOINTS = (" ", "\n", "\n\n")
SENTENCE_END = re.compile(r"[.!?] (?=[A-Z])")


@dataclass(frozen=True, slots=True)
class Made:
    """One made row, the index of the row it was made from, and the half (0 or 1,
    `half_of`) its sentence was drawn from."""

    row: Example
    base: int
    half: int


def usable(sentence: Sentence) -> bool:
    """A written constraint on the whole text, in English, that can stand beside a task and
    names no literary form."""
    return (
        sentence.constraint
        and sentence.kind not in ANSWER_KINDS
        and sentence.kind != EMBEDDED
        and sentence.text.isascii()
        and not ANSWERISH.search(sentence.text)
        and not TASK.match(sentence.text)
        and FORM_WORDS.isdisjoint(tokens(sentence.text))
    )


def halves(labelled: Sequence[Sentence]) -> tuple[list[int], list[int]]:
    """Indices into `labelled` of the usable constraints and of the content wishes."""
    constraints = [i for i, s in enumerate(labelled) if usable(s)]
    wishes = [i for i, s in enumerate(labelled) if s.kind == CONTENT_WISH and s.text.isascii()]
    return constraints, wishes


def base_rows(rows: Sequence[Example], constrained: Callable[[str], bool]) -> list[int]:
    """The indices of the rows a sentence may be added to: chat-style writing, prose or
    reasoning requests in English that name no literary form and that `constrained` finds
    no constraint in."""
    return [
        i
        for i, r in enumerate(rows)
        if r.source in BASE_SOURCES
        and r.label in BASE_LABELS
        and r.text.isascii()
        and FORM_WORDS.isdisjoint(tokens(r.text))
        and not constrained(r.text)
    ]


def insert(text: str, sentence: str, rng: random.Random) -> str:
    """`text` with `sentence` at its end (most often), its start, or after one of its
    sentences when the text is short enough to be read whole."""
    text = text.strip()
    where = rng.random()
    if where < 0.2:
        return f"{sentence}{rng.choice(JOINTS)}{text}"
    ends = [m.end() for m in SENTENCE_END.finditer(text)]
    if where < 0.4 and len(text) <= MAX_WHOLE and ends:
        cut = rng.choice(ends)
        return f"{text[:cut]}{sentence} {text[cut:]}"
    joint = rng.choice(JOINTS) if text.endswith((".", "?", "!")) else "\n\n"
    return f"{text}{joint}{sentence}"


def augment(
    rows: Sequence[Example],
    labelled: Sequence[Sentence],
    n: int,
    negatives: float,
    seed: int,
    constrained: Callable[[str], bool],
) -> list[Made]:
    """`n` rows labelled instruction, each a base row with one usable constraint sentence,
    and `round(n * negatives)` base rows with one content wish, keeping their label."""
    pool = base_rows(rows, constrained)
    constraints, wishes = halves(labelled)
    if not pool or not constraints:
        return []
    rng = random.Random(seed)
    order = rng.sample(pool, len(pool))
    made: list[Made] = []
    for i in range(n):
        base = order[i % len(order)]
        k = rng.choice(constraints)
        text = insert(rows[base].text, labelled[k].text, rng)
        made.append(Made(Example(text, "instruction", SOURCE), base, half_of(labelled[k])))
    if wishes:
        for i in range(round(n * negatives)):
            base = order[(n + i) % len(order)]
            k = rng.choice(wishes)
            text = insert(rows[base].text, labelled[k].text, rng)
            made.append(Made(Example(text, rows[base].label, SOURCE), base, half_of(labelled[k])))
    return made


def half_of(sentence: Sentence) -> int:
    """Which half a sentence is in: by its text, so a sentence written twice is in one."""
    return zlib.crc32(sentence.text.encode()) % 2


def without_half(labelled: Sequence[Sentence], half: int) -> list[Sentence]:
    """The sentences a made row of `half` is scored without: every sentence the augmentation
    could draw that is in that half is left out (the others all stay)."""
    constraints, wishes = halves(labelled)
    drop = {labelled[i].text for i in (*constraints, *wishes) if half_of(labelled[i]) == half}
    return [s for s in labelled if s.text not in drop]
